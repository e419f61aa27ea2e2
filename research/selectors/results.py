"""Reads for research output: final scores, responses and raw sheet scores as plain records
(``ScoreRecord`` and ``ResponseRecord`` are defined by the pure ``research.results``).

Every table is computed from ``FinalScore`` rows (overall, step totals and the
per-dimension means the calibration rules produced); the raw long table reads
each submitted sheet's totals (the cache of ``studies.rubric.sheet_totals``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from django.contrib.auth import get_user_model
from django.db.models import Count, Model, Q, QuerySet

from calibration.models import FinalScore
from research.records import RaterBlanks, ResponseRecord, ScoreRecord
from scoring.models import AssignmentRole, ItemScore, ScoreSheet, SheetStatus
from scoring.selectors import sheet_entries_get
from studies.models import Response, ResponseStatus, Study
from studies.rubric import load_rubric, sheet_totals

if TYPE_CHECKING:
    from studies.rubric import Rubric

_M = TypeVar("_M", bound=Model)


def _filtered(
    qs: QuerySet[_M], prefix: str, conditions: Iterable[str] | None, models: Iterable[str] | None
) -> QuerySet[_M]:
    if conditions:
        qs = qs.filter(**{f"{prefix}condition__letter__in": list(conditions)})
    if models:
        qs = qs.filter(**{f"{prefix}model__model_number__in": list(models)})
    return qs


def score_records_get(
    *, study: Study, conditions: Iterable[str] | None = None, models: Iterable[str] | None = None
) -> list[ScoreRecord]:
    rows = _filtered(
        FinalScore.objects.filter(response__study=study).exclude(response__status=ResponseStatus.WITHDRAWN),
        "response__",
        conditions,
        models,
    ).select_related("response__scenario", "response__model", "response__condition")
    return [
        ScoreRecord(
            response_id=f.response_id,
            research_id=f.response.research_id,
            scenario=f.response.scenario.code,
            model_number=f.response.model.model_number,
            model=f.response.model.name,
            condition=f.response.condition.letter,
            overall=float(f.overall),
            steps={int(k): float(v) for k, v in (f.steps or {}).items()},
            dimensions={k: float(v) for k, v in (f.dimensions or {}).items()},
            calibrated=f.calibrated,
        )
        for f in rows
    ]


def response_records_get(
    *, study: Study, conditions: Iterable[str] | None = None, models: Iterable[str] | None = None
) -> list[ResponseRecord]:
    rows = _filtered(
        Response.objects.filter(study=study).exclude(status=ResponseStatus.WITHDRAWN), "", conditions, models
    ).select_related("scenario", "model", "condition")
    blanks = rater_blanks_get(study=study)
    return [
        ResponseRecord(
            response_id=r.pk,
            scenario=r.scenario.code,
            model_number=r.model.model_number,
            model=r.model.name,
            condition=r.condition.letter,
            step1_blank_items=r.step1_blank_items,
            step3_blank_items=r.step3_blank_items,
            research_id=r.research_id,
            rater_blanks=tuple(blanks.get(r.pk, ())),
        )
        for r in rows
    ]


BLANK = "blank"  # the rubric's invalid type "Blank — no response provided"


def rater_blanks_get(*, study: Study, steps: tuple[int, ...] = (1, 3)) -> dict[int, list[RaterBlanks]]:
    """Per response, the items each primary rater marked Blank on a submitted sheet, per
    step, in assignment order (two queries)."""
    user_field = f"assignment__rater__{get_user_model().USERNAME_FIELD}"
    sheets = list(
        ScoreSheet.objects.filter(
            status=SheetStatus.SUBMITTED,
            assignment__response__study=study,
            assignment__archived_at__isnull=True,
            assignment__role=AssignmentRole.PRIMARY,
        )
        .order_by("assignment__response_id", "assignment__created_at", "assignment__id")
        .values_list(
            "pk", "assignment__response_id", "assignment__rater__rater_profile__rater_code", user_field
        )
    )
    counts: dict[tuple[int, int], int] = {}
    rows = (
        ItemScore.objects.filter(sheet__in=[s[0] for s in sheets], step__in=steps)
        .values("sheet_id", "step")
        .annotate(blanks=Count("id", filter=Q(invalid_type=BLANK)))
    )
    for row in rows:
        counts[(row["sheet_id"], row["step"])] = row["blanks"]
    out: dict[int, list[RaterBlanks]] = {}
    for sheet_id, response_id, code, username in sheets:
        by_step = {step: counts.get((sheet_id, step), 0) for step in steps}
        out.setdefault(response_id, []).append(RaterBlanks(rater=code or username, by_step=by_step))
    return out


RAW_HEADER = (
    "research_id",
    "blind_code",
    "scenario",
    "model",
    "condition",
    "rater",
    "role",
    "step",
    "dimension",
    "score",
    "active_minutes",  # the sheet's active scoring time in the web page (empty for imports)
)


def raw_score_rows_count(*, study: Study) -> int:
    return submitted_sheets(study).count()


def submitted_sheets(study: Study) -> QuerySet[ScoreSheet]:
    """The submitted sheets of the study's data: human raters' (not a judge's, not a probe's), not
    training, of active assignments (the raw table's and the release-layout export's)."""
    return ScoreSheet.objects.filter(
        status=SheetStatus.SUBMITTED,
        assignment__response__study=study,
        assignment__archived_at__isnull=True,
    ).exclude(assignment__role=AssignmentRole.TRAINING)  # training sheets are never research output


def stored_totals(*, sheet_id: int, totals: dict[str, Any] | None, rubric: Rubric) -> dict[str, Any]:
    """A sheet's kept totals (``ScoreSheet.totals``), computed from its entries for a sheet stored
    before totals were kept."""
    if (totals or {}).get("dimensions"):
        return totals  # type: ignore[return-value]
    sheet = ScoreSheet.objects.get(pk=sheet_id)
    return sheet_totals(sheet_entries_get(sheet=sheet, rubric=rubric), rubric).as_dict()


def raw_score_rows_iter(
    *, study: Study, on_sheet: Callable[[int], None] | None = None
) -> Iterator[tuple[Any, ...]]:
    """(response, rater, role, step, dimension, score) for every dimension of every submitted sheet
    (one query, streamed)."""
    username = f"assignment__rater__{get_user_model().USERNAME_FIELD}"
    sheets = (
        submitted_sheets(study)
        .order_by("assignment__response__research_id", "assignment__role", "assignment__rater_id")
        .values_list(
            "pk", "rubric_version", "totals", "assignment__response__research_id",
            "assignment__response__blind_code", "assignment__response__scenario__code",
            "assignment__response__model__name", "assignment__response__condition__letter",
            "assignment__rater__rater_profile__rater_code", username, "assignment__role", "active_seconds",
        )
    )  # fmt: skip
    for index, row in enumerate(sheets.iterator(chunk_size=1000), start=1):
        sheet_id, rubric_version, totals, research_id, blind_code, scenario, model, condition = row[:8]
        rater_code, rater_username, role, active_seconds = row[8:]
        active_minutes = round(active_seconds / 60, 2) if active_seconds else None
        rubric = load_rubric(rubric_version)
        totals = stored_totals(sheet_id=sheet_id, totals=totals, rubric=rubric)
        label = rater_code or rater_username
        scores = totals["dimensions"]
        for dim in rubric.dimensions:
            yield (
                research_id,
                blind_code,
                scenario,
                model,
                condition,
                label,
                role,
                dim.step,
                dim.key,
                scores.get(dim.key),
                active_minutes,
            )
        if on_sheet:
            on_sheet(index)
