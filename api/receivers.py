"""The API reacting to the onboarding app's signals."""

from __future__ import annotations

from django.dispatch import receiver

from api.services.tokens import tokens_revoke_for_deactivation
from onboarding.signals import account_deactivated


@receiver(account_deactivated, dispatch_uid="api.tokens_revoke_for_deactivation")
def _revoke_tokens(sender, *, user, actor, **kwargs) -> None:
    tokens_revoke_for_deactivation(user=user, actor=actor)
