"""Everything a researcher sees, computed once: the selectors' records through the pure tables
(``research.results.results_compute``; ``Results`` is re-exported from there).

Per-response diversity (jieba + BLEU, the slow part) is computed from each answer's
Step-1 and Step-3 text split into items as the release splits them, both variants
(as released, cleaned tokens), and cached per response and text version in Django's
cache, so pages and exports recompute only what changed.
"""

from __future__ import annotations

from django.core.cache import cache

from calibration.selectors.agreement import consistency_table
from research.cost import cost_by_condition
from research.diversity import diversity_means, text_diversity
from research.results import Results, results_compute
from research.selectors.generation import run_costs_get
from research.selectors.results import response_records_get, score_records_get
from research.significance import MARKS_PAPER
from studies.models import Response, Study
from studies.rubric import load_rubric

__all__ = ["DIVERSITY_STEPS", "Results", "response_diversity_get", "results_get"]

DIVERSITY_STEPS = (1, 3)


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
