"""The flagged responses as admins list them: by study, scenario and what became of the flag,
a page at a time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator

from scoring.models import FlagResolution, ResponseFlag
from studies.models import Study

FLAGS_PER_PAGE = 50
OPEN, DISMISSED, WITHDRAWN, ALL = "open", "dismissed", "withdrawn", "all"
_RESOLUTIONS = {
    OPEN: FlagResolution.OPEN,
    DISMISSED: FlagResolution.DISMISSED,
    WITHDRAWN: FlagResolution.WITHDRAWN,
}


@dataclass(frozen=True)
class FlagFilters:
    """Which flags the list shows: on a response of ``study``, of a scenario whose code contains
    ``scenario``, open, dismissed, withdrawn or all (``status``). Unset study or scenario: any."""

    study: Study | None = None
    scenario: str = ""
    status: str = OPEN


def flags_list(*, filters: FlagFilters, page: str | None = None) -> Page[Any]:
    """One page of the flags ``filters`` choose, the newest first (an unknown status: every flag)."""
    flags = ResponseFlag.objects.select_related(
        "response__scenario", "response__study", "rater", "resolved_by"
    )
    if filters.study is not None:
        flags = flags.filter(response__study=filters.study)
    if filters.scenario:
        flags = flags.filter(response__scenario__code__icontains=filters.scenario)
    if filters.status in _RESOLUTIONS:
        flags = flags.filter(resolution=_RESOLUTIONS[filters.status])
    return Paginator(flags.order_by("-created_at", "-id"), FLAGS_PER_PAGE).get_page(page)
