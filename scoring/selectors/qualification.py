"""Who may score a study's live responses: with a training set, only raters who
qualified on it (or whom an admin let through); without one, every rater."""

from __future__ import annotations

from collections.abc import Iterable

from scoring.models import RaterQualification, TrainingResponse
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
