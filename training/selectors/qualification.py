"""Training's live-work gate: with a training set, only raters who qualified on it (or whom
an admin let through) get a study's live responses; nobody scores a response whose training
copy they had. Set as scoring's gate in ``TrainingConfig.ready``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from django.db.models import Exists, OuterRef, QuerySet

from scoring.models import Assignment, AssignmentRole
from studies.models import Study
from training.models import RaterQualification, TrainingResponse

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def study_has_training_set(*, study: Study) -> bool:
    return TrainingResponse.objects.filter(study=study, archived_at__isnull=True).exists()


def studies_with_training_set() -> QuerySet[Study]:
    """The active studies with at least one training response not archived (an EXISTS:
    a join on ``archived_at__isnull`` would also match a study with no training response)."""
    active = TrainingResponse.objects.filter(study=OuterRef("pk"), archived_at__isnull=True)
    return Study.objects.filter(Exists(active), is_active=True).order_by("name")


def training_open_to(*, rater: User, study: Study) -> QuerySet[TrainingResponse]:
    """The study's active training responses the rater may train on: not the copy of a
    response they score (or scored) live, whose reference would show them their
    partner's work and the answer to their own sheet."""
    live = Assignment.objects.filter(rater=rater).exclude(role=AssignmentRole.TRAINING).values("response_id")
    return TrainingResponse.objects.filter(study=study, archived_at__isnull=True).exclude(source_id__in=live)


class TrainingGate:
    def studies_gated(self) -> Sequence[Study]:
        return list(studies_with_training_set())

    def raters_not_qualified(self, *, study: Study, raters: Iterable[Any]) -> list[Any]:
        raters = list(raters)
        if not raters or not study_has_training_set(study=study):
            return []
        cleared = {
            q.rater_id
            for q in RaterQualification.objects.filter(study=study, rater__in=raters)
            if q.may_score_live
        }
        return [u for u in raters if u.pk not in cleared]

    def raters_trained_on(self, *, response_ids: Iterable[int]) -> dict[int, set[int]]:
        out: dict[int, set[int]] = {}
        rows = Assignment.objects.filter(
            role=AssignmentRole.TRAINING, response__training__source_id__in=list(response_ids)
        ).values_list("response__training__source_id", "rater_id")
        for source_id, rater_id in rows:
            out.setdefault(source_id, set()).add(rater_id)
        return out
