"""Storing the agreement statistics: ResponseAgreement (PCC) and GroupAgreement
(ICC per scoring group and per scenario, before and after calibration).

Rows are written only when their values change, so a recompute that finds
nothing new costs reads only.
"""

from __future__ import annotations

import json
from collections import defaultdict
from decimal import Decimal
from typing import Any

from django.db import models
from django.utils import timezone

from calibration.models import GroupAgreement, ResponseAgreement
from calibration.reliability import alpha, ccc
from calibration.selectors.agreement_state import Evaluation
from calibration.statistics import REASON_FEW_RESPONSES, IccResult, icc, long_rows, pcc
from studies.models import Study
from studies.rubric import Rubric, release_script_vector
from studies.rubric.cgpst import version_is_cgpst

BEFORE, AFTER = GroupAgreement.Stage.BEFORE, GroupAgreement.Stage.AFTER


def changes_of(obj: models.Model, values: dict[str, Any]) -> dict[str, Any]:
    """The values that differ from what the row holds."""
    return {k: v for k, v in values.items() if getattr(obj, k) != v}


def rows_update(model: type[models.Model], updates: list[tuple[int, dict[str, Any]]]) -> None:
    """Write changed values with few statements: rows that get the very same new
    values (a new threshold, a new status) share one UPDATE; the rest go through
    bulk_update limited to the fields that changed."""
    same: dict[str, tuple[dict[str, Any], list[int]]] = {}
    for pk, values in updates:
        key = json.dumps(values, sort_keys=True, default=str)
        same.setdefault(key, (values, []))[1].append(pk)
    by_fields: dict[tuple[str, ...], list[models.Model]] = defaultdict(list)
    for values, pks in same.values():
        if len(pks) > 1:
            model._default_manager.filter(pk__in=pks).update(**values)
        else:
            by_fields[tuple(sorted(values))].append(model(pk=pks[0], **values))
    for fields, objs in by_fields.items():
        model._default_manager.bulk_update(objs, list(fields))


def _pcc_as_released(e: Evaluation, rubric: Rubric) -> float | None:
    """The pair's PCC with the release's script's maxima (Purpose / 2): shown beside the
    product's PCC (the sheet's maxima), which alone flags and routes."""
    if not e.determined or not version_is_cgpst(rubric.version):
        return None
    return pcc(release_script_vector(e.vectors["a"], rubric), release_script_vector(e.vectors["b"], rubric)).r


def _ccc(e: Evaluation) -> float | None:
    """Lin's CCC of the primary pair's vectors (beyond the study): shown beside the PCC."""
    if not e.determined:
        return None
    return ccc(e.vectors["a"], e.vectors["b"]).ccc


def response_agreements_sync(evaluations: list[Evaluation], *, threshold: Decimal, rubric: Rubric) -> None:
    """One ResponseAgreement per response that has a primary rater (PCC, p, reason,
    flag, the PCC of the pair used after calibration, the PCC as the release's script, the CCC)."""
    ids = [e.state.response_id for e in evaluations]
    existing = {ra.response_id: ra for ra in ResponseAgreement.objects.filter(response_id__in=ids)}
    now = timezone.now()
    to_create, to_update, to_delete = [], [], []
    for e in evaluations:
        current = existing.get(e.state.response_id)
        if not e.state.n_primary:
            if current is not None:
                to_delete.append(current.pk)
            continue
        a, b = e.state.slots.get("a"), e.state.slots.get("b")
        values = {
            "sheet_a_id": a.sheet_id if a else None,
            "sheet_b_id": b.sheet_id if b else None,
            "pcc": e.before.r,
            "p_value": e.before.p,
            "pcc_as_released": _pcc_as_released(e, rubric),
            "ccc": _ccc(e),
            "reason": e.before.reason,
            "threshold": Decimal(threshold),
            "flagged": e.flagged,
            "flag_reasons": list(e.flag_reasons),
            "after_pcc": e.after_pcc,
        }
        if current is None:
            to_create.append(ResponseAgreement(response_id=e.state.response_id, **values))
        elif changed := changes_of(current, values):
            to_update.append((current.pk, {**changed, "computed_at": now}))
    if to_delete:
        ResponseAgreement.objects.filter(pk__in=to_delete).delete()
    if to_create:
        ResponseAgreement.objects.bulk_create(to_create)
    rows_update(ResponseAgreement, to_update)


def _unit_rows(evaluations: list[Evaluation]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Long tables (response, slot, score) before and after calibration. After
    calibration the calibrator takes the slot of the farther primary rater; a
    flagged response still waiting for its calibrator keeps its pair."""
    before: list[tuple[Any, ...]] = []
    after: list[tuple[Any, ...]] = []
    for e in evaluations:
        if not e.determined:
            continue
        pair = {"a": e.vectors["a"], "b": e.vectors["b"]}
        used = e.after_slots or pair
        for slot in ("a", "b"):
            before.extend(long_rows(e.state.response_id, slot, pair[slot]))
            after.extend(long_rows(e.state.response_id, slot, used[slot]))
    return before, after


def _alpha_stored(rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    """Krippendorff's alpha (interval) on the values the ICC uses: each rater's mean of the 23
    normalised scores per response (pingouin averages them so), with its bootstrap interval."""
    values: dict[tuple[Any, ...], list[float]] = defaultdict(list)
    for response_id, slot, value in rows:
        values[(response_id, slot)].append(value)
    result = alpha([(r, slot, sum(v) / len(v)) for (r, slot), v in values.items()])
    return {
        "value": result.alpha,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "units": result.units,
        "reason": result.reason,
    }


def _stored(result: IccResult, rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    return {
        "n_responses": result.n_targets,
        "forms": result.forms_dict(),
        "reason": result.reason,
        "alpha": _alpha_stored(rows),
    }


def group_agreements_sync(*, study: Study, evaluations: list[Evaluation], scenario_ids: list[int]) -> int:
    """ICC for every scoring group and every scenario in scope, both stages.
    Returns the number of units (group or scenario) computed."""
    units: dict[tuple[int, int | None], list[Evaluation]] = defaultdict(list)
    for e in evaluations:
        if not e.state.n_primary:
            continue
        units[(e.state.scenario_id, None)].append(e)
        if e.state.group_id is not None:
            units[(e.state.scenario_id, e.state.group_id)].append(e)
    desired: dict[tuple[int, int | None, str], dict[str, Any]] = {}
    for (scenario_id, group_id), members in units.items():
        before_rows, after_rows = _unit_rows(members)
        if before_rows:
            before = icc(before_rows)
            # Same table when nothing in the unit was calibrated: same result.
            calibrated = any(e.calibrated for e in members)
            after = icc(after_rows) if calibrated else before
        else:
            before = after = IccResult(0, 0, reason=REASON_FEW_RESPONSES)
            calibrated = False
        desired[(scenario_id, group_id, BEFORE)] = stored = _stored(before, before_rows)
        desired[(scenario_id, group_id, AFTER)] = _stored(after, after_rows) if calibrated else stored
    existing = {
        (g.scenario_id, g.group_id, g.stage): g
        for g in GroupAgreement.objects.filter(study=study, scenario_id__in=scenario_ids)
    }
    now = timezone.now()
    to_create, to_update = [], []
    for key, values in desired.items():
        current = existing.pop(key, None)
        if current is None:
            scenario_id, group_id, stage = key
            to_create.append(
                GroupAgreement(study=study, scenario_id=scenario_id, group_id=group_id, stage=stage, **values)
            )
        elif changed := changes_of(current, values):
            to_update.append((current.pk, {**changed, "computed_at": now}))
    stale = [g.pk for g in existing.values()]
    if stale:
        GroupAgreement.objects.filter(pk__in=stale).delete()
    if to_create:
        GroupAgreement.objects.bulk_create(to_create)
    rows_update(GroupAgreement, to_update)
    return len(units)
