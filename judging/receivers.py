"""What the judging app wires up when Django is ready: its kind of job (the judge
task) registered with the LLM batch engine (generation's), in every process."""

from judging.services import runs  # noqa: F401  (registers the judge kind)
