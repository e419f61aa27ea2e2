"""Everything a researcher sees, computed once: the selectors' records through the pure tables
(``research.results.results_compute``; ``Results`` is re-exported from there).

``results_cached_get`` keeps the whole ``Results`` in Django's cache per data version
(``research.selectors.versions``), filters and language: the results page and the figures compute
the tables once per change of the data, not per request.

Per-response diversity (jieba + BLEU, the slow part) is read from the rows a worker
stored when each response arrived (``research.selectors.diversity``), so even cold
results compute it only for a response whose row is missing or stale.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.core.cache import cache
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from calibration.selectors.consistency import consistency_table
from calibration.selectors.facets import study_severity
from research.cost import cost_by_condition
from research.diversity import DIVERSITY_STEPS, diversity_means
from research.results import Results, overall_fair_add, results_compute
from research.selectors.diversity import response_diversity_get
from research.selectors.generation import run_costs_get
from research.selectors.preferences import study_preferences_get
from research.selectors.results import response_records_get, score_records_get
from research.selectors.versions import research_data_version
from research.significance import MARKS_PAPER
from studies.models import Response, Study
from studies.rubric import load_rubric

__all__ = [
    "DIVERSITY_STEPS",
    "Results",
    "response_diversity_get",
    "results_cached_get",
    "results_filter_problems",
    "results_get",
]

# the pickled results are large; every change of the data makes a new entry and the old
# one is never read again, so they are kept for a day, not a week (sizes: docs/operators.md)
RESULTS_CACHE_SECONDS = 24 * 3600


def results_filter_problems(
    *,
    study: Study,
    conditions: list[str] | None = None,
    models: list[str] | None = None,
    pair: tuple[str, str] | None = None,
) -> list[str]:
    """What a request for results names that the study has no response under: condition
    letters (of the filter and of the pair tested) and model numbers, each problem with what the
    study has, so that a typo is an error and not an empty table."""
    rows = Response.objects.filter(study=study, is_training_copy=False)
    letters = sorted(set(rows.values_list("condition__letter", flat=True)))
    numbers = sorted(set(rows.values_list("model__model_number", flat=True)))
    problems = []
    unknown = sorted({c for c in [*(conditions or []), *(pair or ())] if c not in letters})
    if unknown:
        problems.append(
            _("no response of the study is under condition %(unknown)s (it has: %(known)s)")
            % {"unknown": ", ".join(unknown), "known": ", ".join(letters) or "—"}
        )
    unknown = sorted(set(models or []) - set(numbers))
    if unknown:
        problems.append(
            _("no response of the study is by model %(unknown)s (it has: %(known)s)")
            % {"unknown": ", ".join(unknown), "known": ", ".join(numbers) or "—"}
        )
    return problems


def results_get(
    *,
    study: Study,
    conditions: list[str] | None = None,
    models: list[str] | None = None,
    pair: tuple[str, str] | None = None,
    with_diversity: bool = True,
    marks: str = MARKS_PAPER,
) -> Results:
    results = results_compute(
        study=study,
        rubric=load_rubric(study.rubric_version),
        records=score_records_get(study=study, conditions=conditions, models=models),
        responses=response_records_get(study=study, conditions=conditions, models=models),
        pair=pair,
        consistency=consistency_table(study=study),
        marks=marks,
    )
    if with_diversity and results.cgpst:  # Self-BLEU of Steps 1 and 3: CGPST's
        values = response_diversity_get(response_ids=[r.response_id for r in results.responses])
        results.diversity = diversity_means(results.responses, values, steps=DIVERSITY_STEPS)
        results.response_diversity = values
    results.preferences, results.preference_labels = study_preferences_get(study=study)
    overall_fair_add(results.overall, study_severity(study=study)["fair_scores"])
    results.run_costs = run_costs_get(study=study, conditions=conditions, models=models)
    results.cost = cost_by_condition(results.run_costs)
    return results


def _results_key(version: str, filters: tuple[Any, ...], with_diversity: bool) -> str:
    # the language too: Table 6 carries its rule and definitions as translated text;
    # the prefix changes with the shape of the results (v5: a pairwise study's preferences)
    key = (version, filters, with_diversity, get_language())
    return "results:v5:" + hashlib.sha256(repr(key).encode()).hexdigest()


def results_cached_get(
    *,
    study: Study,
    conditions: list[str] | None = None,
    models: list[str] | None = None,
    pair: tuple[str, str] | None = None,
    with_diversity: bool = True,
    marks: str = MARKS_PAPER,
    version: str | None = None,
) -> Results:
    """``results_get``, computed once per data version and filters and then read from the
    cache. ``version`` is ``research_data_version(study=study)`` if the caller has it already.
    Results with diversity also serve a caller that does not need it."""
    version = version or research_data_version(study=study)
    filters = (
        sorted(conditions) if conditions else None,
        sorted(models) if models else None,
        tuple(pair) if pair else None,
        marks,
    )
    keys = [_results_key(version, filters, True)]
    if not with_diversity:
        keys.append(_results_key(version, filters, False))
    found = cache.get_many(keys)
    results = next((found[key] for key in keys if key in found), None)
    if results is None:
        results = results_get(
            study=study,
            conditions=conditions,
            models=models,
            pair=pair,
            with_diversity=with_diversity,
            marks=marks,
        )
        cache.set(keys[-1], results, timeout=RESULTS_CACHE_SECONDS)
    results.study = study  # the caller's fresh row, not the pickled one
    return results
