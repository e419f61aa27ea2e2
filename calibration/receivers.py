"""Agreement and calibration follow the rater workspace's signals."""

from __future__ import annotations

from django.dispatch import receiver

from calibration.tasks import response_scores_changed as recompute_task
from core.tasks.outbox import task_send_on_commit
from scoring.models import ScoreSheet
from scoring.signals import response_scores_changed


@receiver(response_scores_changed, sender=ScoreSheet, dispatch_uid="calibration.recompute")
def _recompute_after_commit(sender, *, response_id: int, **kwargs) -> None:
    """Recorded in the outbox with the sheet's own transaction, sent after its commit:
    a broker that is away delays the recompute, never loses it nor fails the submit."""
    task_send_on_commit(name=recompute_task.name, args=(response_id,))
