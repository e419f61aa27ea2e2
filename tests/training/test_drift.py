"""Rater drift: rolling PCC with the partner, signed differences, time per sheet, calibrations."""

import datetime as dt

import pytest
from django.utils import timezone

from calibration.models import ResponseAgreement
from scoring.models import ScoreSheet
from tests.factories import reference_changes, sheet_submitted, varied_changes
from training.drift import Submission, rater_drift, rolling_mean

KEYS = ("s2.focus", "s2.adequacy")


def _sub(pcc, own, partner=None, final=None, seconds=None, calibrated=False):
    return Submission(pcc=pcc, own=own, partner=partner, final=final, seconds=seconds, calibrated=calibrated)


def test_rolling_mean_waits_for_a_full_window_and_skips_undefined_values():
    assert rolling_mean([0.9, None, 0.7, 0.5, 0.1], 3) == [
        None,
        None,
        None,
        pytest.approx(0.7),
        pytest.approx(1.3 / 3),
    ]
    assert rolling_mean([], 3) == []


def test_a_rater_whose_latest_rolling_pcc_falls_under_the_threshold_is_flagged():
    subs = [_sub(p, {"s2.focus": 5, "s2.adequacy": 5}) for p in (0.9, 0.85, 0.8, 0.4, 0.3, 0.2)]
    drift = rater_drift(subs, keys=KEYS, threshold=0.65, window=3)
    assert drift.flagged and drift.latest_rolling == pytest.approx(0.3)
    assert drift.rolling[2] == pytest.approx(0.85)  # was fine at the start
    steady = rater_drift(subs[:3], keys=KEYS, threshold=0.65, window=3)
    assert not steady.flagged
    too_few = rater_drift(subs[-2:], keys=KEYS, threshold=0.65, window=3)
    assert not too_few.flagged and too_few.latest_rolling is None  # not judged on two sheets


def test_signed_differences_time_and_calibration_share():
    subs = [
        _sub(0.8, {"s2.focus": 7, "s2.adequacy": 4}, {"s2.focus": 5, "s2.adequacy": 4}, {"s2.focus": 6, "s2.adequacy": 4.5}, 600, True),
        _sub(0.7, {"s2.focus": 8, "s2.adequacy": 3}, {"s2.focus": 4, "s2.adequacy": 5}, None, 1200, False),
        _sub(None, {"s2.focus": 6, "s2.adequacy": 6}, None, None, None, False),
    ]  # fmt: skip
    drift = rater_drift(subs, keys=KEYS, threshold=0.65, window=5)
    assert drift.vs_partner == {"s2.focus": 3.0, "s2.adequacy": -1.0}  # harsher on Adequacy
    assert drift.vs_final == {"s2.focus": 1.0, "s2.adequacy": -0.5}
    assert drift.median_seconds == 900 and drift.calibrated_share == pytest.approx(1 / 3)
    assert drift.mean_pcc == pytest.approx(0.75) and drift.n == 3


@pytest.mark.django_db
def test_the_drift_page_shows_each_rater_against_their_partner(scored_demo, client, django_user_model):
    """A05_FS10 (H01 vs H02, PCC 0.863) plus a second response where H01 is far off."""
    from studies.rubric import load_rubric
    from tests.factories import make_response, mirrored_changes

    study = scored_demo.study
    users = {u.username: u for u in django_user_model.objects.filter(username__in=["rater1", "rater2"])}
    second = make_response(study=study, research_id="B05_FS10")
    sheet_submitted(users["rater1"], second, mirrored_changes(reference_changes(3), load_rubric()))
    sheet_submitted(users["rater2"], second, varied_changes(reference_changes(4), 1))
    later = timezone.now() + dt.timedelta(hours=1)
    ScoreSheet.objects.filter(assignment__response=second).update(
        created_at=later, submitted_at=later + dt.timedelta(minutes=30)
    )  # submitted after the imported A05_FS10 sheets
    ResponseAgreement.objects.update_or_create(response=second, defaults={"pcc": -0.5, "flagged": True})
    researcher = django_user_model.objects.get(username="researcher")
    client.force_login(researcher)
    page = client.get(f"/research/drift/?study={study.pk}&window=2")
    assert page.status_code == 200
    rows = {r["code"]: r for r in page.context["raters"]}
    h01 = rows["H01"]["drift"]
    assert h01.n == 2 and h01.pccs[0] == pytest.approx(0.863, abs=5e-4) and h01.pccs[1] == -0.5
    assert h01.flagged and h01.latest_rolling == pytest.approx((0.8627 - 0.5) / 2, abs=5e-4)
    assert h01.calibrated_share == 0.5 and h01.median_seconds == 1800
    a05 = ScoreSheet.objects.filter(assignment__response__research_id="A05_FS10")
    by = {s.assignment.rater.username: s.totals["dimensions"] for s in a05}
    first_gap = by["rater1"]["s6.humaneness"] - by["rater2"]["s6.humaneness"]
    assert h01.vs_partner["s6.humaneness"] == pytest.approx((first_gap + _second_gap(second)) / 2)
    assert rows["H02"]["drift"].vs_partner["s6.humaneness"] == pytest.approx(-h01.vs_partner["s6.humaneness"])
    assert "Drifting" in page.content.decode()
    client.force_login(users["rater1"])
    assert client.get("/research/drift/").status_code == 403


def _second_gap(response):
    sheets = {
        s.assignment.rater.username: s.totals["dimensions"]
        for s in ScoreSheet.objects.filter(assignment__response=response)
    }
    return sheets["rater1"]["s6.humaneness"] - sheets["rater2"]["s6.humaneness"]
