"""Signals of the core app, so that apps above it react without the core importing them."""

from django.dispatch import Signal

# Sent inside the transaction that created a response (kwargs: ``response``).
response_created = Signal()
# Sent inside the transaction that changed a stored response's answer texts (kwargs:
# ``response``, ``steps``: the numbers of the steps whose text changed).
response_answers_changed = Signal()
# Sent inside the transaction that released held responses to raters, once for all those one
# action released (kwargs: ``responses``, ``actor``).
responses_released = Signal()
