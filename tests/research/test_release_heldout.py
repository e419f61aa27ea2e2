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


def test_pcc_under_both_normalizations_and_the_final_score(workbook):
    rows = _rows(workbook["PCC per response"])
    header = rows[0]
    row = dict(zip(header, rows[1], strict=True))
    assert row["Research ID"] == "A05_FS10"
    assert round(row["PCC (sheet's maxima)"], 3) == 0.863
    assert round(row["PCC as the release's script (Purpose / 2)"], 4) == 0.8534
    assert row["Final score"] == 116.5
    assert any(r and r[0] and "0.8534 as the release's script" in r[0] for r in rows[2:])
    table1 = _rows(workbook["Table 1 (A)"])
    assert table1[2][0] == "FS10" and table1[2][-1] == 116.5


def test_table6_shows_the_pcc_under_both_normalizations(workbook):
    rows = {row[0]: row[1] for row in _rows(workbook["Consistency (Table 6)"]) if row and row[0]}
    assert round(rows["PCC (the sheet's maxima, headline)"], 3) == 0.863
    assert round(rows["PCC (as the release's script (Purpose / 2), before calibration only)"], 4) == 0.8534


def test_the_about_sheet_names_every_numbers_source(workbook):
    about = {row[0]: row[1:] for row in _rows(workbook["About"]) if row and row[0]}
    assert "Where each number comes from" in about
    assert about["PCC as the release's script"][1] == "Extract_Scores.py line 73: Purpose / 2"
    assert about["Headline ICC"][0].startswith("ICC3k (headline; as the release")
    assert "ICC2k (the paper's absolute agreement" in about["Headline ICC"][1]
    assert about["Efficiency"][0].startswith("ours:")
    assert "deepseek-chat / deepseek-reasoner" in about["Model names"][1]


def test_the_agreement_pages_and_command_show_both_pccs(workbook, client, capsys):
    from tests.factories import UserFactory

    response = Response.objects.get(research_id="A05_FS10")
    client.force_login(UserFactory(username="res-heldout", role="Researcher"))
    html = client.get(
        f"/research/agreement/{response.study.pk}/scenario/{response.scenario.pk}/"
    ).content.decode()
    assert "PCC as the release&#x27;s script (Purpose / 2)" in html or "PCC as the release's script" in html
    assert "0.863" in html and "0.853" in html
    assert "&lt; 0.0001" in html  # the PCC's p-value (1e-16 here), never a bare 0.0000
    call_command("agreement", "--study", "Replication")
    out = capsys.readouterr().out
    assert "PCC rel." in out and "0.853" in out and "0.863" in out
    assert "ICC2k the paper's absolute agreement" in out
