"""Reads of the training set: a trainee's own view (blind-safe), feedback, the admin's overview."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _

from calibration.selectors.comparison_items import comparison_items
from core.accounts.roles import RATER
from scoring.models import Assignment, AssignmentRole, ScoreSheet, SheetLevel
from scoring.selectors import response_items_by_step, sheets_entries_get
from studies.blind_text import WORD, BlindTerm, blind_spans
from studies.models import Study
from studies.rubric import Label, Rubric, ScoreSpec, SheetEntries, load_rubric
from studies.selectors import study_blind_terms
from training.feedback import DimensionGap, Feedback, sheet_feedback, training_pcc
from training.models import RaterQualification, TrainingResponse, TrainingSettings
from training.selectors.qualification import studies_with_training_set, training_open_to

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def training_settings_of(*, study: Study) -> TrainingSettings:
    """The study's training settings (the defaults, unsaved, when it has none yet)."""
    return TrainingSettings.objects.filter(study=study).first() or TrainingSettings(study=study)


def qualification_threshold(*, study: Study, settings: TrainingSettings | None = None) -> float:
    settings = settings or training_settings_of(study=study)
    return float(settings.threshold if settings.threshold is not None else study.agreement_threshold)


def _status(sheet: ScoreSheet | None) -> str:
    if sheet is None or (not sheet.is_submitted and not sheet.version):
        return "not_started"
    return sheet.status


def rater_training_home(*, user: User) -> list[dict[str, Any]]:
    """Per active study with a training set: the rater's progress and their training
    responses by blind code only (no research ID, model, condition or other rater)."""
    studies = studies_with_training_set()
    out = []
    for study in studies:
        settings = training_settings_of(study=study)
        q = RaterQualification.objects.filter(rater=user, study=study).first()
        items = []
        for a in (
            Assignment.objects.filter(
                rater=user,
                role=AssignmentRole.TRAINING,
                archived_at__isnull=True,
                response__training__study=study,
            )
            .select_related("response__scenario", "sheet")
            .order_by("order_key", "id")
        ):
            sheet = getattr(a, "sheet", None)
            items.append({"code": a.blind_code, "theme": a.response.scenario.theme, "status": _status(sheet)})
        n_training = training_open_to(rater=user, study=study).count()
        out.append(
            {
                "study": study,
                "threshold": qualification_threshold(study=study, settings=settings),
                "required": settings.required_sheets,
                "passed": q.passed if q else 0,
                "attempts": q.attempts if q else 0,
                "qualified": bool(q and q.qualified_at),
                "cleared": bool(q and q.may_score_live),
                "items": items,
                "can_start": len(items) < n_training,
            }
        )
    return out


def training_feedback_get(*, assignment: Assignment, lang: str) -> dict[str, Any]:
    """The feedback on a submitted training sheet: reference values and gaps only."""
    training = TrainingResponse.objects.select_related("study").get(response_id=assignment.response_id)
    sheet = assignment.sheet
    rubric = load_rubric(sheet.rubric_version)
    threshold = qualification_threshold(study=training.study)
    feedback: Feedback = sheet_feedback(
        totals=sheet.totals, reference=training.reference, rubric=rubric, threshold=threshold
    )
    q = RaterQualification.objects.filter(rater_id=assignment.rater_id, study=training.study).first()
    settings = training_settings_of(study=training.study)
    return {
        "feedback": feedback,
        "cmp": _items_against_reference(training=training, sheet=sheet, rubric=rubric, lang=lang),
        "steps": [
            {
                "number": n,
                "name": rubric.step(n).name.text(lang),
                "yours": yours,
                "reference": ref,
                "diff": yours - ref,
            }
            for n, yours, ref in feedback.steps
        ],
        "dimensions": [_gap_row(g, lang) for g in feedback.dimensions],
        "missed": [_guideline(g, rubric, lang) for g in feedback.missed_most],
        "qualified": bool(q and q.qualified_at),
        "passed_count": q.passed if q else 0,
        "required": settings.required_sheets,
    }


def _items_against_reference(
    *, training: TrainingResponse, sheet: ScoreSheet, rubric: Rubric, lang: str
) -> dict[str, Any]:
    """The trainee's sheet item by item beside each reference sheet (unnamed: "Reference 1",
    "Reference 2"), every score with its level's text, differences marked. A reference imported
    at dimension level (the study's Excel layout) has no items: it is left out here, and with no
    item-level reference there is no comparison (``dimension_level``: the page says why)."""
    chosen = list(training.reference_sheets.select_related("assignment").order_by("pk"))
    references = [s for s in chosen if s.level != SheetLevel.DIMENSIONS]
    if chosen and not references:
        return {"column_labels": [], "items": [], "dimension_level": True}
    entries = sheets_entries_get(sheets=[sheet, *references], rubric=rubric)
    terms = _names_a_comment_must_not_give(training=training, references=references)
    for reference in references:
        _comments_naming_withheld(entries[reference.pk], terms)
    labels = [_("Yours")]
    if len(references) == 1:
        labels.append(_("Reference"))
    else:
        labels += [_("Reference %(n)s") % {"n": n} for n in range(1, len(references) + 1)]
    return {
        "column_labels": labels,
        "items": comparison_items(
            rubric=rubric,
            sheets=[entries[s.pk] for s in (sheet, *references)],
            items=response_items_by_step(response=training.response),
            lang=lang,
            levels=True,
        ),
    }


# a name shorter than this (a username "li") is prose too often to withhold a comment for
_SHORTEST_NAME = 3


def _names_a_comment_must_not_give(
    *, training: TrainingResponse, references: list[ScoreSheet]
) -> list[BlindTerm]:
    """What the review gate holds a response for (its study's catalogue and the source's own model
    and condition), and the people who scored it: the reference sheets' raters and the live
    response's (usernames, full names, rater IDs)."""
    source = training.source
    terms = study_blind_terms(
        study=training.study,
        model=source.model if source else None,
        condition=source.condition if source else None,
    )
    rater_ids = {s.assignment.rater_id for s in references}
    if source is not None:
        rater_ids |= set(Assignment.objects.filter(response=source).values_list("rater_id", flat=True))
    people = get_user_model().objects.filter(pk__in=rater_ids)
    for username, first, last, code in people.values_list(
        "username", "first_name", "last_name", "rater_profile__rater_code"
    ):
        full = f"{first} {last}".strip()
        terms += [BlindTerm(n, WORD) for n in (username, full, code) if n and len(n) >= _SHORTEST_NAME]
    return terms


def _comments_naming_withheld(entries: SheetEntries, terms: list[BlindTerm]) -> None:
    """A reference sheet's comments as a trainee reads them: one that names a model, a strategy, a
    role, a condition or a person is replaced by a note (hostile pass 24: comments were shown
    word for word, and a comment can sign itself or guess the model)."""
    note = _("(A comment of the reference is withheld here: it names a model, a role or a person.)")
    for number, comment in entries.comments.items():
        if comment and blind_spans(comment, terms):
            entries.comments[number] = note
    for criterion in entries.criteria:
        if criterion.comment and blind_spans(criterion.comment, terms):
            criterion.comment = note
    for idea in (idea for ideas in entries.ideas.values() for idea in ideas):
        if idea.comment and blind_spans(idea.comment, terms):
            idea.comment = note


def _gap_row(gap: DimensionGap, lang: str) -> dict[str, Any]:
    return {
        "step": gap.step,
        "label": gap.spec.label.text(lang),
        "yours": gap.yours,
        "reference": gap.reference,
        "diff": gap.difference,
        "max": gap.spec.max,
    }


def _level_text(spec: ScoreSpec, score: float, lang: str) -> str:
    level = next((lv for lv in spec.levels if lv.score == round(score)), None)
    return level.text(lang) if level else ""


def _guideline(gap: DimensionGap, rubric: Rubric, lang: str) -> dict[str, Any]:
    """What the rubric says about a dimension the trainee missed: the step's guideline,
    the dimension's description, and the level texts of their score and the reference."""
    step = rubric.step(gap.step)
    return {
        **_gap_row(gap, lang),
        "guideline": (gap.spec.guideline or step.guideline or Label("", "")).text(lang),
        "platform_levels": gap.spec.levels_source == "platform",
        "description": gap.spec.description.text(lang) if gap.spec.description else "",
        "your_level": _level_text(gap.spec, gap.yours, lang),
        "reference_level": _level_text(gap.spec, gap.reference, lang),
    }


def training_admin_overview(*, study: Study) -> dict[str, Any]:
    """For admins: the training set (with research IDs and references) and every rater's
    qualification and training results."""
    settings = training_settings_of(study=study)
    threshold = qualification_threshold(study=study, settings=settings)
    responses = list(
        TrainingResponse.objects.filter(study=study)
        .select_related("response", "source")
        .order_by("created_at")
    )
    quals = {
        q.rater_id: q for q in RaterQualification.objects.filter(study=study).select_related("override_by")
    }
    results: dict[int, list[float | None]] = {}
    for rater_id, version, totals, reference in ScoreSheet.objects.filter(
        assignment__role=AssignmentRole.TRAINING,
        assignment__response__training__study=study,
        status="submitted",
    ).values_list(
        "assignment__rater_id", "rubric_version", "totals", "assignment__response__training__reference"
    ):
        results.setdefault(rater_id, []).append(
            training_pcc(totals=totals, reference=reference, rubric=load_rubric(version))[0]
        )
    raters = (
        get_user_model()
        .objects.filter(groups__name=RATER, is_active=True)
        .select_related("rater_profile")
        .order_by("username")
    )
    rows = []
    for user in raters:
        q = quals.get(user.pk)
        rows.append(
            {
                "user": user,
                "code": getattr(getattr(user, "rater_profile", None), "rater_code", None) or "",
                "pccs": results.get(user.pk, []),
                "qualification": q,
                "qualified": bool(q and q.qualified_at),
                "cleared": bool(q and q.may_score_live),
            }
        )
    return {"settings": settings, "threshold": threshold, "responses": responses, "raters": rows}
