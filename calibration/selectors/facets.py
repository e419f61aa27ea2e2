"""Raters and design, beyond the study: the G-study of a study's submitted primary sheets, its
D-study planning table, the reliability of each rubric dimension and step
(``calibration.dimensions``), and each rater's severity (``calibration.generalizability`` and
``calibration.severity``, pure). The same numbers on the consistency dashboard, in
``agreement``, in the results workbook and in the API."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable
from statistics import fmean
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import Count, Max

from calibration.dimensions import DIMENSION, parts_reliability
from calibration.generalizability import PLAN_RATERS, PLAN_SCENARIOS, d_study, d_study_plan, g_study
from calibration.selectors.agreement_state import sheet_vector, states_load
from calibration.severity import rater_severity
from scoring.models import ScoreSheet, SheetStatus
from studies.models import Study
from studies.rubric import load_rubric

CACHE_SECONDS = 3600


def _rater_labels(ids: set[int]) -> dict[Hashable, str]:
    users = get_user_model().objects.filter(pk__in=ids).select_related("rater_profile")
    labels: dict[Hashable, str] = {}
    for user in users:
        profile = getattr(user, "rater_profile", None)
        code = getattr(profile, "rater_code", "") if profile is not None else ""
        labels[user.pk] = f"{user.get_username()} ({code})" if code else user.get_username()
    return labels


def _severity_part(
    s_rows: list[tuple[Any, ...]], g_rows: list[tuple[Any, ...]], research_ids: dict[Hashable, str]
) -> dict[str, Any]:
    severity = rater_severity(s_rows)
    labels = _rater_labels({rater for *_, rater, _score in g_rows})
    return {
        "reason": severity.reason,
        "raters": [
            {"rater": labels.get(e.rater, str(e.rater)), "effect": e.effect, "se": e.se, "scores": e.scores,
             "biased_dimensions": sorted(str(b.dimension) for b in severity.biases if b.rater == e.rater and b.flagged)}
            for e in sorted(severity.raters, key=lambda e: e.effect)
        ],
        # by research ID, on the normalised scale (what the average rater would have given)
        "fair_scores": {research_ids[k]: v for k, v in severity.fair_scores.items() if k in research_ids},
    }  # fmt: skip


def _compute(
    study: Study, *, severity_only: bool = False, severity_known: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``severity_known``: the severity part computed already for the same submitted sheets (Table
    4's fair scores ask for it first), not fitted again."""
    rubric = load_rubric(study.rubric_version)
    keys = [d.key for d in rubric.dimensions]
    g_rows, s_rows, part_rows = [], [], []
    scenarios_per_system: dict[str, set[int]] = {}
    research_ids: dict[Hashable, str] = {}
    for state in states_load(study=study):
        research_ids[state.response_id] = state.research_id
        system = state.research_id.split("_", 1)[0]
        for slot in ("a", "b"):
            sheet = state.slots.get(slot)
            totals = sheet.submitted_totals if sheet is not None else None
            if sheet is None or totals is None:
                continue
            vector = sheet_vector(totals, rubric)
            g_rows.append((system, state.scenario_id, state.response_id, sheet.rater_id, fmean(vector)))
            if severity_known is None:
                s_rows += [
                    (state.response_id, sheet.rater_id, key, value)
                    for key, value in zip(keys, vector, strict=True)
                ]
            # the ICC's raters are the pair's slots, as in the scenario's "by slot" unit
            part_rows += [
                (state.response_id, slot, key, value) for key, value in zip(keys, vector, strict=True)
            ]
            scenarios_per_system.setdefault(system, set()).add(state.scenario_id)
    severity_part = (
        severity_known if severity_known is not None else _severity_part(s_rows, g_rows, research_ids)
    )
    if severity_only:
        return {"severity": severity_part}
    g = g_study(g_rows)
    dimensions = {d.key: d for d in rubric.dimensions}
    parts = parts_reliability(
        part_rows, steps={d.key: d.step for d in rubric.dimensions}, form=study.headline_icc
    )
    scenarios = round(fmean(len(s) for s in scenarios_per_system.values())) if scenarios_per_system else 0
    current = d_study(g, scenarios=max(1, scenarios), raters=2)
    return {
        "g_study": {
            "components": g.components,
            "shares": {facet: g.share(facet) for facet in g.components},
            "scores": g.scores,
            "reason": g.reason,
        },
        "d_study": {
            "current": {"scenarios": current.scenarios, "raters": current.raters,
                        "generalizability": current.generalizability, "dependability": current.dependability},
            "raters": list(PLAN_RATERS),
            "scenarios": list(PLAN_SCENARIOS),
            "plan": [
                {"raters": d.raters, "scenarios": d.scenarios, "generalizability": d.generalizability,
                 "dependability": d.dependability}
                for d in d_study_plan(g)
            ],
        },
        "parts": [
            {"part": p.part, "kind": p.kind, "step": p.step,
             "label_en": dimensions[p.part].label.en if p.kind == DIMENSION else "",
             "label_zh": dimensions[p.part].label.zh if p.kind == DIMENSION else "",
             "icc_form": study.headline_icc, "icc": p.icc, "icc_low": p.icc_low, "icc_high": p.icc_high,
             "icc_reason": p.icc_reason, "alpha_level": p.alpha.level, "alpha": p.alpha.alpha,
             "alpha_low": p.alpha.ci_low, "alpha_high": p.alpha.ci_high, "units": p.alpha.units,
             "alpha_reason": p.alpha.reason}
            for p in parts
        ],
        "severity": severity_part,
    }  # fmt: skip


def study_facets(*, study: Study) -> dict[str, Any]:
    """The G-study, the D-study plan, the reliability by rubric part and the raters' severity of
    ``study``, computed once per state of its submitted sheets (a submit or a reopen changes the
    key; a draft's autosave does not). About 2 s at 600 responses, 8 s at 6,000 (``bench/README.md``);
    the severity is taken from ``study_severity``'s entry where it is cached."""

    def compute(peek: _Peek) -> dict[str, Any]:
        known = peek("severity")
        return _compute(study, severity_known=known["severity"] if known else None)

    return _cached(study, "facets", compute)


def study_severity(*, study: Study) -> dict[str, Any]:
    """The raters' severity and the fair scores alone (Table 4's column): a tenth of the cost, or
    none where the whole facets are cached."""

    def compute(peek: _Peek) -> dict[str, Any]:
        facets = peek("facets")
        return {"severity": facets["severity"]} if facets else _compute(study, severity_only=True)

    severity: dict[str, Any] = _cached(study, "severity", compute)["severity"]
    return severity


_Peek = Callable[[str], "dict[str, Any] | None"]  # another entry of the same sheets' state, if cached


def _cached(study: Study, name: str, compute: Callable[[_Peek], dict[str, Any]]) -> dict[str, Any]:
    # submitted sheets only: a rater's autosave of a draft changes nothing computed here
    state = ScoreSheet.objects.filter(
        assignment__response__study=study, status=SheetStatus.SUBMITTED
    ).aggregate(n=Count("pk"), last=Max("updated_at"))
    suffix = f"{study.pk}:{state['n']}:{state['last'].isoformat() if state['last'] else '-'}"

    def peek(entry: str) -> dict[str, Any] | None:
        try:
            found: dict[str, Any] | None = cache.get(f"{entry}:{suffix}")
        except Exception:  # noqa: BLE001 - the cache is Redis, which may be away: compute instead
            found = None
        return found

    cached = peek(name)
    if cached is not None:
        return cached
    result = compute(peek)
    with contextlib.suppress(Exception):  # a cache outage only costs the next call a computation
        cache.set(f"{name}:{suffix}", result, CACHE_SECONDS)
    return result
