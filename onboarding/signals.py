"""Signals of the onboarding app, so that apps above it react without onboarding importing them."""

from django.dispatch import Signal

# Sent inside the transaction that deactivated an account (kwargs: ``user``, ``actor``): whatever
# lets the account in besides its password (set-password links here, API tokens above) ends.
account_deactivated = Signal()
