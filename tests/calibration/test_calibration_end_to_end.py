"""End to end with a real Celery worker: disagreement -> flag -> calibrator's queue -> calibrated final score."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from calibration.models import FinalScore, ResponseAgreement
from calibration.selectors.agreement import consistency_table
from core.accounts.roles import DEMO_GROUP
from scoring.models import Assignment, ScoringGroup
from scoring.selectors import rater_queue
from studies.models import Response
from studies.rubric import load_rubric
from tests.factories import (
    SHEET_TEXTS,
    code_for,
    mirrored_changes,
    own_sheet_id,
    reference_changes,
    sheet_submitted,
)
from tests.workers import wait_for

pytestmark = pytest.mark.worker


def test_disagreement_is_calibrated_through_the_worker(celery_worker, demo, client):
    users = {u.username: u for u in get_user_model().objects.all()}
    # the session's worker may run outside demo mode, where routing never picks a demo
    # account (it cannot log in there): the calibrator here is a lab's own account
    users["calibrator"].groups.remove(Group.objects.get(name=DEMO_GROUP))
    response = Response.objects.get(research_id="A05_FS10")
    # seed_demo assigned A05_FS10 to the pair rater1 + rater2
    group = ScoringGroup.objects.get(
        study=response.study, scenario=response.scenario, condition=response.condition
    )
    assert {group.rater_a.username, group.rater_b.username} == {"rater1", "rater2"}
    mine = {a.rater.username: a for a in Assignment.objects.filter(response=response, group=group)}
    a = sheet_submitted(users["rater1"], response, reference_changes(3), assignment=mine["rater1"])
    sheet_submitted(
        users["rater2"],
        response,
        mirrored_changes(reference_changes(3), load_rubric()),
        assignment=mine["rater2"],
    )

    log = celery_worker.log_path
    calibration = wait_for(
        lambda: Assignment.objects.filter(
            response=response, role="calibration", archived_at__isnull=True
        ).first()
    )
    assert calibration is not None, log.read_text()[-3000:]
    agreement = ResponseAgreement.objects.get(response=response)
    assert agreement.flagged and agreement.pcc < 0.65
    assert calibration.rater == users["calibrator"]
    assert not FinalScore.objects.filter(response=response).exists()
    before = consistency_table(study=response.study)
    assert before["pending"] == 1 and before["rows"][0]["before"] == pytest.approx(agreement.pcc)

    queue = rater_queue(user=users["calibrator"])
    assert [(q["blind_code"], q["role"]) for q in queue] == [(calibration.blind_code, "calibration")]
    # the calibrator's code is its own: neither rater's code of this response
    assert calibration.blind_code not in {code_for("rater1", response), code_for("rater2", response)}
    client.login(username="calibrator", password="demo-pass-2026")
    page = client.get("/scoring/").content.decode()
    assert code_for("calibrator", response) in page and "A05_FS10" not in page

    # the calibrator scores blind in the same web form (save and submit endpoints)
    assert client.get(f"/scoring/{code_for('calibrator', response)}/").status_code == 200
    saved = client.post(
        f"/scoring/{code_for('calibrator', response)}/save/",
        {
            "sheet": own_sheet_id(client, code_for("calibrator", response)),
            "batch_id": "cal-1",
            "expected_version": 0,
            "changes": [[p, v] for p, v in [*reference_changes(4), *SHEET_TEXTS]],
        },
        content_type="application/json",
    )
    assert saved.status_code == 200, saved.content
    submitted = client.post(
        f"/scoring/{code_for('calibrator', response)}/submit/",
        {
            "sheet": own_sheet_id(client, code_for("calibrator", response)),
            "expected_version": saved.json()["version"],
        },
        content_type="application/json",
    )
    assert submitted.status_code == 200, submitted.content
    sheet = Assignment.objects.get(pk=calibration.pk).sheet

    final = wait_for(lambda: FinalScore.objects.filter(response=response, calibrated=True).first())
    assert final is not None, log.read_text()[-3000:]
    assert final.rule == "calibrator_and_closer"
    assert set(final.sheets.values_list("pk", flat=True)) == {sheet.pk, a.pk}
    assert str(final.overall) == "116.50"  # calibrator (H02's scores, 117) with rater A (116)
    after = consistency_table(study=response.study)
    assert after["calibrated"] == 1 and after["complete"]
    assert round(after["rows"][0]["after"], 3) == 0.863
    response.refresh_from_db()
    assert response.status == "final"
    assert client.get(f"/calibration/{code_for('calibrator', response)}/").status_code == 200
