"""Qualification follows the rater's training sheets (submitted or reopened); rubric versions
made by a study's admin are read from the database; scoring gives live work only to raters
training lets through (its live-work gate)."""

from __future__ import annotations

from django.dispatch import receiver

from scoring.gates import live_work_gate_set
from scoring.models import ScoreSheet
from scoring.signals import training_scores_changed
from studies.rubric.loader import rubric_source_register
from training.selectors.qualification import TrainingGate
from training.selectors.rubric import rubric_revision_data
from training.services.qualification import qualification_recompute

# a study's edited rubric versions live in the database
rubric_source_register(rubric_revision_data)
# who may get a study's live work: those qualified on its training set
live_work_gate_set(TrainingGate())


@receiver(training_scores_changed, sender=ScoreSheet, dispatch_uid="training.qualification")
def _requalify(sender, *, rater_id: int, study_id: int, **kwargs) -> None:
    # a few sheets at most: computed in the submitting transaction, so the feedback
    # page that follows already shows the new state
    qualification_recompute(rater_id=rater_id, study_id=study_id)
