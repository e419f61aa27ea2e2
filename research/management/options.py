"""Options the research commands share."""

from __future__ import annotations

from django.core.management.base import CommandError

from research.selectors.results import study_resolve
from studies.models import Study


def study_option(name: str | None) -> Study:
    """The study named or numbered ``--study``, or the only one: a CommandError that lists
    the studies when there is no such study."""
    try:
        return study_resolve(name)
    except Study.DoesNotExist as exc:
        raise CommandError(str(exc)) from exc
