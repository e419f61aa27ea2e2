"""The release's own numbers on its own data, through the product's import and export path.

``data_A.json`` goes in with ``import_scores --create-missing`` (responses and both experts'
sheets), the worker path computes what it computes, and the numbers are read back from the
results workbook. The figures were checked by running the release's script logic on the same
file (``Extract_Answer.py``: ``list_challenge_and_solution`` and ``compute_step1_or_3_selfbleu``
on the items joined by newlines; ``Extract_Scores.py``'s ``corr`` with its maxima):

* diversity as released: Step 1 0.3653, Step 3 0.2941 (with every item stripped, as an
  earlier version stored them: 0.3695 and 0.2990);
* PCC: 0.863 with the sheet's maxima, 0.8534 as the release's script (Purpose / 2);
* final score: 116.5, the mean of H01 (116) and H02 (117).
"""

import pytest
from django.core.management import call_command
from openpyxl import load_workbook

from research.selectors.research import results_get
from research.workbook import results_workbook_write
from studies.models import Response
from tests.conftest import REFERENCE

pytestmark = pytest.mark.django_db


@pytest.fixture
def workbook(tmp_path):
    call_command(
        "import_scores", str(REFERENCE / "data_A.json"), "--study", "Replication", "--create-missing"
    )
    study = Response.objects.get(research_id="A05_FS10").study
    path = tmp_path / "results.xlsx"
    results_workbook_write(results_get(study=study), path)
    return load_workbook(path, read_only=True)


def _rows(ws):
    return [[c for c in row] for row in ws.iter_rows(values_only=True)]


def test_the_imported_text_is_stored_exactly_as_given(workbook, data_a):
    response = Response.objects.get(research_id="A05_FS10")
    items = [it["Content"] for it in data_a[0][3]["Step-1"] if "Content" in it]
    assert response.step1 == "\n".join(items)
    assert response.step1.split("\n")[0].endswith('particles."  ')  # the release's two trailing spaces
    assert response.shown_answer(1) == "\n".join(i.rstrip() for i in items)


def test_diversity_as_released_is_the_releases_number(workbook):
    rows = _rows(workbook["Diversity"])
    header = rows[0]
    released = header.index("Diversity (1 - mean Self-BLEU), as released")
    by_step = {row[header.index("Step")]: row[released] for row in rows[1:] if row and row[0]}
    assert by_step == {1: 0.3653, 3: 0.2941}
