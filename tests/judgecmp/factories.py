"""Judges and judge sheets for the comparison tests: a Judge with its own inactive user
(and rater code) whose sheets are stored as a score import stores them."""

from __future__ import annotations

from scoring.models import Assignment, AssignmentRole, RaterProfile
from scoring.services.sheets import sheet_fill_and_submit
from tests.factories import ModelEndpointFactory, UserFactory


def judge_make(name: str = "judge-1", *, endpoint=None, provider_family: str = ""):
    from judging.models import Judge

    user = UserFactory(username=f"judge-{name}")
    user.is_active = False
    user.save(update_fields=["is_active"])
    RaterProfile.objects.update_or_create(user=user, defaults={"rater_code": f"J-{name}"[:16]})
    return Judge.objects.create(
        name=name,
        endpoint=endpoint or ModelEndpointFactory(),
        user=user,
        prompt_version="test-1",
        provider_family=provider_family,
    )


def judge_sheet(judge, response, changes):
    """A submitted judge sheet on the response (changes as score imports build them)."""
    assignment = Assignment.all_objects.create(role=AssignmentRole.JUDGE, rater=judge.user, response=response)
    return sheet_fill_and_submit(
        assignment=assignment,
        actor=judge.user,
        changes=changes,
        source="import",
        note="judge test sheet",
        require_texts=False,
    )
