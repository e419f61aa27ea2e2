"""Writes of the scoring domain, one module per concern."""
