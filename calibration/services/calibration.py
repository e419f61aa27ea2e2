"""Downstream of submitted sheets: agreement, calibration routing and final scores.

``calibration.tasks.response_scores_changed`` calls ``response_scores_recompute`` on every submit and reopen
(scheduled on commit by ``calibration.receivers``, which follows
``scoring.signals.response_scores_changed``). It recomputes the whole scenario of that response (PCC per
response, ICC per scoring group and per scenario, before and after calibration), routes responses below the
study's threshold to a calibrating rater, and sets the final scores. Everything is derived from the sheets,
the threshold and the final-score rule, so running it again changes nothing; rows are only written when their
values change.

Decisions (documented in docs/researchers.md, "Agreement and calibration"):
* A flagged response has NO final score until its calibrator submits (status
  "Awaiting calibration"), so no uncalibrated score can reach research output.
* After calibration the study's final-score rule picks the sheets; the "calibrated pair"
  behind the after-calibration PCC/ICC is always the calibrator and the closer
  primary rater, whatever the final-score rule.
* Lowering the threshold archives calibration assignments nobody has started;
  started or submitted calibration sheets are kept (and used again if the
  response is flagged again). First-pass sheets are never changed here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from calibration.models import CalibrationDecision, FinalScore
from calibration.selectors.agreement_state import (
    Evaluation,
    SheetState,
    response_evaluate,
    responses_evaluate,
    states_load,
    study_level_rule,
)
from calibration.selectors.calibrators import calibrator_can_log_in, calibrators_who_can_log_in
from calibration.selectors.metrics import AGREEMENT_RECOMPUTES
from calibration.services.agreement_sync import (
    changes_of,
    group_agreements_sync,
    response_agreements_sync,
    rows_update,
)
from core.counters import event_counter_add
from scoring.models import Assignment, AssignmentRole, ScoreSheet, SheetStatus
from scoring.selectors.qualification import raters_trained_on
from scoring.services.assignments import assignment_archive
from studies.models import (
    FinalScoreRule,
    Response,
    ResponseStatus,
    Scenario,
    Study,
)
from studies.rubric import load_rubric
from studies.services.audit import audit_record

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# stored in English, shown translated (the pages pass them through {% translate %})
ARCHIVED_UNFLAGGED = gettext_noop(
    "Response no longer below the agreement threshold (calibration not started)."
)
ARCHIVED_REASSIGNED = gettext_noop("Calibration reassigned by an admin.")
ROUTED_FLAGGED = gettext_noop("Response below the agreement threshold: routed to the least busy calibrator.")


class CalibrationError(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass
class RecomputeReport:
    responses: int = 0
    determined: int = 0
    flagged: int = 0
    calibrated: int = 0
    routed: list[int] = field(default_factory=list)  # calibration assignments created
    archived: list[int] = field(default_factory=list)  # calibration assignments archived
    unassigned: list[int] = field(default_factory=list)  # flagged responses without a calibrator
    icc_units: int = 0


def _lock_scenarios(scenario_ids: Iterable[int]) -> None:
    """Serialize recomputes of the same scenario (routing must not race). FOR NO KEY UPDATE, not FOR UPDATE:
    a response inserted in the scenario meanwhile (a generation run finishing) takes FOR KEY SHARE on the
    scenario row for its foreign key, which FOR UPDATE would block, and the two transactions could deadlock;
    NO KEY UPDATE still excludes a second recompute."""
    list(
        Scenario.objects.select_for_update(no_key=True)
        .filter(pk__in=sorted(set(scenario_ids)))
        .order_by("pk")
    )


def response_scores_recompute(*, response_id: int) -> RecomputeReport | None:
    """Recompute everything that follows from this response's sheets (idempotent)."""
    response = Response.objects.filter(pk=response_id).only("study_id", "scenario_id").first()
    if response is None:  # deleted since the task was queued
        return None
    return scenario_agreement_recompute(study_id=response.study_id, scenario_id=response.scenario_id)


def scenario_agreement_recompute(
    *, study_id: int, scenario_id: int, actor: User | None = None
) -> RecomputeReport:
    with transaction.atomic():
        _lock_scenarios([scenario_id])
        study = Study.objects.get(pk=study_id)
        return _recompute(study=study, scenario_ids=[scenario_id], actor=actor)


def study_agreement_recompute(*, study_id: int, actor: User | None = None) -> RecomputeReport:
    """All agreement statistics, routing and final scores of a study."""
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study_id)
        _lock_scenarios(Response.objects.filter(study=study).values_list("scenario_id", flat=True))
        return _recompute(study=study, scenario_ids=None, actor=actor)


def _recompute(*, study: Study, scenario_ids: list[int] | None, actor: User | None) -> RecomputeReport:
    rubric = load_rubric(study.rubric_version)
    threshold = float(study.agreement_threshold)
    states = states_load(study=study, scenario_ids=scenario_ids)
    evaluations = responses_evaluate(
        states=states,
        threshold=threshold,
        rule=study.final_score_rule,
        rubric=rubric,
        level=study_level_rule(study),
    )
    report = RecomputeReport(responses=len(evaluations))
    report.determined = sum(e.determined for e in evaluations)
    report.flagged = sum(e.flagged for e in evaluations)
    report.calibrated = sum(e.calibrated for e in evaluations)
    _route(evaluations, actor=actor, report=report)
    response_agreements_sync(evaluations, threshold=study.agreement_threshold, rubric=rubric)
    _final_scores_sync(evaluations)
    _decisions_sync(evaluations)
    _statuses_sync(evaluations)
    scope = scenario_ids
    if scope is None:
        scope = sorted(set(Response.objects.filter(study=study).values_list("scenario_id", flat=True)))
    report.icc_units = group_agreements_sync(study=study, evaluations=evaluations, scenario_ids=scope)
    event_counter_add(name=AGREEMENT_RECOMPUTES)  # in the transaction: counted when committed
    return report


# --- routing --------------------------------------------------------------------------


def calibrator_loads() -> dict[int, int]:
    """Eligible calibrators (raters who may calibrate and can log in, see ``calibrators_who_can_log_in``) ->
    open assignments (active, sheet not yet submitted), the measure of "least loaded"."""
    loads = dict.fromkeys(sorted(calibrators_who_can_log_in()), 0)
    open_work = Assignment.objects.filter(rater_id__in=list(loads), archived_at__isnull=True).values_list(
        "rater_id", "sheet__status"
    )
    for rater_id, status in open_work:
        if status != SheetStatus.SUBMITTED:
            loads[rater_id] += 1
    return loads


def _route(evaluations: list[Evaluation], *, actor: User | None, report: RecomputeReport) -> None:
    idle = [
        e.state.calibration.assignment_id
        for e in evaluations
        if e.determined and not e.flagged and e.state.calibration and not e.state.calibration.has_work
    ]
    if idle:
        # one by one, as a group's reassignment does: an opened sheet gets its archive event, an
        # unopened assignment an audit event (hostile pass 25: this bulk update left neither)
        for assignment in Assignment.objects.filter(pk__in=idle, archived_at__isnull=True):
            assignment_archive(assignment=assignment, actor=actor, reason=ARCHIVED_UNFLAGGED)
        for e in evaluations:
            if e.state.calibration and e.state.calibration.assignment_id in idle:
                e.state.calibration = None
        report.archived.extend(idle)
    # a response the study's opted-in judge calibrates needs no human calibrator
    needing = [e for e in evaluations if e.flagged and e.state.calibration is None and not e.judge_calibrated]
    if not needing:
        return
    loads = calibrator_loads()
    trained = raters_trained_on(response_ids=[e.state.response_id for e in needing])
    responses = Response.objects.select_related("study").in_bulk([e.state.response_id for e in needing])
    for e in needing:
        # nor a calibrator who saw this response's reference sheet in training
        busy = e.state.assigned_rater_ids | trained.get(e.state.response_id, set())
        choice = min(
            (uid for uid in loads if uid not in busy), key=lambda uid: (loads[uid], uid), default=None
        )
        if choice is None:
            report.unassigned.append(e.state.response_id)
            continue
        response = responses[e.state.response_id]
        try:
            with transaction.atomic():
                assignment = Assignment.objects.create(
                    rater_id=choice,
                    response_id=response.pk,
                    role=AssignmentRole.CALIBRATION,
                    group_id=e.state.group_id,
                    created_by=actor,
                )
                audit_record(
                    actor=actor,
                    action="calibration.route",
                    target=response,
                    study=response.study,
                    changes={"calibrator": [None, choice]},
                    reason=ROUTED_FLAGGED,
                )
        except IntegrityError:  # assigned meanwhile: the constraint keeps it to one
            continue
        loads[choice] += 1
        e.state.assigned_rater_ids.add(choice)
        report.routed.append(assignment.pk)
        _attach_new_calibration(e, assignment)


def _attach_new_calibration(e: Evaluation, assignment: Assignment) -> None:
    e.state.calibration = SheetState(
        assignment_id=assignment.pk,
        rater_id=assignment.rater_id,
        role=AssignmentRole.CALIBRATION,
        group_id=assignment.group_id,
        sheet_id=None,
        status=None,
        version=0,
        totals=None,
    )


def calibration_assign(*, response_id: int, calibrator: User, actor: User | None) -> Assignment:
    """An admin chooses (or changes) the calibrating rater of a flagged response. A calibrator who has
    already submitted cannot be replaced (reopen the sheet first); a replaced calibrator's draft stays on the
    archived assignment."""
    with transaction.atomic():
        response = Response.objects.get(pk=response_id)
        _lock_scenarios([response.scenario_id])
        study = Study.objects.get(pk=response.study_id)
        rubric = load_rubric(study.rubric_version)
        state = states_load(study=study, response_ids=[response.pk], include_withdrawn=True)[0]
        evaluation = response_evaluate(
            state=state,
            threshold=float(study.agreement_threshold),
            rule=study.final_score_rule,
            rubric=rubric,
            level=study_level_rule(study),
        )
        if response.status == ResponseStatus.WITHDRAWN:
            raise CalibrationError(_("This response has been withdrawn."))
        if not evaluation.flagged:
            raise CalibrationError(_("Only responses below the agreement threshold go to a calibrator."))
        profile = getattr(calibrator, "rater_profile", None)
        if not calibrator.is_active or profile is None or not profile.can_calibrate:
            raise CalibrationError(_("This user may not calibrate."))
        if not calibrator_can_log_in(calibrator):
            raise CalibrationError(
                _(
                    "This account cannot log in (no password or invitation, or a demo account outside demo mode)."
                )
            )
        current = state.calibration
        if current is not None and current.rater_id == calibrator.pk:
            return Assignment.objects.get(pk=current.assignment_id)
        if calibrator.pk in state.assigned_rater_ids:
            raise CalibrationError(_("This rater already scores this response."))
        if calibrator.pk in raters_trained_on(response_ids=[response.pk]).get(response.pk, ()):
            raise CalibrationError(
                _("This rater trained on a copy of this response and has seen its reference scores.")
            )
        if current is not None:
            if current.submitted:
                raise CalibrationError(
                    _("The current calibrator has submitted; reopen that sheet before reassigning.")
                )
            previous = Assignment.objects.get(pk=current.assignment_id)
            assignment_archive(assignment=previous, actor=actor, reason=ARCHIVED_REASSIGNED)
        assignment = Assignment.objects.create(
            rater=calibrator,
            response=response,
            role=AssignmentRole.CALIBRATION,
            group_id=state.group_id,
            created_by=actor,
        )
        before = current.rater_id if current is not None else None
        changes = {"calibrator": [before, calibrator.pk]}
        audit_record(actor=actor, action="calibration.assign", target=response, study=study, changes=changes)
        _recompute(study=study, scenario_ids=[response.scenario_id], actor=actor)
    return assignment


# --- decisions, final scores, statuses --------------------------------------------------


def _mean_totals(totals: list[dict[str, Any]]) -> tuple[Decimal, dict[str, Any], dict[str, Any]]:
    """Mean overall (halves kept, two decimals), step and dimension scores."""
    n = len(totals)
    overall = (sum((Decimal(t["overall"]) for t in totals), Decimal(0)) / n).quantize(Decimal("0.01"))
    steps = {k: sum(t["steps"][k] for t in totals) / n for k in totals[0]["steps"]}
    dims = {k: sum(t["dimensions"][k] for t in totals) / n for k in totals[0]["dimensions"]}
    return overall, steps, dims


def final_score_set_mean(
    *, response: Response, sheets: list[ScoreSheet], rule: str, note: str = ""
) -> FinalScore:
    """Final score = mean of the given sheets' totals (halves kept), recording the sheets."""
    overall, steps, dims = _mean_totals([s.totals for s in sheets])
    final, _created = FinalScore.objects.update_or_create(
        response=response,
        defaults={
            "overall": overall,
            "steps": steps,
            "dimensions": dims,
            "rule": rule,
            "calibrated": rule != FinalScoreRule.MEAN_OF_PAIR,
            "note": note,
        },
    )
    final.sheets.set(sheets)
    return final


def _final_sheets_of(e: Evaluation) -> tuple[list[dict[str, Any]], set[int]]:
    """The cached totals and the sheet ids of the final-score sheets (always submitted ones)."""
    totals: list[dict[str, Any]] = []
    sheet_ids: set[int] = set()
    for sheet in e.final_sheets:
        assert sheet.totals is not None and sheet.sheet_id is not None, "final-score sheets are submitted"
        totals.append(sheet.totals)
        sheet_ids.add(sheet.sheet_id)
    return totals, sheet_ids


def _final_scores_sync(evaluations: list[Evaluation]) -> None:
    ids = [e.state.response_id for e in evaluations]
    existing = {f.response_id: f for f in FinalScore.objects.filter(response_id__in=ids)}
    through = FinalScore.sheets.through
    linked: dict[int, set[int]] = defaultdict(set)
    for final_id, sheet_id in through.objects.filter(finalscore__response_id__in=ids).values_list(
        "finalscore_id", "scoresheet_id"
    ):
        linked[final_id].add(sheet_id)
    now = timezone.now()
    to_create, to_update, relink, to_delete = [], [], {}, []
    for e in evaluations:
        current = existing.get(e.state.response_id)
        if not e.final_sheets:
            if current is not None and current.rule != FinalScoreRule.IMPORTED:
                to_delete.append(current.pk)
            continue
        totals, sheet_ids = _final_sheets_of(e)
        overall, steps, dims = _mean_totals(totals)
        values = {
            "overall": overall,
            "steps": steps,
            "dimensions": dims,
            "rule": e.final_rule,
            "calibrated": e.calibrated,
            "judge_calibrated": e.judge_calibrated,
            "note": e.note,
        }
        if current is None:
            final = FinalScore(response_id=e.state.response_id, **values)
            to_create.append((final, sheet_ids))
            continue
        if changed := changes_of(current, values):
            to_update.append((current.pk, {**changed, "computed_at": now}))
        if linked.get(current.pk, set()) != sheet_ids:
            relink[current.pk] = sheet_ids
    if to_delete:
        FinalScore.objects.filter(pk__in=to_delete).delete()
    rows_update(FinalScore, to_update)
    if to_create:
        FinalScore.objects.bulk_create([f for f, _ in to_create])
        relink.update({f.pk: sheet_ids for f, sheet_ids in to_create})
    if relink:
        through.objects.filter(finalscore_id__in=list(relink)).delete()
        through.objects.bulk_create(
            through(finalscore_id=final_id, scoresheet_id=sheet_id)
            for final_id, sheet_ids in relink.items()
            for sheet_id in sorted(sheet_ids)
        )


def _decisions_sync(evaluations: list[Evaluation]) -> None:
    """Every flagged response with a calibrator has its CalibrationDecision row,
    pointing at the active calibration assignment (the reason is written later)."""
    wanted = {
        e.state.response_id: e.state.calibration.assignment_id
        for e in evaluations
        if e.flagged and e.state.calibration is not None
    }
    if not wanted:
        return
    existing = dict(
        CalibrationDecision.objects.filter(response_id__in=list(wanted)).values_list(
            "response_id", "assignment_id"
        )
    )
    CalibrationDecision.objects.bulk_create(
        CalibrationDecision(response_id=rid, assignment_id=aid)
        for rid, aid in wanted.items()
        if rid not in existing
    )
    for rid, aid in wanted.items():
        if rid in existing and existing[rid] != aid:
            CalibrationDecision.objects.filter(response_id=rid).update(assignment_id=aid)


def _statuses_sync(evaluations: list[Evaluation]) -> None:
    changed = [e for e in evaluations if e.state.status != e.status]
    if not changed:
        return
    now = timezone.now()
    rows_update(Response, [(e.state.response_id, {"status": e.status, "updated_at": now}) for e in changed])
