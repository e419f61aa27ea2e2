"""The study's opt-in: one LLM judge calibrates the responses under the threshold that have
no submitted human calibration sheet; final scores record it and every table says so."""

import pytest
from django.core.management import call_command
from openpyxl import load_workbook

from calibration.models import FinalScore
from calibration.selectors.consistency import consistency_table
from core.accounts.roles import RESEARCHER
from judging.services.opt_in import study_judge_opt_in_set
from research.selectors.research import results_get
from research.workbook import results_workbook_write
from scoring.models import Assignment, AssignmentRole
from studies.models import FinalScoreRule, ResponseStatus
from tests.factories import UserFactory, rater, reference_changes, sheet_submitted
from tests.judgecmp.conftest import humans_scored, judge_agreeing
from tests.judgecmp.factories import judge_make, judge_qualified

pytestmark = pytest.mark.django_db
LABEL = "Includes an LLM judge as third rater for 1 response."


@pytest.fixture
def opted_in(db, settings):
    calibrator = rater("cal-opt", "H91", can_calibrate=True)
    group, human = humans_scored()
    judge = judge_make("j-opt", endpoint=human[0][0].model)
    sheets = judge_agreeing(judge, human)
    assert judge_qualified(judge, group.study, settings).passed
    report = study_judge_opt_in_set(study=group.study, judge=judge)
    return group, judge, sheets, calibrator, report


def test_judge_calibrates_the_flagged_response(opted_in):
    group, judge, sheets, calibrator, report = opted_in
    response, a, b, j = sheets[3]  # the disagreeing pair
    assert (report.flagged, report.calibrated, report.routed) == (1, 1, [])  # no human routed
    final = FinalScore.objects.get(response=response)
    assert final.judge_calibrated and final.calibrated
    assert final.rule == FinalScoreRule.CALIBRATOR_AND_CLOSER
    # the link rows (final.sheets reads through the humans-only default manager)
    sheet_ids = set(
        FinalScore.sheets.through.objects.filter(finalscore=final).values_list("scoresheet_id", flat=True)
    )
    assert j.pk in sheet_ids and len(sheet_ids) == 2 and sheet_ids & {a.pk, b.pk}
    assert "LLM judge as third rater" in final.note
    response.refresh_from_db()
    assert response.status == ResponseStatus.FINAL
    # the other responses keep their human pair
    for other, oa, ob, _ in sheets[:3]:
        other_final = FinalScore.objects.get(response=other)
        assert not other_final.judge_calibrated
        assert set(other_final.sheets.values_list("pk", flat=True)) == {oa.pk, ob.pk}


def test_tables_are_labelled(opted_in, client, tmp_path):
    group, judge, sheets, calibrator, report = opted_in
    table6 = consistency_table(study=group.study)
    assert table6["judge_label"] == LABEL and table6["calibrated"] == 1
    client.force_login(UserFactory(username="res-opt", role=RESEARCHER))
    assert LABEL in client.get("/research/", {"study": group.study.pk}).content.decode()
    path = tmp_path / "r.xlsx"
    results_workbook_write(results_get(study=group.study), path)
    wb = load_workbook(path)
    for name in ("About", "Table 1 (A)", "Table 2 (A)", "Consistency (Table 6)"):
        assert [LABEL] in [[c.value for c in row if c.value is not None] for row in wb[name].iter_rows()], (
            name
        )
    assert not any(LABEL in str(c.value) for row in wb["Generation cost"].iter_rows() for c in row)


def test_human_calibration_takes_the_judges_place_and_off_undoes(opted_in):
    group, judge, sheets, calibrator, report = opted_in
    response = sheets[3][0]
    cal_sheet = sheet_submitted(calibrator, response, reference_changes(3), role=AssignmentRole.CALIBRATION)
    study_judge_opt_in_set(study=group.study, judge=judge)  # recompute
    final = FinalScore.objects.get(response=response)
    assert not final.judge_calibrated and cal_sheet.pk in set(final.sheets.values_list("pk", flat=True))

    Assignment.objects.filter(pk=cal_sheet.assignment_id).update(archived_at=cal_sheet.submitted_at)
    off = study_judge_opt_in_set(study=group.study, judge=None)
    assert off.calibrated == 0 and len(off.routed) == 1  # back to a human calibrator
    assert not FinalScore.objects.filter(response=response).exists()
    group.study.refresh_from_db()
    assert group.study.calibrating_judge is None
    assert consistency_table(study=group.study)["judge_label"] == ""


def test_command(opted_in, capsys):
    group, judge, *_ = opted_in
    call_command("judge_opt_in", "--study", group.study.name, "--off")
    assert "no judge counts" in capsys.readouterr().out
    call_command("judge_opt_in", "--study", group.study.name, "--judge", judge.name)
    assert "judge j-opt counts as third rater; 1 responses under the threshold, 1 calibrated" in (
        capsys.readouterr().out
    )


def test_admin_opts_in_on_the_page_researchers_cannot(db, client, settings):
    from core.accounts.roles import ADMIN

    group, human = humans_scored()
    judge = judge_make("j-page", endpoint=human[0][0].model)
    judge_agreeing(judge, human)
    judge_qualified(judge, group.study, settings)
    client.force_login(UserFactory(username="res-page", role=RESEARCHER))
    page = client.get("/research/judge/", {"study": group.study.pk}).content.decode()
    assert "No (the default)" in page and "count as third rater</button>" not in page
    denied = client.post("/research/judge/opt-in", {"study": group.study.pk, "judge": judge.pk})
    assert denied.status_code == 403

    client.force_login(UserFactory(username="admin-page", role=ADMIN))
    bad = client.post("/research/judge/opt-in", {"study": group.study.pk, "judge": "nope"}, follow=True)
    assert "Choose a judge." in bad.content.decode()
    group.study.refresh_from_db()
    assert group.study.calibrating_judge is None
    assert client.post("/research/judge/opt-in", {"study": "x"}).status_code == 404
    done = client.post("/research/judge/opt-in", {"study": group.study.pk, "judge": judge.pk}, follow=True)
    html = done.content.decode()
    assert "j-page now counts as third rater: 1 responses" in html and "Yes: j-page is the third" in html
    assert FinalScore.objects.filter(response__study=group.study, judge_calibrated=True).count() == 1
    client.post("/research/judge/opt-in", {"study": group.study.pk, "off": "1"})
    assert not FinalScore.objects.filter(response__study=group.study, judge_calibrated=True).exists()
    # both changes audited, who and what (issue 36, pass 5, B3); the refused ones wrote nothing
    from studies.models import AuditEvent

    events = list(AuditEvent.objects.filter(action="study.judge_opt_in").order_by("pk"))
    assert [e.changes["calibrating_judge"] for e in events] == [[None, judge.user_id], [judge.user_id, None]]
    assert {e.actor.username for e in events} == {"admin-page"} and events[0].study == group.study


def test_scenario_page_says_the_judge_calibrated(opted_in, client):
    group, judge, sheets, calibrator, report = opted_in
    client.force_login(UserFactory(username="res-scn", role=RESEARCHER))
    html = client.get(f"/research/agreement/{group.study.pk}/scenario/{group.scenario.pk}/").content.decode()
    assert html.count("calibrated by the LLM judge (study opt-in)") == 1
    assert "flagged, no calibrator" not in html
