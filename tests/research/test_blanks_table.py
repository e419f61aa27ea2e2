"""Table 5 from the raters' "Blank" choices (as the release counts them), the parser's count
beside it only as a check, and the responses where the two raters disagree."""

import pytest

from research.group_tables import blank_disagreements, blanks_table
from research.records import RaterBlanks, ResponseRecord
from research.selectors.research import results_get
from tests.factories import ScenarioFactory, make_response, rater, reference_changes, sheet_submitted


def _record(rid, condition, a, b, parser3=0):
    return ResponseRecord(
        rid,
        "FS1",
        "05",
        "kimi-k2",
        condition,
        0,
        parser3,
        research_id=f"{condition}05_FS{rid}",
        rater_blanks=tuple(RaterBlanks(code, {1: 0, 3: n}) for code, n in (("H01", a), ("H02", b))),
    )


def test_the_raters_counts_make_the_table_and_the_parser_is_a_check():
    responses = [_record(1, "A", 2, 2, parser3=5), _record(2, "A", 1, 3), _record(3, "B", 0, 0)]
    rows = {(r.condition, r.step): r for r in blanks_table(responses)}
    a3 = rows[("A", 3)]
    assert (a3.value, a3.n, a3.parser, a3.disagreements) == (2.0, 2, 2.5, 1)  # (2 + mean(1, 3)) / 2
    assert (rows[("B", 3)].value, rows[("B", 3)].disagreements) == (0, 0)
    assert rows[("A", 1)].value == 0
    found = blank_disagreements(responses)
    assert [(d.research_id, d.step, d.counts) for d in found] == [("A05_FS2", 3, (("H01", 1), ("H02", 3)))]


def test_a_response_without_both_sheets_is_not_counted():
    one_sheet = ResponseRecord(
        9, "FS1", "05", "kimi-k2", "A", 0, 8, rater_blanks=(RaterBlanks("H01", {3: 8}),)
    )
    (row,) = [r for r in blanks_table([one_sheet]) if r.step == 3]
    assert (row.value, row.n, row.parser) == (None, 0, None)
    assert blank_disagreements([one_sheet]) == []


def _with_blanks(changes, positions):
    """A rater's sheet with the given Step-3 items marked Blank (their scores removed)."""
    blank = {f"items.3.{p}." for p in positions}
    out = [(path, value) for path, value in changes if not any(path.startswith(b) for b in blank)]
    return out + [(f"items.3.{p}.classification", "invalid:blank") for p in positions]


@pytest.mark.django_db
def test_table5_counts_what_the_raters_marked_on_their_sheets():
    h01, h02 = rater("blank-a", "H01"), rater("blank-b", "H02")
    agreed = make_response()
    disputed = make_response(  # same model and condition, another scenario
        study=agreed.study,
        scenario=ScenarioFactory(study=agreed.study),
        model=agreed.model,
        condition=agreed.condition,
    )
    for response, a_blanks, b_blanks in ((agreed, [8], [8]), (disputed, [7, 8], [8])):
        sheet_submitted(h01, response, _with_blanks(reference_changes(3), a_blanks))
        sheet_submitted(h02, response, _with_blanks(reference_changes(4), b_blanks))
    results = results_get(study=agreed.study, with_diversity=False)
    (row,) = [r for r in results.blanks if r.step == 3]
    assert row.n == 2 and row.value == pytest.approx((1 + 1.5) / 2)
    assert row.parser == agreed.step3_blank_items == 6  # the sample answer has two items: 8 - 2
    assert row.disagreements == 1
    (disagreement,) = results.blank_disagreements
    assert disagreement.step == 3 and disagreement.counts == (("H01", 2), ("H02", 1))
