"""Lin's CCC per response beside the PCC (issue 38, beyond the study): the same number in the
four places (the agreement command, the scenario page, the results workbook, the API), equal to
the CCC computed here from the two stored sheets; a uniformly harsher rater keeps a high PCC
and gets a low CCC."""

import json

import numpy as np
import pytest
from django.core.management import call_command
from django.test import Client
from openpyxl import load_workbook

from api.services.tokens import token_create
from calibration.models import ResponseAgreement
from calibration.selectors.agreement_state import sheet_vector
from calibration.services.calibration import response_scores_recompute
from research.selectors.research import results_get
from research.workbook import results_workbook_write
from scoring.models import ScoreSheet
from studies.models import Response
from studies.rubric import load_rubric
from tests.factories import make_response, rater, reference_changes, sheet_submitted

pytestmark = pytest.mark.django_db


def _ccc_here(response):
    rubric = load_rubric()
    a, b = (
        np.array(sheet_vector(sheet.totals, rubric))
        for sheet in ScoreSheet.objects.filter(
            assignment__response=response, assignment__role="primary"
        ).order_by("pk")  # the CCC is symmetric: the order does not matter
    )
    return 2 * np.cov(a, b, bias=True)[0, 1] / (a.var() + b.var() + (a.mean() - b.mean()) ** 2)


def test_the_ccc_is_the_same_in_the_command_the_page_the_workbook_and_the_api(demo, data_a, tmp_path, capsys):
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(data_a), encoding="utf-8")
    call_command("import_scores", str(path))
    response = Response.objects.get(research_id="A05_FS10")
    expected = _ccc_here(response)
    stored = ResponseAgreement.objects.get(response=response)
    assert stored.ccc == pytest.approx(expected, abs=1e-9)
    shown = f"{expected:.3f}"

    capsys.readouterr()
    call_command("agreement", "--scenario", "FS10")
    line = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("A05_FS10"))
    assert shown in line.split()

    client = Client()
    client.login(username="researcher", password="demo-pass-2026")
    page = client.get(f"/research/agreement/{response.study_id}/scenario/{response.scenario_id}/")
    assert page.status_code == 200
    row = page.content.decode().split("A05_FS10</a>", 1)[1].split("</tr>", 1)[0]
    assert f'<td class="num">{shown}</td>' in row

    book_path = tmp_path / "results.xlsx"
    results_workbook_write(results_get(study=response.study), book_path)
    rows = list(load_workbook(book_path, read_only=True)["PCC per response"].iter_rows(values_only=True))
    record = dict(zip(rows[0], rows[1], strict=True))
    assert record["CCC (Lin; beyond the study)"] == pytest.approx(expected, abs=5e-5)

    token = token_create(user=_researcher(), name="t", scope="read", days=1)
    api = Client(HTTP_AUTHORIZATION=f"Bearer {token.plain}").get(
        f"/api/v1/studies/{response.study_id}/agreement"
    )
    assert api.status_code == 200, api.content[:300]
    entry = next(r for r in api.json()["responses"] if r["research_id"] == "A05_FS10")
    assert entry["ccc"] == pytest.approx(expected, abs=1e-9)


def _researcher():
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username="researcher")


def test_a_uniformly_harsher_rater_keeps_the_pcc_and_loses_the_ccc(demo):
    rubric = load_rubric()
    response = make_response(research_id="A90_FS10")
    fair = reference_changes(3)
    harsher = []
    for path, value in fair:
        if path.startswith("dims."):
            spec = rubric.dimension(path.removeprefix("dims."))
            value = max(spec.min, value - 1)  # one point less on every directly scored dimension
        harsher.append((path, value))
    sheet_submitted(rater("fair_rater"), response, fair)
    sheet_submitted(rater("harsh_rater"), response, harsher)
    response_scores_recompute(response_id=response.pk)
    agreement = ResponseAgreement.objects.get(response=response)
    assert agreement.ccc == pytest.approx(_ccc_here(response), abs=1e-9)
    assert agreement.pcc > 0.75 and agreement.ccc < agreement.pcc - 0.1
