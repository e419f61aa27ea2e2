"""Correcting and reopening a submitted sheet through the product (issue 22, finding 3):
a service with a reason, a new version, audit events, the sheet kept submitted (correct)
and a recompute of agreement and final scores; the admin's form on /manage/sheets/<id>/."""

from decimal import Decimal
from html import escape

import pytest

from calibration.models import FinalScore, ResponseAgreement
from calibration.services.calibration import response_scores_recompute
from calibration.tasks import response_scores_changed as recompute_task
from core.accounts.roles import ADMIN
from core.models import TaskOutbox
from scoring.models import ScoreSheet, SheetEvent
from scoring.services.sheets import InvalidEntries, SheetError, SheetIncomplete, sheet_correct, sheet_reopen
from tests.factories import UserFactory, rater, reference_changes, scoring_group, sheet_submitted

pytestmark = pytest.mark.django_db

PATH = "dims.s2.focus"
REASON = "The rater's paper form says 2 for Step 2 focus; typed as 6"


def _recomputes_queued(response) -> int:
    return TaskOutbox.objects.filter(task_name=recompute_task.name, args=[response.pk]).count()


@pytest.fixture
def pair():
    group, (response,) = scoring_group(n_responses=1)
    a = sheet_submitted(group.rater_a, response, reference_changes(3), group=group)
    b = sheet_submitted(group.rater_b, response, reference_changes(4), group=group)
    response_scores_recompute(response_id=response.pk)
    return response, a, b


@pytest.fixture
def admin():
    return UserFactory(username="lab-admin", role=ADMIN)


def _other_value(current: int) -> int:
    return 1 if current != 1 else 6


def test_a_corrected_score_changes_the_overall_the_pcc_and_the_final_score(pair, admin):
    response, a, _b = pair
    current = dict(reference_changes(3))[PATH]
    new = _other_value(current)
    pcc_before = ResponseAgreement.objects.get(response=response).pcc
    final_before = FinalScore.objects.get(response=response).overall
    queued = _recomputes_queued(response)

    result = sheet_correct(sheet_id=a.pk, actor=admin, changes=[(PATH, str(new))], reason=REASON)

    sheet = ScoreSheet.objects.get(pk=a.pk)
    assert sheet.is_submitted and sheet.submitted_at == a.submitted_at  # still submitted
    assert sheet.version == a.version + 1 == result.version
    assert sheet.overall == result.totals.overall != a.overall
    (event,) = SheetEvent.objects.filter(sheet=sheet, kind="correct")
    assert event.changes == [{"path": PATH, "old": current, "new": new}]
    assert event.note == REASON and event.actor == admin and event.version == sheet.version
    # the same recompute as a submit or a reopen is queued with the correction ...
    assert _recomputes_queued(response) == queued + 1
    # ... and, run as the worker runs it, moves the PCC and the final score
    response_scores_recompute(response_id=response.pk)
    assert ResponseAgreement.objects.get(response=response).pcc != pcc_before
    final = FinalScore.objects.get(response=response)
    assert final.overall != final_before
    assert final.overall == (Decimal(sheet.overall) + Decimal(_b.overall)) / 2


def test_a_correction_is_refused_without_a_reason_by_a_non_admin_on_a_draft_or_with_a_bad_value(pair, admin):
    response, a, _b = pair
    current = dict(reference_changes(3))[PATH]
    new = str(_other_value(current))
    queued = _recomputes_queued(response)
    refusals = [
        (SheetError, {"actor": admin, "changes": [(PATH, new)], "reason": "  "}),
        (SheetError, {"actor": a.assignment.rater, "changes": [(PATH, new)], "reason": REASON}),
        (SheetError, {"actor": admin, "changes": [], "reason": REASON}),
        (SheetError, {"actor": admin, "changes": [(PATH, str(current))], "reason": REASON}),  # no change
        (InvalidEntries, {"actor": admin, "changes": [(PATH, "99")], "reason": REASON}),  # out of range
        (InvalidEntries, {"actor": admin, "changes": [("dims.overall", 3)], "reason": REASON}),
        # a submitted sheet stays complete: emptying a score is refused and rolled back
        (SheetIncomplete, {"actor": admin, "changes": [(PATH, "")], "reason": REASON}),
    ]
    for error, kwargs in refusals:
        with pytest.raises(error):
            sheet_correct(sheet_id=a.pk, **kwargs)
    sheet = ScoreSheet.objects.get(pk=a.pk)
    assert (sheet.version, sheet.overall, sheet.status) == (a.version, a.overall, "submitted")
    assert not SheetEvent.objects.filter(sheet=sheet, kind="correct").exists()
    assert _recomputes_queued(response) == queued
    sheet_reopen(sheet_id=a.pk, actor=admin, reason="rater fixes it")
    with pytest.raises(SheetError):  # a draft is its rater's to change
        sheet_correct(sheet_id=a.pk, actor=admin, changes=[(PATH, new)], reason=REASON)


def test_reopen_needs_a_reason_bumps_the_version_is_audited_and_recomputes(pair, admin):
    response, a, _b = pair
    queued = _recomputes_queued(response)
    with pytest.raises(SheetError):
        sheet_reopen(sheet_id=a.pk, actor=admin, reason="")
    assert _recomputes_queued(response) == queued
    sheet_reopen(sheet_id=a.pk, actor=admin, reason="rater asked to fix Step 6")
    sheet = ScoreSheet.objects.get(pk=a.pk)
    assert sheet.status == "draft" and sheet.version == a.version + 1
    event = SheetEvent.objects.get(sheet=sheet, kind="reopen")
    assert (event.note, event.actor, event.version) == ("rater asked to fix Step 6", admin, sheet.version)
    assert _recomputes_queued(response) == queued + 1
    response_scores_recompute(response_id=response.pk)
    assert ResponseAgreement.objects.get(response=response).pcc is None  # one sheet left
    assert not FinalScore.objects.filter(response=response).exists()


def test_the_sheet_page_corrects_one_entry_with_a_reason_for_admins_only(client, pair, admin):
    response, a, _b = pair
    current = dict(reference_changes(3))[PATH]
    new = _other_value(current)
    url = f"/manage/sheets/{a.pk}/"
    form = {
        "action": "correct",
        "correct-path": PATH,
        "correct-value": str(new),
        "correct-expected_version": a.version,
    }

    client.force_login(a.assignment.rater)  # the rater (not an admin) cannot
    assert client.post(url, {**form, "correct-reason": REASON}).status_code == 403
    client.force_login(rater("someone-else"))
    assert client.post(url, {**form, "correct-reason": REASON}).status_code == 403

    client.force_login(admin)
    page = client.get(url).content.decode()
    assert 'id="correct"' in page and 'name="correct-expected_version"' in page
    assert page.count('id="id_reason"') == 1 and 'id="id_correct-reason"' in page  # labels find their field
    assert (
        client.post(url, {**form, "correct-reason": ""}).status_code == 200
    )  # reason required: the form again
    stale = client.post(url, {**form, "correct-expected_version": a.version - 1, "correct-reason": REASON})
    assert stale.status_code == 200 and "changed elsewhere" in stale.content.decode()
    bad = client.post(url, {**form, "correct-value": "99", "correct-reason": REASON})
    assert bad.status_code == 200 and PATH in bad.content.decode()
    assert ScoreSheet.objects.get(pk=a.pk).version == a.version  # nothing written so far

    done = client.post(url, {**form, "correct-reason": REASON})
    assert done.status_code == 302 and done["Location"] == url
    sheet = ScoreSheet.objects.get(pk=a.pk)
    assert sheet.is_submitted and sheet.version == a.version + 1
    event = SheetEvent.objects.get(sheet=sheet, kind="correct")
    assert (event.changes[0]["new"], event.note, event.actor) == (new, REASON, admin)
    audit = client.get(url).content.decode()
    assert escape(REASON) in audit
