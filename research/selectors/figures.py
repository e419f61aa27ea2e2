"""The research figures, rendered once per data version and kept in Django's cache.

A figure depends on the study's final scores, its responses, the agreement tables,
the condition names and the page's filters. ``research_data_version`` sums those up
in a few aggregate queries (row counts and the newest change of each table), so a
figure is redrawn by matplotlib only after something it shows has changed.
"""

from __future__ import annotations

import hashlib

from django.core.cache import cache
from django.db.models import Count, Max

from calibration.models import FinalScore, GroupAgreement
from research.figures import figure_build, figure_bytes
from research.selectors.research import results_get
from studies.models import Condition, Response, Study

FIGURE_CACHE_SECONDS = 7 * 24 * 3600
# figures that show Self-BLEU diversity (the slow part, computed only for them)
DIVERSITY_FIGURES = ("diversity", "diversity_flexibility")


def research_data_version(*, study: Study) -> str:
    """Changes whenever a final score, a response, an agreement row or a condition name changes."""
    parts = [
        study.pk,
        study.rubric_version,
        FinalScore.objects.filter(response__study=study).aggregate(n=Count("id"), at=Max("computed_at")),
        Response.objects.filter(study=study).aggregate(n=Count("id"), at=Max("updated_at")),
        GroupAgreement.objects.filter(study=study).aggregate(n=Count("id"), at=Max("computed_at")),
        sorted(Condition.objects.values_list("letter", "name")),
    ]
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]


def figure_get(*, name: str, fmt_name: str, chosen: dict) -> bytes:
    """The figure's file (svg or png) for the filters in ``chosen`` (see ``ResultsFilter``)."""
    study = chosen["study"]
    filters = (chosen["conditions"], chosen["models"], chosen["pair"], chosen["step"], chosen["marks"])
    key = (
        "figure:v1:"
        + hashlib.sha256(
            repr((research_data_version(study=study), name, fmt_name, filters)).encode()
        ).hexdigest()
    )
    data = cache.get(key)
    if data is None:
        results = results_get(
            study=study,
            conditions=chosen["conditions"],
            models=chosen["models"],
            pair=chosen["pair"],
            with_diversity=name in DIVERSITY_FIGURES,
            marks=chosen["marks"],
        )
        names = dict(Condition.objects.values_list("letter", "name"))
        data = figure_bytes(figure_build(name, results, step=chosen["step"], condition_names=names), fmt_name)
        cache.set(key, data, timeout=FIGURE_CACHE_SECONDS)
    return data
