"""Research output following the core app's signals."""

from __future__ import annotations

from django.dispatch import receiver

from core.tasks.outbox import task_send_on_commit
from research.diversity import DIVERSITY_STEPS
from research.services.diversity import DIVERSITY_TASK
from studies.models import Response
from studies.signals import response_answers_changed, response_created


@receiver(response_created, sender=Response, dispatch_uid="research.diversity_on_arrival")
def _diversity_on_arrival(sender, *, response: Response, **kwargs) -> None:
    """Recorded in the outbox with the response's own transaction, computed by a worker after
    its commit: the results page and workbook then read it instead of computing it."""
    task_send_on_commit(name=DIVERSITY_TASK, args=[response.pk])


@receiver(response_answers_changed, sender=Response, dispatch_uid="research.diversity_on_change")
def _diversity_on_change(sender, *, response: Response, steps: list[int], **kwargs) -> None:
    if set(steps) & set(DIVERSITY_STEPS):
        task_send_on_commit(name=DIVERSITY_TASK, args=[response.pk])
