"""Signals of the generation app, so that apps above it react without generation importing them."""

from django.dispatch import Signal

# Sent inside the transaction that changed an endpoint's model name (kwargs: ``endpoint_id``,
# ``actor``): what was measured with the old model (a judge's gate) may no longer hold.
endpoint_model_changed = Signal()
