"""What the API lists that no page selector returns as records: the catalogue of a study."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import QuerySet

from api.models import ApiToken
from core.counters import event_counters_get
from studies.models import Condition, ModelEndpoint, ResponseItem, Scenario, Study

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def studies_visible(*, study_id: int | None) -> QuerySet[Study]:
    rows = Study.objects.order_by("name")
    return rows.filter(pk=study_id) if study_id is not None else rows


def study_scenarios(*, study: Study) -> QuerySet[Scenario]:
    return Scenario.objects.filter(study=study).order_by("code")


def study_conditions(*, study: Study) -> QuerySet[Condition]:
    return study.conditions.order_by("letter")


def study_models(*, study: Study) -> QuerySet[ModelEndpoint]:
    return study.endpoints.order_by("model_number")


def response_items(*, response_ids: list[int]) -> dict[int, list[ResponseItem]]:
    found: dict[int, list[ResponseItem]] = {pk: [] for pk in response_ids}
    for item in ResponseItem.objects.filter(response_id__in=response_ids).order_by(
        "response", "step", "position"
    ):
        found[item.response_id].append(item)
    return found


def tokens_of(*, user: User) -> QuerySet[ApiToken]:
    """The user's API tokens, newest first (the tokens page)."""
    return ApiToken.objects.filter(user=user).select_related("study")


# the names token_authenticate counts under (api.services.tokens READS, WRITES)
API_COUNTERS = {"read": "api.reads", "write": "api.writes"}


def api_requests_counted() -> dict[str, int]:
    """Token requests served so far, by kind (read, write): the metrics' ``api_requests``."""
    counted = event_counters_get()
    return {kind: counted.get(name, 0) for kind, name in API_COUNTERS.items()}
