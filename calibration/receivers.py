"""Agreement and calibration follow the rater workspace's signals."""

from __future__ import annotations

from django.dispatch import receiver

from calibration.tasks import response_scores_changed as recompute_task
from scoring.models import ScoreSheet
from scoring.signals import response_scores_changed


@receiver(response_scores_changed, sender=ScoreSheet, dispatch_uid="calibration.recompute")
def _recompute_after_commit(sender, *, response_id: int, **kwargs) -> None:
    recompute_task.delay_on_commit(response_id)
