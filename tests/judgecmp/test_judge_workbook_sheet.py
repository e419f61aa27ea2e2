"""The results workbook's "LLM judge vs human raters" sheet: there whenever a judge scored
responses of the study, absent otherwise, with the numbers the research page shows."""

import pytest
from django.core.management import call_command
from openpyxl import load_workbook

from calibration.statistics import ICC_FORMS
from core.accounts.roles import RESEARCHER
from judging.selectors.comparison import judge_comparison_get
from research.results import fmt
from research.selectors.research import results_get
from research.selectors.results import raw_score_rows_count
from research.workbook import results_workbook_write
from research.workbook_judge import SHEET_TITLE
from tests.factories import UserFactory, reference_changes, scoring_group, sheet_submitted

pytestmark = pytest.mark.django_db


def _rows(path):
    ws = load_workbook(path)[SHEET_TITLE]
    return [[c.value for c in row] for row in ws.iter_rows()]


def _after(rows, heading):
    """The data rows below the header row that follows ``heading``, up to the blank row."""
    start = next(i for i, r in enumerate(rows) if r and r[0] == heading) + 2
    out = []
    for r in rows[start:]:
        if not r or r[0] is None:
            break
        out.append(r)
    return out


def test_sheet_numbers_equal_the_comparison_and_the_page(judged, tmp_path, client):
    judge, group, sheets = judged
    path = tmp_path / "results.xlsx"
    results_workbook_write(results_get(study=group.study), path)
    rows = _rows(path)
    comparison = judge_comparison_get(study=group.study, judge=judge)
    assert rows[0][:2] == [SHEET_TITLE, group.study.name]
    assert any(r[:2] == ["Judge", judge.name] for r in rows)

    per_response = _after(rows, "Per response (PCC)")
    assert [r[0] for r in per_response] == [row.item.research_id for row in comparison.rows]
    for r, row in zip(per_response, comparison.rows, strict=True):
        assert r[4] == pytest.approx(row.human_pair.r) and r[5] == pytest.approx(row.judge_a.r)
        assert r[6] == pytest.approx(row.judge_b.r)
        assert r[8] == (pytest.approx(row.judge_final.r) if row.judge_final else None)

    assert raw_score_rows_count(study=group.study) == 8  # the raw table stays human: 4 x 2 sheets
    client.force_login(UserFactory(username="res-wb", role=RESEARCHER))
    html = client.get("/research/judge/", {"study": group.study.pk, "judge": judge.pk}).content.decode()
    for r in per_response:
        assert f"<td>{fmt(r[5], 3)}</td><td>{fmt(r[6], 3)}</td>" in html  # the page shows the same PCCs

    icc_rows = _after(rows, "ICC per scenario (all six forms; CI of the headline form)")
    (scenario,) = comparison.iccs
    added = next(r for r in icc_rows if r[1] == "A, B and the judge")
    assert added[2] == 4
    assert added[3:9] == [pytest.approx(scenario.judge_added.form(f).icc) for f in ICC_FORMS]

    diffs = {r[0]: r for r in _after(rows, "Judge minus the mean of the two primary raters (points; "
                                           "negative = the judge is harsher)")}  # fmt: skip
    overall = next(d for d in comparison.steps if d.key == "overall").value
    assert diffs["Overall"][1:5] == [4, pytest.approx(overall.mean), pytest.approx(overall.ci_low),
                                     pytest.approx(overall.ci_high)]  # fmt: skip
    assert diffs["Overall"][5] == "fewer than 5 responses"
    assert "Step 2 total" in diffs and len(diffs) == 7 + 23

    thresholds = _after(rows, "Under the threshold: the judge in place of one rater against the human pair "
                              "(McNemar's exact test)")  # fmt: skip
    for r, t in zip(thresholds, comparison.thresholds, strict=True):
        assert r[:3] == [f"rater {t.replaces.upper()}", t.n, t.human_below] and r[4] == t.judge_below


def test_no_sheet_without_judge_sheets(tmp_path):
    group, responses = scoring_group(n_responses=1)
    sheet_submitted(group.rater_a, responses[0], reference_changes(3), group=group)
    path = tmp_path / "results.xlsx"
    results_workbook_write(results_get(study=group.study), path)
    assert SHEET_TITLE not in load_workbook(path).sheetnames


def test_export_results_command_includes_the_sheet(judged, tmp_path):
    judge, group, _ = judged
    path = tmp_path / "out.xlsx"
    call_command("export_results", str(path), "--study", group.study.name)
    names = load_workbook(path).sheetnames
    assert SHEET_TITLE in names and "Raw scores" in names
