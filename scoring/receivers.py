"""The rater workspace reacting to the core app's signals."""

from __future__ import annotations

from django.dispatch import receiver

from scoring.services.assignments import response_assign_to_group
from studies.models import Response
from studies.signals import response_created, response_released


@receiver(response_created, sender=Response, dispatch_uid="scoring.response_assign_to_group")
def _assign_new_response(sender, *, response: Response, **kwargs) -> None:
    response_assign_to_group(response=response)


@receiver(response_released, sender=Response, dispatch_uid="scoring.response_assign_released")
def _assign_released_response(sender, *, response: Response, actor=None, **kwargs) -> int:
    """A released response is assigned exactly as an arriving one is."""
    return response_assign_to_group(response=response, actor=actor)
