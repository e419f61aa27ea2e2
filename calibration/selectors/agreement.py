"""Reads for the consistency dashboard, the comparison pages and the
``agreement`` command. Numbers come from the stored statistics
(ResponseAgreement, GroupAgreement, FinalScore) that the recompute keeps
current; nothing here writes.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from calibration.models import CalibrationDecision, FinalScore, GroupAgreement, ResponseAgreement
from calibration.selectors.agreement_state import ResponseState, sheet_vector, states_load
from calibration.selectors.calibrators import calibrators_who_can_log_in
from calibration.selectors.comparison_items import comparison_items
from calibration.selectors.consistency import consistency_table as consistency_table  # Table 6, re-exported
from calibration.selectors.consistency import icc_headline
from calibration.statistics import (
    ICC_FORMS,
    REASON_FEW_RATERS,
    REASON_FEW_RESPONSES,
    REASON_LENGTH_MISMATCH,
    REASON_MISSING_SHEET,
    REASON_NO_VARIANCE,
    closer_primary,
    icc_beside,
    mean_defined,
    pcc,
)
from scoring.models import Assignment, AssignmentRole, RaterProfile, ScoreSheet, ScoringGroup, SheetStatus
from scoring.selectors import response_items_by_step, sheets_entries_get
from scoring.selectors.qualification import raters_trained_on
from studies.condition_labels import condition_label
from studies.models import Response, Study
from studies.rubric import load_rubric

if TYPE_CHECKING:
    from django.contrib.auth.models import User

BEFORE, AFTER = GroupAgreement.Stage.BEFORE, GroupAgreement.Stage.AFTER

# Calibration progress of one response, in order.
NOT_FLAGGED, UNASSIGNED, ASSIGNED, IN_PROGRESS, SUBMITTED = (
    "not_flagged",
    "unassigned",
    "assigned",
    "in_progress",
    "submitted",
)
BY_JUDGE = "by_judge"  # the study's opted-in LLM judge stands in until a human calibrator submits


REASON_LABELS = {
    REASON_NO_VARIANCE: _("no variance"),
    REASON_MISSING_SHEET: _("a sheet is missing"),
    REASON_FEW_RESPONSES: _("fewer than 3 responses"),
    REASON_FEW_RATERS: _("fewer than 2 raters"),
    REASON_LENGTH_MISMATCH: _("vectors differ in length"),
}


def reason_label(reason: str) -> str:
    """The stored reason (an English code) for display, translated."""
    return str(REASON_LABELS.get(reason, reason))


def agreement_studies() -> list[Study]:
    return list(Study.objects.order_by("-is_active", "name"))


def _user_label(user: User) -> str:
    code = getattr(getattr(user, "rater_profile", None), "rater_code", None)
    return f"{user.get_username()} ({code})" if code else user.get_username()


def _calibration_progress(state: ResponseState, flagged: bool) -> str:
    if not flagged:
        return NOT_FLAGGED
    cal = state.calibration
    if (cal is None or not cal.submitted) and state.judge is not None:
        return BY_JUDGE
    if cal is None:
        return UNASSIGNED
    if cal.submitted:
        return SUBMITTED
    return IN_PROGRESS if cal.has_work else ASSIGNED


def agreement_responses(
    *, study: Study, scenario_id: int | None = None, group_id: int | None = None
) -> list[dict[str, Any]]:
    """Per response: PCC, flag, calibration progress and final score (researchers' view)."""
    states = states_load(study=study, scenario_ids=[scenario_id] if scenario_id else None)
    if group_id is not None:
        states = [s for s in states if s.group_id == group_id]
    ids = [s.response_id for s in states]
    # the six steps' texts are no part of a row (6,000 responses hold tens of megabytes of them)
    responses = (
        Response.objects.filter(pk__in=ids)
        .select_related("scenario", "model", "condition")
        .defer(*Response.STEP_FIELDS, "blind_spans")
        .in_bulk()
    )
    agreements = {a.response_id: a for a in ResponseAgreement.objects.filter(response_id__in=ids)}
    finals = {f.response_id: f for f in FinalScore.objects.filter(response_id__in=ids)}
    reasons = dict(
        CalibrationDecision.objects.filter(response_id__in=ids)
        .exclude(reason="")
        .values_list("response_id", "reason")
    )
    users = get_user_model().objects.in_bulk(
        {s.calibration.rater_id for s in states if s.calibration}
        | {sheet.rater_id for s in states for sheet in s.slots.values()}
    )
    out = []
    for state in sorted(states, key=lambda s: (responses[s.response_id].scenario.code, s.research_id)):
        response = responses[state.response_id]
        agreement = agreements.get(state.response_id)
        final = finals.get(state.response_id)
        flagged = bool(agreement and agreement.flagged)
        out.append(
            {
                "response": response,
                "response_id": response.pk,
                "research_id": response.research_id,
                "scenario": response.scenario.code,
                "model": response.model.name,
                "condition": response.condition.letter,
                "group_id": state.group_id,
                "rater_a": _user_label(users[state.slots["a"].rater_id]) if "a" in state.slots else "",
                "rater_b": _user_label(users[state.slots["b"].rater_id]) if "b" in state.slots else "",
                "pcc": agreement.pcc if agreement else None,
                "pcc_as_released": agreement.pcc_as_released if agreement else None,
                "ccc": agreement.ccc if agreement else None,
                "p_value": agreement.p_value if agreement else None,
                "reason": agreement.reason if agreement else REASON_MISSING_SHEET,
                "reason_label": reason_label(agreement.reason if agreement else REASON_MISSING_SHEET),
                "flagged": flagged,
                "flag_reasons": list(agreement.flag_reasons) if agreement else [],
                "after_pcc": agreement.after_pcc if agreement else None,
                "calibration": _calibration_progress(state, flagged),
                "calibrator": _user_label(users[state.calibration.rater_id]) if state.calibration else "",
                "decision_reason": reasons.get(state.response_id, ""),
                "final": final.overall if final else None,
                "final_rule": final.get_rule_display() if final else "",
                "calibrated": bool(final and final.calibrated),
                "status": response.get_status_display(),
            }
        )
    return out


def _icc_row(row: GroupAgreement | None, form: str) -> dict[str, Any]:
    """Headline form and all six forms (in order) of one stored ICC row."""
    forms = row.forms if row is not None else {}
    return {
        "headline": icc_headline(forms, form, row.n_responses if row is not None else 0),
        "reason": row.reason if row is not None else "",
        "reason_label": reason_label(row.reason) if row is not None else "",
        "n": row.n_responses if row is not None else 0,
        "forms": [
            {"name": name, "value": icc_headline(forms, name), "headline": name == form} for name in ICC_FORMS
        ],
        # the release's ICC3k and the paper's ICC2k, shown beside the headline
        "beside": [{"name": name, "value": icc_headline(forms, name)} for name in icc_beside(form)],
        # Krippendorff's alpha (interval) of the same values, beyond the study
        "alpha": (row.alpha if row is not None else {}) or {},
    }


def agreement_groups(
    *, study: Study, scenario_id: int | None = None, responses: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Per scoring group (and per scenario overall, ``group`` None): pair,
    responses, mean/min PCC, ICC before/after (headline and all forms), flags
    and calibration progress. ``responses``: ``agreement_responses`` of the same study and
    scenario, when the caller has them already."""
    if responses is None:
        responses = agreement_responses(study=study, scenario_id=scenario_id)
    stored = GroupAgreement.objects.filter(study=study).select_related("scenario")
    if scenario_id:
        stored = stored.filter(scenario_id=scenario_id)
    icc_by_unit = {(g.scenario_id, g.group_id, g.stage): g for g in stored}
    groups = ScoringGroup.objects.filter(study=study).select_related(
        "scenario", "condition", "rater_a__rater_profile", "rater_b__rater_profile"
    )
    if scenario_id:
        groups = groups.filter(scenario_id=scenario_id)
    members: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    scenario_ids: dict[str, int] = {}
    for r in responses:
        scenario_ids[r["scenario"]] = r["response"].scenario_id
        members[(r["response"].scenario_id, None)].append(r)
        if r["group_id"]:
            members[(r["response"].scenario_id, r["group_id"])].append(r)
    units: list[tuple[int, int | None, ScoringGroup | None]] = [
        (g.scenario_id, g.pk, g) for g in groups if (g.scenario_id, g.pk) in members or g.archived_at is None
    ]
    units += [(sid, None, None) for sid in sorted(set(scenario_ids.values()))]
    scenarios = {r["response"].scenario_id: r["response"].scenario for r in responses}
    scenarios.update({g.scenario_id: g.scenario for g in groups})
    form = study.headline_icc
    out = []
    for scenario_id_, group_id, group in units:
        rows = members.get((scenario_id_, group_id), [])
        pccs = [r["pcc"] for r in rows if r["pcc"] is not None]
        flagged = [r for r in rows if r["flagged"]]
        out.append(
            {
                "scenario": scenarios[scenario_id_],
                "group": group,
                "condition": group.condition.letter if group else "",
                "pair": f"{_user_label(group.rater_a)} / {_user_label(group.rater_b)}" if group else "",
                "archived": bool(group and group.archived_at),
                "responses": len(rows),
                "scored": sum(r["reason"] != REASON_MISSING_SHEET for r in rows),
                "mean_pcc": mean_defined(pccs),
                "min_pcc": min(pccs) if pccs else None,
                "flagged": len(flagged),
                "calibrated": sum(r["calibration"] == SUBMITTED for r in flagged),
                "unassigned": sum(r["calibration"] == UNASSIGNED for r in flagged),
                "before": _icc_row(icc_by_unit.get((scenario_id_, group_id, BEFORE)), form),
                "after": _icc_row(icc_by_unit.get((scenario_id_, group_id, AFTER)), form),
            }
        )
    out.sort(key=lambda u: (u["scenario"].code, u["group"] is None, u["condition"]))
    return out


# --- one response: the three sheets side by side ------------------------------------------


class ComparisonColumn(TypedDict):
    """One sheet of the comparison: Rater A ("a"), Rater B ("b") or the calibrator ("c")."""

    key: str
    label: str
    submitted: bool
    totals: dict[str, Any] | None
    who: NotRequired[str]  # only with identities


def _state_of(response: Response) -> ResponseState:
    return states_load(study=response.study, response_ids=[response.pk], include_withdrawn=True)[0]


def response_comparison(*, response: Response, identities: bool, code: str = "") -> dict[str, Any]:
    """Rater A, Rater B and the calibrator, dimension by dimension, differences
    marked. With ``identities=False`` (the calibrator's view) nothing names a
    rater, the model, the condition or the research ID; ``code`` is then the
    calibrator's own blind code (each rater of a response has another)."""
    state = _state_of(response)
    rubric = load_rubric(response.study.rubric_version)
    lang = get_language() or "en"
    columns: list[ComparisonColumn] = []
    submitted: dict[str, dict[str, Any]] = {}  # the totals of the submitted sheets, by column key
    submitted_ids: dict[str, int] = {}  # their sheets, for the item-by-item comparison
    for key, label, sheet in (
        ("a", "Rater A", state.slots.get("a")),
        ("b", "Rater B", state.slots.get("b")),
        ("c", "Calibrator", state.calibration),
    ):
        if sheet is None:
            continue
        column: ComparisonColumn = {
            "key": key,
            "label": label,
            "submitted": sheet.submitted,
            "totals": sheet.totals,
        }
        if identities:
            user = get_user_model().objects.select_related("rater_profile").get(pk=sheet.rater_id)
            column["who"] = _user_label(user)
        columns.append(column)
        if (totals := sheet.submitted_totals) is not None:
            submitted[key] = totals
            if sheet.sheet_id is not None:
                submitted_ids[key] = sheet.sheet_id
    dims = []
    for step in rubric.steps:
        for d in step.dimensions:
            values = [
                submitted[c["key"]]["dimensions"][d.key] if c["key"] in submitted else None for c in columns
            ]
            present = [v for v in values if v is not None]
            spread = max(present) - min(present) if len(present) > 1 else 0
            dims.append(
                {
                    "step": step.number,
                    "label": d.label.text(lang),
                    "max": d.max,
                    "values": values,
                    "spread": spread,
                    "differs": spread > 0,
                    "large": d.max and spread / d.max >= 0.25,
                }
            )
    steps = []
    for step in rubric.steps:
        values = [
            submitted[c["key"]]["steps"][str(step.number)] if c["key"] in submitted else None for c in columns
        ]
        present = [v for v in values if v is not None]
        steps.append(
            {
                "step": step.number,
                "label": step.name.text(lang),
                "max": step.max,
                "values": values,
                "differs": len(set(present)) > 1,
            }
        )
    overall = [submitted[c["key"]]["overall"] if c["key"] in submitted else None for c in columns]
    vectors = {k: sheet_vector(totals, rubric) for k, totals in submitted.items()}
    pair_pcc = pcc(vectors["a"], vectors["b"]) if {"a", "b"} <= set(vectors) else None
    closeness = (
        closer_primary(vectors["c"], vectors["a"], vectors["b"]) if {"a", "b", "c"} <= set(vectors) else None
    )
    agreement = ResponseAgreement.objects.filter(response=response).first()
    final = FinalScore.objects.filter(response=response).prefetch_related("sheets").first()
    slot_of_sheet = {
        sheet.sheet_id: label
        for label, sheet in (
            (_("Rater A"), state.slots.get("a")),
            (_("Rater B"), state.slots.get("b")),
            (_("Calibrator"), state.calibration),
        )
        if sheet is not None
    }
    decision = CalibrationDecision.objects.filter(response=response).select_related("decided_by").first()
    item_keys = [c["key"] for c in columns if c["key"] in submitted_ids]
    by_id = {s.pk: s for s in ScoreSheet.objects.filter(pk__in=submitted_ids.values())}
    entries = sheets_entries_get(sheets=[by_id[submitted_ids[k]] for k in item_keys], rubric=rubric)
    result = {
        "blind_code": code or response.blind_code,
        "item_columns": item_keys,
        "items": comparison_items(
            rubric=rubric,
            sheets=[entries[submitted_ids[k]] for k in item_keys],
            items=response_items_by_step(response=response),
            lang=lang,
        ),
        "columns": columns,
        "dimensions": dims,
        "steps": steps,
        "overall": overall,
        "max_total": rubric.max_total,
        "calibration_submitted": "c" in submitted,
        "pcc_ab": pair_pcc,
        "pcc_ab_reason": reason_label(pair_pcc.reason) if pair_pcc else "",
        "closeness": closeness,
        "flagged": bool(agreement and agreement.flagged),
        "threshold": agreement.threshold if agreement else response.study.agreement_threshold,
        "final": None,
        "decision_reason": decision.reason if decision else "",
        "decided_at": decision.decided_at if decision else None,
    }
    if final is not None:
        result["final"] = {
            "overall": final.overall,
            "rule": final.get_rule_display(),
            "calibrated": final.calibrated,
            "sheets": sorted(slot_of_sheet.get(s.pk, "?") for s in final.sheets.all()),
        }
    if identities:
        result.update(
            research_id=response.research_id,
            model=response.model.name,
            condition=f"{response.condition.letter} {condition_label(response.condition.name)}",
            scenario=response.scenario,
            decided_by=_user_label(decision.decided_by) if decision and decision.decided_by else "",
            final_note=final.note if final else "",
        )
    return result


def calibrator_choices(*, response: Response) -> list[dict[str, Any]]:
    """Raters who may calibrate this response, least loaded first: not one already scoring it, nor
    one who trained on a copy of it and saw its reference scores (the assignment refuses both; the
    list offered the second, hostile pass 24)."""
    busy = set(
        Assignment.objects.filter(response=response, archived_at__isnull=True)
        .exclude(role=AssignmentRole.CALIBRATION)
        .values_list("rater_id", flat=True)
    )
    busy |= raters_trained_on(response_ids=[response.pk]).get(response.pk, set())
    profiles = RaterProfile.objects.filter(user_id__in=calibrators_who_can_log_in()).select_related("user")
    open_work: dict[int, int] = defaultdict(int)
    for rater_id, status in Assignment.objects.filter(archived_at__isnull=True).values_list(
        "rater_id", "sheet__status"
    ):
        if status != SheetStatus.SUBMITTED:
            open_work[rater_id] += 1
    choices = [
        {"user": p.user, "label": _user_label(p.user), "open": open_work[p.user_id]}
        for p in profiles
        if p.user_id not in busy
    ]
    return sorted(choices, key=lambda c: (c["open"], c["user"].pk))


def calibration_queue(*, user: User) -> list[dict[str, Any]]:
    """The calibrator's own calibration assignments (blind-safe fields only)."""
    rows = (
        Assignment.objects.filter(rater=user, role=AssignmentRole.CALIBRATION, archived_at__isnull=True)
        .select_related("response__scenario", "sheet")
        .order_by("order_key", "id")
    )
    out = []
    for a in rows:
        sheet = getattr(a, "sheet", None)
        out.append(
            {
                "blind_code": a.blind_code,
                "theme": a.response.scenario.theme,
                "status": "not_started" if sheet is None else sheet.status,
                "can_compare": sheet is not None and sheet.status == SheetStatus.SUBMITTED,
            }
        )
    return out


def calibration_assignments_of(*, user: User, blind_code: str) -> QuerySet[Assignment]:
    """The user's active calibration assignments with that blind code (their own)."""
    return Assignment.objects.filter(
        rater=user,
        role=AssignmentRole.CALIBRATION,
        archived_at__isnull=True,
        blind_code=blind_code,
    )


def calibrator_assignment_for(*, user: User, blind_code: str) -> Assignment | None:
    """The user's active calibration assignment for that blind code, if its sheet is submitted."""
    assignment = (
        calibration_assignments_of(user=user, blind_code=blind_code)
        .select_related("response__study", "response__scenario")
        .first()
    )
    if assignment is None:
        return None
    submitted = ScoreSheet.objects.filter(assignment=assignment, status=SheetStatus.SUBMITTED).exists()
    return assignment if submitted else None
