"""Reads of the study core that pages and commands share."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from studies.models import Scenario, Study


def scenario_codes_with_scores(*, study: Study, codes: list[str]) -> set[str]:
    """Codes of the study's scenarios that already have scores: a response of theirs
    has a score sheet with entries or a submitted one. (The sheets belong to the
    scoring app above this one, reached by the ORM's reverse relations, not imported.)"""
    scored = Q(responses__assignments__sheet__version__gt=0) | Q(
        responses__assignments__sheet__status="submitted"
    )
    return set(
        Scenario.objects.filter(study=study, code__in=codes).filter(scored).values_list("code", flat=True)
    )


def studies_overview() -> QuerySet[Study]:
    return Study.objects.annotate(
        n_scenarios=Count("scenarios", distinct=True), n_responses=Count("responses", distinct=True)
    ).order_by("name")


def study_response_count(*, study: Study) -> int:
    return study.responses.count()
