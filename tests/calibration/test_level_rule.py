"""The second routing criterion (issue 38, beyond the study): off by default, a uniformly
harsher rater's pair (PCC high, CCC low) passes as in the study; with the rule on it goes to a
calibrator, and the settings, study and agreement pages, the command, the workbook and the API
say so and say why."""

import pytest
from django.core.management import call_command
from django.test import Client
from openpyxl import load_workbook

from api.services.tokens import token_create
from calibration.models import ResponseAgreement
from calibration.services.calibration import response_scores_recompute
from core.accounts.roles import ADMIN, RESEARCHER
from research.selectors.research import results_get
from research.workbook import results_workbook_write
from scoring.models import Assignment
from studies.models import AuditEvent, Study
from studies.rubric import load_rubric
from tests.factories import UserFactory, make_response, rater, reference_changes, sheet_submitted

pytestmark = pytest.mark.django_db


@pytest.fixture
def harsher_pair(db):
    rubric = load_rubric()
    response = make_response(research_id="A90_FS10")
    fair = reference_changes(3)
    harsher = [
        (
            path,
            max(rubric.dimension(path.removeprefix("dims.")).min, value - 1)
            if path.startswith("dims.")
            else value,
        )
        for path, value in fair
    ]
    sheet_submitted(rater("fair_rater"), response, fair)
    sheet_submitted(rater("harsh_rater"), response, harsher)
    rater("free_calibrator", can_calibrate=True)
    response_scores_recompute(response_id=response.pk)
    return response


def _settings(client, study, **values):
    data = {
        "agreement_threshold": "0.650",
        "headline_icc": study.headline_icc,
        "final_score_rule": study.final_score_rule,
        "level_ccc_below": "",
        "level_total_over": "",
        **values,
    }
    return client.post(f"/manage/studies/{study.pk}/agreement/", data)


def _calibrations(response):
    return Assignment.objects.filter(response=response, role="calibration", archived_at__isnull=True)


def test_off_by_default_the_study_routes_by_pcc_alone(harsher_pair):
    agreement = ResponseAgreement.objects.get(response=harsher_pair)
    assert agreement.pcc > 0.65 and agreement.ccc < 0.75  # the pair agrees in pattern, not in level
    assert not agreement.flagged and agreement.flag_reasons == [] and not _calibrations(harsher_pair).exists()


def test_on_the_pair_is_routed_and_every_place_says_why(harsher_pair, tmp_path, capsys):
    study = harsher_pair.study
    admin = Client()
    admin.force_login(UserFactory(username="level-admin", role=ADMIN))
    assert _settings(admin, study, level_ccc_below="0.75").status_code == 302
    study.refresh_from_db()
    agreement = ResponseAgreement.objects.get(response=harsher_pair)
    assert agreement.flagged and agreement.flag_reasons == ["ccc"]
    assert _calibrations(harsher_pair).count() == 1  # routed to the free calibrator
    (event,) = AuditEvent.objects.filter(action="study.agreement_settings")
    assert event.changes == {"level_ccc_below": [None, "0.750"]}

    researcher = UserFactory(username="level-researcher", role=RESEARCHER)
    reader = Client()
    reader.force_login(researcher)
    said = "on, beyond the study: CCC below 0.75"
    assert said in reader.get(f"/research/agreement/?study={study.pk}").content.decode()
    assert said in admin.get(f"/manage/studies/{study.pk}/").content.decode()
    scenario = reader.get(
        f"/research/agreement/{study.pk}/scenario/{harsher_pair.scenario_id}/"
    ).content.decode()
    assert 'data-flag-reason="ccc"' in scenario and "routed: CCC" in scenario

    call_command("agreement", "--study", study.name)
    line = next(x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("A90_FS10"))
    assert "FLAG(ccc)" in line.split()

    book = tmp_path / "results.xlsx"
    results_workbook_write(results_get(study=study), book)
    rows = list(load_workbook(book, read_only=True)["PCC per response"].iter_rows(values_only=True))
    assert dict(zip(rows[0], rows[1], strict=True))["Flagged"] == "yes (ccc)"
    about = [row for row in load_workbook(book, read_only=True)["About"].iter_rows(values_only=True) if row]
    assert any(row[0] == "Second routing criterion" and row[1] == "on: CCC below 0.75" for row in about)

    api = Client(
        HTTP_AUTHORIZATION=f"Bearer {token_create(user=researcher, name='t', scope='read', days=1).plain}"
    )
    entry = next(r for r in api.get(f"/api/v1/studies/{study.pk}/agreement").json()["responses"])
    assert entry["flag_reasons"] == ["ccc"] and entry["flagged"] is True
    described = next(s for s in api.get("/api/v1/studies").json() if s["id"] == study.pk)
    assert described["level_ccc_below"] == 0.75 and described["level_total_over"] is None

    # off again: as the study, the unstarted calibration is withdrawn
    assert _settings(admin, study).status_code == 302
    agreement.refresh_from_db()
    assert not agreement.flagged and not _calibrations(harsher_pair).exists()


def test_totals_apart_route_too_and_bad_bounds_change_nothing(harsher_pair):
    study = harsher_pair.study
    admin = Client()
    admin.force_login(UserFactory(username="level-admin2", role=ADMIN))
    assert _settings(admin, study, level_total_over="3").status_code == 302
    assert ResponseAgreement.objects.get(response=harsher_pair).flag_reasons == ["total"]
    for values in ({"level_ccc_below": "1.5"}, {"level_ccc_below": "0"}, {"level_total_over": "-2"}):
        refused = _settings(admin, study, **values)
        assert refused.status_code == 200, values  # the form again, with the reason
    study.refresh_from_db()
    assert study.level_ccc_below is None and str(study.level_total_over) == "3.00"
    assert Study.objects.get(pk=study.pk).level_total_over == study.level_total_over
