"""Reads of generation runs and turns for research output: cost per run (``research.cost``)
and the long table of turns for analysts."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from django.db.models import Count, F, Q, Sum

from generation.models import GenerationRun, Turn
from research.cost import RunCost
from studies.models import Study


def run_costs_get(
    *, study: Study, conditions: Iterable[str] | None = None, models: Iterable[str] | None = None
) -> list[RunCost]:
    """Every generation run of the study with its cost, aggregated from its turns (one query)."""
    runs = GenerationRun.objects.filter(study=study)
    if conditions:
        runs = runs.filter(condition__letter__in=list(conditions))
    if models:
        runs = runs.filter(endpoint__model_number__in=list(models))
    rows = (
        runs.annotate(
            n_calls=Count("turns", filter=Q(turns__error="")),
            n_failures=Count("turns", filter=~Q(turns__error="")),
            tokens_in=Sum("turns__prompt_tokens"),
            tokens_out=Sum("turns__completion_tokens"),
            latency=Sum("turns__latency_ms"),
            n_retries=Sum(F("turns__attempts") - 1),
        )
        .order_by("pk")
        .values(
            "pk", "status", "started_at", "finished_at", "active_seconds", "scenario__code", "endpoint__model_number",
            "endpoint__name", "condition__letter", "response__research_id", "n_calls", "n_failures",
            "tokens_in", "tokens_out", "latency", "n_retries",
        )
    )  # fmt: skip
    out = []
    for r in rows:
        # The time workers spent on the run, not the wait for a worker or for a lost task.
        wall = r["active_seconds"] if r["started_at"] and r["finished_at"] else None
        out.append(
            RunCost(
                run_id=r["pk"],
                research_id=r["response__research_id"] or "",
                scenario=r["scenario__code"],
                model_number=r["endpoint__model_number"],
                model=r["endpoint__name"],
                condition=r["condition__letter"],
                status=r["status"],
                calls=r["n_calls"],
                prompt_tokens=r["tokens_in"] or 0,
                completion_tokens=r["tokens_out"] or 0,
                latency_seconds=(r["latency"] or 0) / 1000,
                wall_seconds=wall,
                failures=r["n_failures"],
                retries=r["n_retries"] or 0,
            )
        )
    return out


TURN_HEADER = (
    "study", "scenario", "condition", "model", "research_id", "run_id", "run_status", "seq", "step",
    "phase", "role", "prompt_tokens", "completion_tokens", "latency_ms", "attempts", "error",
    "created_at", "request_params", "messages", "reply", "reasoning",
)  # fmt: skip


def turn_rows_count(*, study: Study) -> int:
    return Turn.objects.filter(run__study=study).count()


def turn_rows_iter(*, study: Study) -> Iterator[tuple[Any, ...]]:
    """One row per generation turn (provider call) of the study, in run and call order;
    the exact messages and the request parameters as JSON text."""
    turns = (
        Turn.objects.filter(run__study=study)
        .order_by("run_id", "seq")
        .values_list(
            "run__scenario__code", "run__condition__letter", "run__endpoint__name",
            "run__response__research_id", "run_id", "run__status", "seq", "step", "phase", "role",
            "prompt_tokens", "completion_tokens", "latency_ms", "attempts", "error", "created_at",
            "request_params", "messages", "reply", "reasoning",
        )
    )  # fmt: skip
    for row in turns.iterator(chunk_size=500):
        (scenario, condition, model, research_id, run_id, status, seq, step, phase, role) = row[:10]
        prompt, completion, latency, attempts, error, created, params, messages, reply, reasoning = row[10:]
        yield (
            study.name, scenario, condition, model, research_id or "", run_id, status, seq, step, phase,
            role, prompt, completion, latency, attempts, error, created.isoformat(),
            json.dumps(params, ensure_ascii=False), json.dumps(messages, ensure_ascii=False), reply,
            reasoning,
        )  # fmt: skip
