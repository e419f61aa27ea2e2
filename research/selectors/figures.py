"""The research figures, rendered once per data version and kept in Django's cache.

A figure depends on what ``research.selectors.versions.research_data_version`` sums up
(scores, responses, sheets, agreement, names, settings) and on the page's filters; both
are in the cache key, so a figure is redrawn by matplotlib only after something it shows
has changed, and its tables come from the cached ``Results`` of the same version. Its
words (titles, axes, legend, condition names) are in the reader's language, which is in
the cache key too.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.core.cache import cache
from django.utils.translation import get_language

from research.figures import figure_build, figure_bytes
from research.labels import figure_labels
from research.selectors.conditions import condition_names_get
from research.selectors.research import results_cached_get
from research.selectors.versions import research_data_version

__all__ = ["DIVERSITY_FIGURES", "figure_get", "research_data_version"]

FIGURE_CACHE_SECONDS = 7 * 24 * 3600
# figures that show Self-BLEU diversity (the slow part, computed only for them)
DIVERSITY_FIGURES = ("diversity", "diversity_flexibility", "diversity_flexibility_models")


def figure_get(*, name: str, fmt_name: str, chosen: dict[str, Any]) -> bytes:
    """The figure's file (svg or png) for the filters in ``chosen`` (see ``ResultsFilter``)."""
    study = chosen["study"]
    filters = (chosen["conditions"], chosen["models"], chosen["pair"], chosen["step"], chosen["marks"])
    version = research_data_version(study=study)
    language = get_language() or "en"
    digest = hashlib.sha256(repr((version, name, fmt_name, filters, language)).encode()).hexdigest()
    key = "figure:v3:" + digest
    data: bytes | None = cache.get(key)
    if data is None:
        results = results_cached_get(
            study=study,
            conditions=chosen["conditions"],
            models=chosen["models"],
            pair=chosen["pair"],
            with_diversity=name in DIVERSITY_FIGURES,
            marks=chosen["marks"],
            version=version,
        )
        names = condition_names_get()
        labels = figure_labels(results)
        figure = figure_build(name, results, step=chosen["step"], condition_names=names, labels=labels)
        data = figure_bytes(figure, fmt_name)
        cache.set(key, data, timeout=FIGURE_CACHE_SECONDS)
    return data
