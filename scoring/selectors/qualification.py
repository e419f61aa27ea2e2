"""Who may score a study's live responses: with a training set, only raters who
qualified on it (or whom an admin let through); without one, every rater."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth import get_user_model

from core.accounts.roles import RATER
from scoring.models import Assignment, AssignmentRole, RaterQualification, TrainingResponse
from studies.models import Study


def study_has_training_set(*, study: Study) -> bool:
    return TrainingResponse.objects.filter(study=study, archived_at__isnull=True).exists()


def raters_not_qualified(*, study: Study, raters: Iterable) -> list:
    """The raters among ``raters`` that the study's assignment pages must not offer."""
    raters = list(raters)
    if not raters or not study_has_training_set(study=study):
        return []
    cleared = {
        q.rater_id
        for q in RaterQualification.objects.filter(study=study, rater__in=raters)
        if q.may_score_live
    }
    return [u for u in raters if u.pk not in cleared]


def unqualified_by_study() -> list[tuple[Study, list[str]]]:
    """For the assignment pages: per active study with a training set, the raters it will
    not give live work to yet (usernames)."""
    raters = list(
        get_user_model().objects.filter(groups__name=RATER, is_active=True).order_by("username").distinct()
    )
    studies = Study.objects.filter(is_active=True, training_responses__archived_at__isnull=True).distinct()
    out = []
    for study in studies.order_by("name"):
        if names := [u.get_username() for u in raters_not_qualified(study=study, raters=raters)]:
            out.append((study, names))
    return out


def raters_trained_on(*, response_ids: Iterable[int]) -> dict[int, set[int]]:
    """Per live response, the raters who had a training copy of it (archived or not: they
    have seen its reference), who must never score the original."""
    out: dict[int, set[int]] = {}
    rows = Assignment.objects.filter(
        role=AssignmentRole.TRAINING, response__training__source_id__in=list(response_ids)
    ).values_list("response__training__source_id", "rater_id")
    for source_id, rater_id in rows:
        out.setdefault(source_id, set()).add(rater_id)
    return out


def raters_blocked(*, raters: Iterable, study: Study | None) -> dict[int, list[str]]:
    """For the rater dropdowns: per rater id, the names of the studies (``study``, or every
    active study with a training set) that give them no live work until they qualify."""
    raters = list(raters)
    studies = (
        [study]
        if study is not None
        else Study.objects.filter(is_active=True, training_responses__archived_at__isnull=True)
        .distinct()
        .order_by("name")
    )
    out: dict[int, list[str]] = {}
    for one in studies:
        for user in raters_not_qualified(study=one, raters=raters):
            out.setdefault(user.pk, []).append(one.name)
    return out


def training_open_to(*, rater, study: Study):
    """The study's active training responses the rater may train on: not the copy of a
    response they score (or scored) live, whose reference would show them their
    partner's work and the answer to their own sheet."""
    live = Assignment.objects.filter(rater=rater).exclude(role=AssignmentRole.TRAINING).values("response_id")
    return TrainingResponse.objects.filter(study=study, archived_at__isnull=True).exclude(source_id__in=live)
