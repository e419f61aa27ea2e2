"""The rater workspace reacting to the core app's signals."""

from __future__ import annotations

from django.dispatch import receiver

from scoring.services.arrival import response_assign_to_group, responses_assign_to_groups
from studies.models import Response
from studies.signals import response_created, responses_released


@receiver(response_created, sender=Response, dispatch_uid="scoring.response_assign_to_group")
def _assign_new_response(sender, *, response: Response, **kwargs) -> None:
    response_assign_to_group(response=response)


@receiver(responses_released, sender=Response, dispatch_uid="scoring.response_assign_released")
def _assign_released_responses(sender, *, responses: list[Response], actor=None, **kwargs) -> None:
    """Released responses are assigned exactly as arriving ones are, all in one pass."""
    responses_assign_to_groups(responses=responses, actor=actor)
