"""Writes of the generation domain."""
