"""Krippendorff's alpha per scoring group and scenario (issue 38, beyond the study): computed on
the values the ICC uses, equal to the ``krippendorff`` package's on the same values, and the
same number in the agreement command, the scenario page, the results workbook and the API."""

import krippendorff
import numpy as np
import pytest
from django.core.management import call_command
from django.test import Client
from openpyxl import load_workbook

from api.services.tokens import token_create
from calibration.models import GroupAgreement
from calibration.selectors.agreement_state import sheet_vector
from calibration.services.calibration import study_agreement_recompute
from core.accounts.roles import RESEARCHER
from research.selectors.research import results_get
from research.workbook import results_workbook_write
from scoring.models import ScoreSheet
from studies.rubric import load_rubric
from tests.factories import UserFactory, reference_changes, scoring_group, sheet_submitted, varied_changes

pytestmark = pytest.mark.django_db


@pytest.fixture
def scored_group(db):
    group, responses = scoring_group(n_responses=5)
    for shift, response in zip((-2, -1, 0, 1, 2), responses, strict=True):
        sheet_submitted(group.rater_a, response, varied_changes(reference_changes(3), shift), group=group)
        sheet_submitted(group.rater_b, response, varied_changes(reference_changes(4), shift + 1), group=group)
    study_agreement_recompute(study_id=group.study_id)
    return group, responses


def _package_alpha(group, responses):
    rubric = load_rubric()
    data = np.full((2, len(responses)), np.nan)
    for column, response in enumerate(responses):
        for row, rater in enumerate((group.rater_a, group.rater_b)):
            sheet = ScoreSheet.objects.get(assignment__response=response, assignment__rater=rater)
            data[row, column] = np.mean(sheet_vector(sheet.totals, rubric))
    return krippendorff.alpha(reliability_data=data, level_of_measurement="interval")


def test_alpha_is_the_packages_on_the_iccs_values_and_the_same_in_four_places(scored_group, tmp_path, capsys):
    group, responses = scored_group
    expected = _package_alpha(group, responses)
    stored = GroupAgreement.objects.get(group=group, stage="before").alpha
    assert stored["value"] == pytest.approx(expected, abs=1e-9)
    assert stored["units"] == 5 and stored["ci_low"] < stored["value"] < stored["ci_high"]
    scenario_wide = GroupAgreement.objects.get(scenario=group.scenario, group=None, stage="before").alpha
    assert scenario_wide["value"] == pytest.approx(expected, abs=1e-9)  # the same five responses
    shown = f"{expected:.3f}"

    capsys.readouterr()
    call_command("agreement", "--study", group.study.name)
    lines = [
        line
        for line in capsys.readouterr().out.splitlines()
        if group.scenario.code in line and "before" in line
    ]
    assert lines and all(shown in line.split() for line in lines)
    assert f"[{stored['ci_low']:.2f}," in lines[0]

    researcher = UserFactory(username="alpha-researcher", role=RESEARCHER)
    client = Client()
    client.force_login(researcher)
    page = client.get(f"/research/agreement/{group.study_id}/scenario/{group.scenario_id}/").content.decode()
    # the group's and the scenario's rows, before and after (nothing calibrated: the same)
    assert page.count(f'<td class="num alpha">{shown}<br>') == 4

    book = tmp_path / "results.xlsx"
    results_workbook_write(results_get(study=group.study), book)
    rows = list(load_workbook(book, read_only=True)["Alpha (beyond the study)"].iter_rows(values_only=True))
    header = rows[0]
    before = [dict(zip(header, row, strict=True)) for row in rows[1:] if row and row[2] == "before"]
    assert [r["Krippendorff's alpha (interval)"] for r in before] == [pytest.approx(expected, abs=5e-5)] * 2

    token = token_create(user=researcher, name="t", scope="read", days=1)
    api = Client(HTTP_AUTHORIZATION=f"Bearer {token.plain}").get(
        f"/api/v1/studies/{group.study_id}/agreement"
    )
    assert api.status_code == 200, api.content[:300]
    values = [unit["before"]["alpha"]["value"] for unit in api.json()["groups"]]
    assert values == [pytest.approx(expected, abs=1e-9)] * 2


def test_too_few_responses_say_why(db):
    group, responses = scoring_group(n_responses=1)
    sheet_submitted(group.rater_a, responses[0], reference_changes(3), group=group)
    sheet_submitted(group.rater_b, responses[0], reference_changes(4), group=group)
    study_agreement_recompute(study_id=group.study_id)
    stored = GroupAgreement.objects.get(group=group, stage="before").alpha
    assert stored["value"] is None and stored["reason"] == "fewer than 2 units with two values"
