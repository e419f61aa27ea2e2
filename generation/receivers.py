"""What the generation app wires up when Django is ready: its kind of job (the
generation run) registered with the LLM batch engine, and the names it gives agents
registered with the review gate's blind-text check, in every process."""

from generation.selectors import study_role_terms
from generation.services import runs  # noqa: F401  (registers the generation kind)
from studies.blind_sources import blind_term_source_register

blind_term_source_register(study_role_terms)
