"""The catalogue's terms from apps above studies: an app above (generation: the roles its
strategies give, the study's member profiles) registers a source when it is ready;
``studies.selectors.study_blind_terms`` calls it without importing the app."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from studies.blind_text import BlindTerm

TermSource = Callable[[Any], Iterable[BlindTerm]]
_sources: list[TermSource] = []


def blind_term_source_register(source: TermSource) -> TermSource:
    """Register ``source(study) -> terms`` (once per function, whatever the callers)."""
    if source not in _sources:
        _sources.append(source)
    return source


def blind_term_sources() -> tuple[TermSource, ...]:
    return tuple(_sources)
