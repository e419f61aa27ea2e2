"""The product's overall table reproduces the paper's Table 4: averages and significance marks."""

import pytest
from django.core.management import CommandError, call_command

from research.records import ScoreRecord
from research.results import fmt, overall_table, wilcoxon_test
from research.selectors.research import results_get
from tests.paper_table4 import PAPER_AVERAGES

pytestmark = pytest.mark.django_db


def test_overall_table_reproduces_table_4_averages_and_marks(table4):
    table = results_get(study=table4, with_diversity=False).overall
    assert table.pair == ("A", "B") and table.scenarios == [f"FS{i}" for i in range(1, 11)]
    rows = {(r.model_number, r.condition): r for r in table.rows}
    for number, (team_avg, mark, base_avg) in PAPER_AVERAGES.items():
        assert fmt(rows[(number, "A")].average) == team_avg
        assert fmt(rows[(number, "B")].average) == base_avg
        assert rows[(number, "A")].mark == mark, number
        assert rows[(number, "B")].mark == ""
    tests = {t.model: t for t in table.tests}
    assert sum(1 for t in table.tests if t.p_value < 0.01) == 7
    assert {m for m, t in tests.items() if not t.mark} == {"kimi-k2", "llama-4-scout", "gemini-2.5-pro"}
    # gemini has one zero difference (FS9 116 vs 116); scipy's default drops it
    assert tests["gemini-2.5-pro"].n == 10 and round(tests["gemini-2.5-pro"].p_value, 3) == 0.129
    assert round(tests["qwen3-instruct"].p_value, 5) == 0.00195


def test_any_pair_of_conditions_can_be_tested(table4):
    table = results_get(study=table4, pair=("B", "A"), with_diversity=False).overall
    rows = {(r.model_number, r.condition): r for r in table.rows}
    # two-sided: the same p; the mark stays on the higher average (A's), whichever comes first
    assert rows[("01", "A")].mark == "**" and rows[("01", "B")].mark == ""
    assert rows[("01", "A")].higher and not rows[("01", "B")].higher


def test_a_significant_decline_is_marked_on_the_baseline():
    """Issue 42: a held-out study where A scored lower (83.5 vs 110.2, p < 0.01) showed "83.5**",
    read as a significant improvement."""
    records = [
        ScoreRecord(
            response_id=i * 2 + (cond == "B"),
            research_id=f"{cond}01_FS{i}",
            scenario=f"FS{i}",
            model_number="01",
            model="m",
            condition=cond,
            overall=score,
        )
        for i in range(1, 11)
        for cond, score in (("A", 80 + i * 0.7), ("B", 105 + i * 1.1))
    ]
    table = overall_table(records, pair=("A", "B"))
    rows = {r.condition: r for r in table.rows}
    assert table.tests[0].p_value < 0.01
    assert rows["A"].mark == "" and not rows["A"].higher
    assert rows["B"].mark == "**" and rows["B"].higher


def test_wilcoxon_edge_cases():
    assert wilcoxon_test([], []) == (None, None, "no paired scenarios")
    assert wilcoxon_test([1, 2], [1, 2])[2] == "all differences are zero"
    assert overall_table([], pair=("A", "B")).rows == []


def test_analyze_command_prints_the_table(table4, capsys):
    call_command("analyze", "--study", table4.name, "--conditions", "A", "B")
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("qwen3-instruct") and " A " in ln)
    assert line.rstrip().endswith("135.35**")
    gemini = next(ln for ln in out.splitlines() if ln.startswith("gemini-2.5-pro") and "0.1289" in ln)
    assert gemini


@pytest.mark.parametrize("command", ["analyze", "export_results"])
def test_a_condition_the_study_lacks_is_refused_with_the_studys_letters(table4, command, tmp_path):
    """Issue 42: ``--conditions A Z`` gave empty sheets."""
    out = tmp_path / "results.xlsx"
    args = [str(out)] if command == "export_results" else []
    with pytest.raises(CommandError, match=r"condition Z \(it has: A, B\)"):
        call_command(command, *args, "--study", table4.name, "--conditions", "A", "Z")
    assert not out.exists()


def test_marks_default_to_the_papers_and_the_p_005_mark_is_an_option(table4, capsys):
    call_command("analyze", "--study", table4.name)
    assert "** p < 0.01, as the paper prints" in capsys.readouterr().out
    call_command("analyze", "--study", table4.name, "--marks", "both")
    out = capsys.readouterr().out
    assert "** p < 0.01, * p < 0.05" in out
    # Table 4 has no model with 0.01 <= p < 0.05 (the paper prints no single star): marks unchanged
    line = next(ln for ln in out.splitlines() if ln.startswith("qwen3-instruct") and " A " in ln)
    assert line.rstrip().endswith("135.35**")
    both = results_get(study=table4, with_diversity=False, marks="both").overall
    assert [t.mark for t in both.tests] == [
        t.mark for t in results_get(study=table4, with_diversity=False).overall.tests
    ]


def test_the_tests_notes_are_said_in_the_readers_language():
    """Issue 42: "no paired scenarios" and "all differences are zero" stayed English on Chinese pages."""
    from django.utils import translation

    from research.labels import test_note

    note = wilcoxon_test([1, 2], [1, 2])[2]
    with translation.override("zh-hans"):
        assert test_note(note) == "所有差值均为零" and test_note(wilcoxon_test([], [])[2]) == "没有配对的情境"
    with translation.override("en"):
        assert test_note(note) == "all differences are zero"


def test_table_columns_are_named_in_the_readers_language(table4):
    """Issue 42: Table 1/2 column heads stayed English on Chinese pages."""
    from django.utils import translation

    from research.labels import column_label

    results = results_get(study=table4, with_diversity=False)
    by_key = {c.key: c for c in results.columns}
    with translation.override("zh-hans"):
        names = [column_label(c, results.rubric) for c in results.columns]
        assert (
            column_label(by_key["s2.focus"], results.rubric) == results.rubric.dimension("s2.focus").label.zh
        )
        assert column_label(by_key["overall"], results.rubric) == "总分"
    assert not any(name.isascii() and name.strip() for name in names if name != "KVP")
    with translation.override("en"):
        assert [column_label(c, results.rubric) for c in results.columns] == [
            c.label for c in results.columns
        ]
