"""Everything a researcher sees, computed once: the selectors' records through the pure tables.

Per-response diversity (jieba + BLEU, the slow part) is cached per response and
text version in Django's cache, so pages and exports recompute only what changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.cache import cache

from calibration.selectors.agreement import consistency_table
from research.diversity import DiversityMean, diversity, diversity_means
from research.results import (
    Column,
    ConditionTable,
    GroupMean,
    OverallTable,
    blanks_table,
    default_pair,
    efficiency_table,
    overall_table,
    table1,
    table2,
    table_columns,
)
from research.selectors.results import (
    ResponseRecord,
    ScoreRecord,
    idea_items_get,
    response_records_get,
    score_records_get,
)
from studies.models import Response, Study
from studies.rubric import Rubric, load_rubric

DIVERSITY_STEPS = (1, 3)


@dataclass
class Results:
    study: Study
    rubric: Rubric
    columns: list[Column]
    records: list[ScoreRecord]
    responses: list[ResponseRecord]
    table1: list[ConditionTable]
    table2: list[ConditionTable]
    overall: OverallTable | None
    blanks: list[GroupMean]
    efficiency: list[GroupMean]
    diversity: list[DiversityMean] = field(default_factory=list)
    conditions: list[str] = field(default_factory=list)
    consistency: dict = field(default_factory=dict)  # Table 6, from calibration.selectors.agreement


def response_diversity_get(*, response_ids: list[int]) -> dict[int, dict[int, float | None]]:
    """Diversity of Step 1 and Step 3 items per response (cached by the response's update time)."""
    stamps = dict(Response.objects.filter(pk__in=response_ids).values_list("pk", "updated_at"))
    keys = {rid: f"diversity:v1:{rid}:{stamps[rid].timestamp()}" for rid in response_ids if rid in stamps}
    found = cache.get_many(list(keys.values()))
    out: dict[int, dict[int, float | None]] = {}
    missing = []
    for rid, key in keys.items():
        if key in found:
            out[rid] = {int(k): v for k, v in found[key].items()}
        else:
            missing.append(rid)
    if missing:
        items = idea_items_get(response_ids=missing, steps=DIVERSITY_STEPS)
        fresh = {}
        for rid in missing:
            by_step = items.get(rid, {})
            out[rid] = {step: diversity(by_step.get(step, [])) for step in DIVERSITY_STEPS}
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
) -> Results:
    rubric = load_rubric(study.rubric_version)
    columns = table_columns(rubric)
    records = score_records_get(study=study, conditions=conditions, models=models)
    responses = response_records_get(study=study, conditions=conditions, models=models)
    present = sorted({r.condition for r in records})
    pair = pair or default_pair(present)
    t1 = table1(records, rubric, columns)
    results = Results(
        study=study,
        rubric=rubric,
        columns=columns,
        records=records,
        responses=responses,
        table1=t1,
        table2=table2(t1),
        overall=overall_table(records, pair=pair, conditions=present) if pair else None,
        blanks=blanks_table(responses),
        efficiency=efficiency_table(records),
        conditions=present,
        consistency=consistency_table(study=study),
    )
    if with_diversity:
        values = response_diversity_get(response_ids=[r.response_id for r in responses])
        results.diversity = diversity_means(responses, values, steps=DIVERSITY_STEPS)
    return results
