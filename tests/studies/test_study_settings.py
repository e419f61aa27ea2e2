"""A study's settings are changed on its settings page, audited; so are the agreement
settings and the training settings (issue 22)."""

from decimal import Decimal

import pytest
from django.urls import reverse

from calibration.services.agreement_settings import study_agreement_settings_update
from studies.models import AuditEvent, Study
from training.services.qualification import training_settings_update


@pytest.fixture
def admin_client(client, demo):
    client.login(username="admin", password="demo-pass-2026")
    return client


def test_an_admin_changes_the_study_settings(admin_client):
    study = Study.objects.get(name="CGPST demo")
    url = reverse("studies:study_settings", args=[study.pk])
    assert admin_client.get(url).status_code == 200
    data = {"name": "CGPST pilot", "description": "Pilot", "response_language": "en", "is_active": ""}
    assert admin_client.post(url, data).status_code == 302
    study.refresh_from_db()
    assert (study.name, study.response_language, study.is_active) == ("CGPST pilot", "en", False)
    event = AuditEvent.objects.get(action="study.settings")
    assert event.study == study and event.actor.username == "admin"
    assert event.changes["name"] == ["CGPST demo", "CGPST pilot"]
    assert event.changes["response_language"] == ["zh", "en"] and event.changes["is_active"] == [True, False]


def test_the_settings_page_refuses_a_taken_name(admin_client):
    study = Study.objects.get(name="CGPST demo")
    Study.objects.create(name="Other")
    page = admin_client.post(
        reverse("studies:study_settings", args=[study.pk]),
        {"name": "other", "response_language": "zh", "is_active": "on"},
    )
    assert "already exists" in page.content.decode()
    assert not AuditEvent.objects.exists()


def test_the_agreement_settings_are_audited(demo):
    study = Study.objects.get(name="CGPST demo")
    study_agreement_settings_update(
        study_id=study.pk,
        actor=None,
        threshold=Decimal("0.7"),
        headline_icc="ICC2k",
        final_score_rule="mean_of_three",
    )
    event = AuditEvent.objects.get(action="study.agreement_settings")
    assert event.study == study
    assert event.changes == {
        "agreement_threshold": ["0.650", "0.700"],
        "headline_icc": ["ICC3k", "ICC2k"],
        "final_score_rule": ["calibrator_and_closer", "mean_of_three"],
    }


def test_the_training_settings_are_audited(demo):
    study = Study.objects.get(name="CGPST demo")
    training_settings_update(study=study, threshold=Decimal("0.8"), required_sheets=3, actor=None)
    event = AuditEvent.objects.get(action="training.settings")
    assert event.study == study and event.changes["threshold"] == [None, "0.800"]
    assert event.changes["required_sheets"][1] == 3
