"""Raters and design beyond the study (issue 38): the G-study, the D-study and the raters'
severity of a study's submitted sheets equal the pure functions on those sheets, and the same
numbers stand in the four places (the API, the consistency dashboard, ``agreement``, the
results workbook)."""

from statistics import fmean

import pytest
from django.core.management import call_command
from django.test import Client
from openpyxl import load_workbook

from api.services.tokens import token_create
from calibration.generalizability import d_study, g_study
from calibration.selectors.agreement_state import sheet_vector
from calibration.severity import rater_severity
from core.accounts.roles import RESEARCHER
from research.selectors.research import results_get
from research.workbook import results_workbook_write
from scoring.models import ScoreSheet
from studies.rubric import load_rubric
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _expected(group):
    rubric = load_rubric()
    keys = [d.key for d in rubric.dimensions]
    g_rows, s_rows = [], []
    sheets = ScoreSheet.objects.filter(assignment__response__study=group.study).select_related(
        "assignment__response"
    )
    for sheet in sheets:
        response = sheet.assignment.response
        vector = sheet_vector(sheet.totals, rubric)
        system = response.research_id.split("_")[0]
        g_rows.append((system, response.scenario_id, response.pk, sheet.assignment.rater_id, fmean(vector)))
        s_rows += [(response.pk, sheet.assignment.rater_id, k, v) for k, v in zip(keys, vector, strict=True)]
    return g_study(g_rows), rater_severity(s_rows)


def test_the_same_numbers_in_the_four_places(scored, tmp_path, capsys):
    group, responses = scored
    g, severity = _expected(group)
    assert g.reason == "" and g.components["system"] > 0
    current = d_study(g, scenarios=2, raters=2)
    researcher = UserFactory(username="facets-researcher", role=RESEARCHER)
    token = token_create(user=researcher, name="t", scope="read", days=1)
    reader = Client(HTTP_AUTHORIZATION=f"Bearer {token.plain}")
    api = reader.get(f"/api/v1/studies/{group.study_id}/facets").json()
    # the product's numbers are those of the pure functions on the sheets; REML's optimum is found
    # to about three digits (the same rows in another order move the fourth of a flat component)
    components = api["g_study"]["components"]
    assert components == {f: pytest.approx(v, rel=1e-2, abs=1e-7) for f, v in g.components.items()}
    assert api["d_study"]["current"]["generalizability"] == pytest.approx(current.generalizability, rel=1e-3)
    effects = sorted(r["effect"] for r in api["severity"]["raters"])
    assert effects == [pytest.approx(e.effect) for e in sorted(severity.raters, key=lambda e: e.effect)]
    assert set(api["severity"]["fair_scores"]) == {r.research_id for r in responses}
    shown = api["d_study"]["current"]["generalizability"]
    harsher = min(api["severity"]["raters"], key=lambda r: r["effect"])

    client = Client()
    client.force_login(researcher)
    section = (
        client.get(f"/research/agreement/?study={group.study_id}").content.decode().split('id="facets"', 1)[1]
    )
    assert f"generalizability {shown:.3f}" in section
    assert f'<td class="num">{harsher["effect"]:.3f}</td>' in section

    call_command("agreement", "--study", group.study.name)
    out = capsys.readouterr().out.split("G-study (beyond the study)", 1)[1]
    assert f"generalizability {shown:.3f}" in out and f"{harsher['effect']:+.3f}" in out

    book = tmp_path / "results.xlsx"
    results_workbook_write(results_get(study=group.study), book)
    sheet = load_workbook(book, read_only=True)["Raters and design (beyond)"]
    rows = [r for r in sheet.iter_rows(values_only=True) if r]
    variance = {r[0]: r[1] for r in rows if r[0] in components and isinstance(r[1], float)}
    assert variance == {facet: pytest.approx(value, abs=1e-12) for facet, value in components.items()}
    assert any(r[0] == harsher["rater"] and r[1] == pytest.approx(harsher["effect"], abs=5e-5) for r in rows)
