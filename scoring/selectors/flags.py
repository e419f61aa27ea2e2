"""The flagged responses as admins list them: by study, scenario and what became of the flag,
a page at a time."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Q

from scoring.models import FlagResolution, ResponseFlag
from studies.models import ResponsePair, ResponseStatus, Study

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
    found = Paginator(flags.order_by("-created_at", "-id"), FLAGS_PER_PAGE).get_page(page)
    shown_in = _pairs_showing([flag.response_id for flag in found.object_list])
    for flag in found.object_list:
        flag.pairs_showing = shown_in[flag.response_id]  # withdrawing the response withdraws them
    return found


def _pairs_showing(response_ids: list[int]) -> Counter[int]:
    """How many pairs of a pairwise study, not withdrawn, show each response as text A or B."""
    pairs = ResponsePair.objects.filter(Q(left_id__in=response_ids) | Q(right_id__in=response_ids)).exclude(
        response__status=ResponseStatus.WITHDRAWN
    )
    shown: Counter[int] = Counter()
    for left, right in pairs.values_list("left_id", "right_id"):
        shown.update(pk for pk in (left, right) if pk in response_ids)
    return shown
