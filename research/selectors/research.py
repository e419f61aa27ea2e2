"""Everything a researcher sees, computed once: the selectors' records through the pure tables
(``research.results.results_compute``; ``Results`` is re-exported from there).

``results_cached_get`` keeps the whole ``Results`` in Django's cache per data version
(``research.selectors.versions``), filters and language: the results page and the figures compute
the tables once per change of the data, not per request.

Per-response diversity (jieba + BLEU, the slow part) is computed from each answer's
Step-1 and Step-3 text split into items as the release splits them, both variants
(as released, cleaned tokens), and cached per response and text version in Django's
cache, so pages and exports recompute only what changed.
"""

from __future__ import annotations

import hashlib

from django.core.cache import cache
from django.utils.translation import get_language

from calibration.selectors.agreement import consistency_table
from research.cost import cost_by_condition
from research.diversity import diversity_means, text_diversity
from research.results import Results, results_compute
from research.selectors.generation import run_costs_get
from research.selectors.results import response_records_get, score_records_get
from research.selectors.versions import research_data_version
from research.significance import MARKS_PAPER
from studies.models import Response, Study
from studies.rubric import load_rubric

__all__ = ["DIVERSITY_STEPS", "Results", "response_diversity_get", "results_cached_get", "results_get"]

DIVERSITY_STEPS = (1, 3)
# ~0.65 MB pickled for 400 responses; every change of the data makes a new entry and the old
# one is never read again, so they are kept for a day, not a week
RESULTS_CACHE_SECONDS = 24 * 3600


def response_diversity_get(*, response_ids: list[int]) -> dict[int, dict[int, dict[str, float | None]]]:
    """Diversity of Step 1 and Step 3 per response and variant (cached by the response's update time)."""
    stamps = dict(Response.objects.filter(pk__in=response_ids).values_list("pk", "updated_at"))
    keys = {rid: f"diversity:v2:{rid}:{stamps[rid].timestamp()}" for rid in response_ids if rid in stamps}
    found = cache.get_many(list(keys.values()))
    out: dict[int, dict[int, dict[str, float | None]]] = {}
    missing = []
    for rid, key in keys.items():
        if key in found:
            out[rid] = {int(k): v for k, v in found[key].items()}
        else:
            missing.append(rid)
    if missing:
        fields = [f"step{step}" for step in DIVERSITY_STEPS]
        texts = Response.objects.filter(pk__in=missing).values_list("pk", *fields)
        fresh = {}
        for rid, *answers in texts.iterator(chunk_size=500):
            out[rid] = {
                step: text_diversity(answer) for step, answer in zip(DIVERSITY_STEPS, answers, strict=True)
            }
            fresh[keys[rid]] = {str(k): v for k, v in out[rid].items()}
        cache.set_many(fresh, timeout=7 * 24 * 3600)
    return out


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
    if with_diversity:
        values = response_diversity_get(response_ids=[r.response_id for r in results.responses])
        results.diversity = diversity_means(results.responses, values, steps=DIVERSITY_STEPS)
        results.response_diversity = values
    results.run_costs = run_costs_get(study=study, conditions=conditions, models=models)
    results.cost = cost_by_condition(results.run_costs)
    return results


def _results_key(version: str, filters: tuple, with_diversity: bool) -> str:
    # the language too: Table 6 carries its rule and definitions as translated text
    key = (version, filters, with_diversity, get_language())
    return "results:v2:" + hashlib.sha256(repr(key).encode()).hexdigest()


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
