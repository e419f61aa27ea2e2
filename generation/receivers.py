"""What the generation app wires up when Django is ready: its kind of job (the
generation run) registered with the LLM batch engine, in every process."""

from generation.services import runs  # noqa: F401  (registers the generation kind)
