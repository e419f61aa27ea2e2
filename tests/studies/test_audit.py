"""The audit trail of changes made through the product's services."""

import pytest
from django.db import transaction

from studies.models import AuditEvent, Study
from studies.services.audit import audit_changes, audit_record
from tests.factories import UserFactory


def test_audit_changes_lists_only_fields_that_differ():
    before = {"threshold": "0.650", "rule": "mean_of_three", "name": "S"}
    after = {"threshold": "0.700", "rule": "mean_of_three", "name": "S"}
    assert audit_changes(before=before, after=after) == {"threshold": ["0.650", "0.700"]}


@pytest.mark.django_db
def test_audit_record_names_actor_target_study_and_changes():
    actor = UserFactory(username="boss")
    study = Study.objects.create(name="Audited")
    event = audit_record(
        actor=actor, action="study.settings", target=study, study=study, changes={"x": [1, 2]}, reason="why"
    )
    event.refresh_from_db()
    assert (event.actor, event.action, event.target, event.study) == (
        actor,
        "study.settings",
        f"studies.study:{study.pk}",
        study,
    )
    assert event.changes == {"x": [1, 2]} and event.reason == "why"


@pytest.mark.django_db
def test_audit_event_rolls_back_with_the_change_it_records():
    study = Study.objects.create(name="Rolled back")
    with pytest.raises(RuntimeError), transaction.atomic():
        audit_record(actor=None, action="study.settings", target=study, study=study)
        raise RuntimeError
    assert not AuditEvent.objects.exists()
