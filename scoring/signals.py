"""Signals of the rater workspace, for the apps above it (agreement and calibration)."""

from django.dispatch import Signal

# Sent inside the transaction that submitted, reopened or imported a sheet of a
# response (kwargs: ``response_id``); receivers schedule their work on commit.
response_scores_changed = Signal()

# Sent instead for a sheet of a training response (kwargs: ``rater_id``, ``study_id``):
# training sheets never reach agreement or final scores; qualification follows them.
training_scores_changed = Signal()
