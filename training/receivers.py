"""Qualification follows the rater's training sheets (submitted or reopened)."""

from __future__ import annotations

from django.dispatch import receiver

from scoring.models import ScoreSheet
from scoring.signals import training_scores_changed
from training.services.qualification import qualification_recompute


@receiver(training_scores_changed, sender=ScoreSheet, dispatch_uid="training.qualification")
def _requalify(sender, *, rater_id: int, study_id: int, **kwargs) -> None:
    # a few sheets at most: computed in the submitting transaction, so the feedback
    # page that follows already shows the new state
    qualification_recompute(rater_id=rater_id, study_id=study_id)
