"""What the agreement recompute works on: each response's sheets, read in bulk,
and its evaluation (PCC, flag, calibrated pair, final-score sheets).

Reads only; the writes are in ``calibration.services.calibration``. The evaluation
is a plain function of the sheets, the study's threshold and its final-score
rule, so re-running it always gives the same answer.

Rater slots: the pair of a scoring group is ``rater_a`` (slot "a") and
``rater_b`` (slot "b"); a response outside any group takes its primary raters
in assignment order. Scenario-wide ICC uses the slot as the rater label
("first"/"second primary rater"), because different groups have different pairs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from calibration.reliability import LevelRule, ccc, level_disagreement
from calibration.statistics import (
    REASON_MISSING_SHEET,
    REASON_ONE_SCORE,
    Closeness,
    PccResult,
    closer_primary,
    pcc,
    pcc_many,
    score_side,
)
from scoring.models import Assignment, AssignmentRole, ScoringGroup, SheetStatus
from studies.models import FinalScoreRule, Response, ResponseStatus, Study
from studies.rubric import Rubric, SheetTotals, normalized_vector

SLOTS = ("a", "b")


@dataclass(frozen=True)
class SheetState:
    """One active assignment and its sheet (if opened)."""

    assignment_id: int
    rater_id: int
    role: str
    group_id: int | None
    sheet_id: int | None
    status: str | None
    version: int
    totals: dict[str, Any] | None

    @property
    def submitted(self) -> bool:
        return self.status == SheetStatus.SUBMITTED and bool(self.totals)

    @property
    def has_work(self) -> bool:
        """Opened and changed, or submitted: work that must never be thrown away."""
        return self.sheet_id is not None and (self.submitted or self.version > 0)

    @property
    def submitted_totals(self) -> dict[str, Any] | None:
        """The cached totals of a submitted sheet (None while it is not submitted)."""
        return self.totals if self.submitted else None


@dataclass
class ResponseState:
    response_id: int
    research_id: str
    scenario_id: int
    condition_id: int
    status: str
    group_id: int | None = None
    slots: dict[str, SheetState] = field(default_factory=dict)
    calibration: SheetState | None = None
    n_primary: int = 0
    assigned_rater_ids: set[int] = field(default_factory=set)
    judge: SheetState | None = None  # the study's opted-in judge's sheet (Study.calibrating_judge)


def sheet_vector(totals: dict[str, Any], rubric: Rubric) -> list[float]:
    """The 23 normalized dimension scores of a sheet's cached totals."""
    cached = SheetTotals(
        dimensions={k: int(v) for k, v in totals["dimensions"].items()}, steps={}, overall=0, missing=()
    )
    return normalized_vector(cached, rubric)


def states_load(
    *,
    study: Study,
    scenario_ids: Iterable[int] | None = None,
    response_ids: Iterable[int] | None = None,
    include_withdrawn: bool = False,
) -> list[ResponseState]:
    """Every non-withdrawn response of the study (or of some scenarios, or some
    responses) with its active assignments and sheets: three queries whatever the size."""
    responses = Response.objects.filter(study=study)
    if not include_withdrawn:
        responses = responses.exclude(status=ResponseStatus.WITHDRAWN)
    if scenario_ids is not None:
        responses = responses.filter(scenario_id__in=list(scenario_ids))
    if response_ids is not None:
        responses = responses.filter(pk__in=list(response_ids))
    states = {
        row["id"]: ResponseState(
            response_id=row["id"],
            research_id=row["research_id"],
            scenario_id=row["scenario_id"],
            condition_id=row["condition_id"],
            status=row["status"],
        )
        for row in responses.values("id", "research_id", "scenario_id", "condition_id", "status")
    }
    groups = {
        g["id"]: g
        for g in ScoringGroup.objects.filter(study=study).values(
            "id", "scenario_id", "condition_id", "rater_a_id", "rater_b_id", "archived_at"
        )
    }
    active_group = {
        (g["scenario_id"], g["condition_id"]): g for g in groups.values() if g["archived_at"] is None
    }
    primaries: dict[int, list[SheetState]] = defaultdict(list)
    if study.calibrating_judge_id is not None:
        _judge_sheets_attach(states, judge_user_id=study.calibrating_judge_id)
    rows = (
        Assignment.objects.filter(response_id__in=list(states), archived_at__isnull=True)
        .order_by("created_at", "id")
        .values(
            "id",
            "response_id",
            "rater_id",
            "role",
            "group_id",
            "sheet__id",
            "sheet__status",
            "sheet__version",
            "sheet__totals",
        )
    )
    for row in rows:
        sheet = SheetState(
            assignment_id=row["id"],
            rater_id=row["rater_id"],
            role=row["role"],
            group_id=row["group_id"],
            sheet_id=row["sheet__id"],
            status=row["sheet__status"],
            version=row["sheet__version"] or 0,
            totals=row["sheet__totals"],
        )
        states[row["response_id"]].assigned_rater_ids.add(sheet.rater_id)
        if sheet.role == AssignmentRole.CALIBRATION:
            states[row["response_id"]].calibration = sheet
        else:
            primaries[row["response_id"]].append(sheet)
    for response_id, sheets in primaries.items():
        state = states[response_id]
        state.n_primary = len(sheets)
        pair = sheets[:2]
        raters = {s.rater_id for s in pair}
        group = None
        group_ids = {s.group_id for s in pair}
        only_group_id = next(iter(group_ids)) if len(group_ids) == 1 else None
        if only_group_id is not None and only_group_id in groups:
            group = groups[only_group_id]
        else:
            candidate = active_group.get((state.scenario_id, state.condition_id))
            if candidate and raters <= {candidate["rater_a_id"], candidate["rater_b_id"]}:
                group = candidate
        if group is not None:
            state.group_id = group["id"]
            order = {group["rater_a_id"]: "a", group["rater_b_id"]: "b"}
            unplaced = []
            for sheet in pair:
                slot = order.get(sheet.rater_id)
                if slot and slot not in state.slots:
                    state.slots[slot] = sheet
                else:
                    unplaced.append(sheet)
            for sheet in unplaced:
                state.slots[next(s for s in SLOTS if s not in state.slots)] = sheet
        else:
            for slot, sheet in zip(SLOTS, pair, strict=False):
                state.slots[slot] = sheet
    return list(states.values())


def _judge_sheets_attach(states: dict[int, ResponseState], *, judge_user_id: int) -> None:
    """The opted-in judge's active sheets (``all_objects``: the default manager leaves judges out)."""
    rows = (
        Assignment.all_objects.filter(
            response_id__in=list(states),
            rater_id=judge_user_id,
            role=AssignmentRole.JUDGE,
            archived_at__isnull=True,
        )
        .order_by("created_at", "id")
        .values("id", "response_id", "rater_id", "role", "sheet__id", "sheet__status", "sheet__version",
                "sheet__totals")
    )  # fmt: skip
    for row in rows:
        sheet = SheetState(
            assignment_id=row["id"],
            rater_id=row["rater_id"],
            role=row["role"],
            group_id=None,
            sheet_id=row["sheet__id"],
            status=row["sheet__status"],
            version=row["sheet__version"] or 0,
            totals=row["sheet__totals"],
        )
        if sheet.submitted:  # the latest submitted sheet of the judge counts
            states[row["response_id"]].judge = sheet


@dataclass(frozen=True)
class Evaluation:
    state: ResponseState
    before: PccResult
    determined: bool  # both primary sheets submitted
    flagged: bool
    calibrated: bool  # flagged and the calibrator's sheet is submitted
    closeness: Closeness | None
    after_pcc: float | None
    vectors: dict[str, list[float]]  # "a", "b", "c" (calibrator) when submitted
    after_slots: dict[str, list[float]] | None  # the pair used after calibration, by slot
    final_sheets: tuple[SheetState, ...]
    final_rule: str | None
    note: str
    status: str
    judge_calibrated: bool = False  # the opted-in judge's sheet stood in for the calibrator
    # why it is flagged: "pcc" (the study's rule), "ccc" and "total" (the level rule, when on)
    flag_reasons: tuple[str, ...] = ()


LEVEL_RULE_OFF = LevelRule()


def study_level_rule(study: Study) -> LevelRule:
    """The study's second routing criterion (beyond the study; off while both parts are empty)."""
    ccc_below = study.level_ccc_below
    total_over = study.level_total_over
    return LevelRule(
        ccc_below=float(ccc_below) if ccc_below is not None else None,
        total_difference_over=float(total_over) if total_over is not None else None,
    )


def _overall(sheet: SheetState) -> float | None:
    totals = sheet.submitted_totals or {}
    value = totals.get("overall")
    return float(value) if value is not None else None


def _state_vectors(state: ResponseState, rubric: Rubric) -> dict[str, list[float]]:
    """The normalized vectors of the submitted sheets: "a", "b", "c" (the calibrator) and "j"
    (the study's opted-in judge)."""
    sheets = (
        ("a", state.slots.get("a")),
        ("b", state.slots.get("b")),
        ("c", state.calibration),
        ("j", state.judge),
    )
    return {
        key: sheet_vector(totals, rubric)
        for key, sheet in sheets
        if sheet is not None and (totals := sheet.submitted_totals) is not None
    }


def _same_side(vector_a: list[float], vector_b: list[float], rubric: Rubric) -> bool:
    """Both scores of a one-dimension rubric on the same side of its scale's middle (normalized)."""
    [only] = rubric.dimensions
    low, high = only.min / only.max, 1.0
    return score_side(vector_a[0], low=low, high=high) == score_side(vector_b[0], low=low, high=high)


def response_evaluate(
    *,
    state: ResponseState,
    threshold: float,
    rule: str,
    rubric: Rubric,
    vectors: dict[str, list[float]] | None = None,
    level: LevelRule = LEVEL_RULE_OFF,
) -> Evaluation:
    """PCC, flag and final-score sheets of one response (pure).

    Flagged = PCC at or below the threshold, or undefined (no variance): the study's
    analysis passes a response only when r > threshold, so r == threshold is flagged. A flagged
    response has no final score until its calibrator submits; then the study's
    rule picks the sheets. The "calibrated pair" used for the after-calibration
    statistics is always the calibrator and the closer primary rater.
    """
    a, b = state.slots.get("a"), state.slots.get("b")
    cal = state.calibration
    if vectors is None:
        vectors = _state_vectors(state, rubric)
    if state.n_primary:
        idle = ResponseStatus.SCORING
    else:
        idle = ResponseStatus.SCORING if cal else ResponseStatus.READY
    if "a" not in vectors or "b" not in vectors:
        return Evaluation(
            state=state, vectors=vectors, before=PccResult(None, None, REASON_MISSING_SHEET),
            determined=False, flagged=False, calibrated=False, closeness=None, after_pcc=None,
            after_slots=None, final_sheets=(), final_rule=None, note="", status=idle,
        )  # fmt: skip
    # The vectors are those of the state's submitted sheets, so both primary sheets are there.
    assert a is not None and b is not None
    if len(rubric.dimensions) == 1:  # one score has no PCC: the pair agrees on the same side (ours)
        before = PccResult(None, None, REASON_ONE_SCORE)
        reasons = [] if _same_side(vectors["a"], vectors["b"], rubric) else ["side"]
    else:
        before = pcc(vectors["a"], vectors["b"])
        # as released: passes only when r > threshold (r == threshold is flagged); undefined is flagged
        reasons = ["pcc"] if before.r is None or not before.r > threshold else []
    if level.on:  # beyond the study: a pair apart in level, however alike in pattern
        reasons += level_disagreement(
            rule=level,
            ccc_value=ccc(vectors["a"], vectors["b"]).ccc,
            total_a=_overall(a),
            total_b=_overall(b),
        )
    flag_reasons = tuple(reasons)
    flagged = bool(flag_reasons)
    if not flagged:
        return Evaluation(
            state=state, vectors=vectors, before=before, determined=True, flagged=False,
            calibrated=False, closeness=None, after_pcc=before.r,
            after_slots={"a": vectors["a"], "b": vectors["b"]}, final_sheets=(a, b),
            final_rule=FinalScoreRule.MEAN_OF_PAIR, note="", status=ResponseStatus.FINAL,
        )  # fmt: skip
    by_judge = "c" not in vectors and "j" in vectors and state.judge is not None
    if by_judge:  # the study's opt-in: the judge is the third rater until a human calibrator submits
        cal = state.judge
        vectors = {**vectors, "c": vectors["j"]}
    if "c" not in vectors:
        return Evaluation(
            state=state, vectors=vectors, before=before, determined=True, flagged=True,
            calibrated=False, closeness=None, after_pcc=None, after_slots=None, final_sheets=(),
            final_rule=None, note="", status=ResponseStatus.CALIBRATION, flag_reasons=flag_reasons,
        )  # fmt: skip
    assert cal is not None  # "c" is the vector of the calibrator's submitted sheet
    closeness = closer_primary(vectors["c"], vectors["a"], vectors["b"])
    closer = a if closeness.slot == "a" else b
    after = closeness.pcc_a if closeness.slot == "a" else closeness.pcc_b
    after_slots = {"a": vectors["a"], "b": vectors["b"]}
    after_slots["b" if closeness.slot == "a" else "a"] = vectors["c"]
    if rule == FinalScoreRule.MEAN_OF_THREE:
        final_sheets: tuple[SheetState, ...] = (a, b, cal)
    elif rule == FinalScoreRule.CALIBRATOR_ONLY:
        final_sheets = (cal,)
    else:
        rule = FinalScoreRule.CALIBRATOR_AND_CLOSER
        final_sheets = (cal, closer)

    def fmt(result: PccResult) -> str:
        return "undefined" if result.r is None else f"{result.r:.3f}"

    note = (
        ("Calibrated by the LLM judge as third rater (study opt-in). " if by_judge else "Calibrated. ")
        + f"Closer primary rater: Rater {closeness.slot.upper()} (by {closeness.by}; "
        f"PCC with the calibrator: Rater A {fmt(closeness.pcc_a)}, Rater B {fmt(closeness.pcc_b)})."
    )
    return Evaluation(
        state=state, vectors=vectors, before=before, determined=True, flagged=True,
        calibrated=True, closeness=closeness, after_pcc=after.r, after_slots=after_slots,
        final_sheets=final_sheets, final_rule=rule, note=note, status=ResponseStatus.FINAL,
        judge_calibrated=by_judge, flag_reasons=flag_reasons,
    )  # fmt: skip


def responses_evaluate(
    *,
    states: list[ResponseState],
    threshold: float,
    rule: str,
    rubric: Rubric,
    level: LevelRule = LEVEL_RULE_OFF,
) -> list[Evaluation]:
    """``response_evaluate`` of many responses. Every PCC they may need (the pair, and
    the calibrator with each primary rater) is computed first in one vectorized call."""
    vectors = [_state_vectors(state, rubric) for state in states]
    pairs = []
    for v in vectors:
        if "a" in v and "b" in v:
            pairs.append((v["a"], v["b"]))
            for third in ("c", "j"):
                if third in v:
                    pairs += [(v[third], v["a"]), (v[third], v["b"])]
    pcc_many(pairs)  # fills the memo that response_evaluate reads
    return [
        response_evaluate(state=s, threshold=threshold, rule=rule, rubric=rubric, vectors=v, level=level)
        for s, v in zip(states, vectors, strict=True)
    ]
