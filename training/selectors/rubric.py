"""Reads of a study's rubric versions."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from scoring.models import ScoreSheet
from studies.models import Study, TaskKind
from studies.rubric import available_rubric_versions
from studies.rubric.cgpst import version_is_cgpst
from studies.rubric.loader import VERSION_NAME
from training.models import RubricRevision


def rubric_revision_data(version: str) -> dict[str, Any] | None:
    """The document of a stored rubric version (registered with ``studies.rubric``)."""
    if not VERSION_NAME.fullmatch(version):  # other names never reach the database
        return None
    return RubricRevision.objects.filter(version=version).values_list("data", flat=True).first()


def study_rubric_revisions(*, study: Study) -> list[RubricRevision]:
    return list(RubricRevision.objects.filter(study=study).select_related("created_by"))


def study_rubric_versions(*, study: Study) -> list[str]:
    """The rubrics a study may use: the shipped ones, then every imported one (whichever study
    it was imported for) and its own edited versions, oldest first; for a single-text or pairwise study, those
    without CGPST's shape (that rubric reads a CGPST task's six steps)."""
    stored = RubricRevision.objects.filter(
        Q(study=study) | Q(origin=RubricRevision.Origin.IMPORTED)
    ).values_list("version", flat=True)
    versions = [*available_rubric_versions(), *stored]
    if study.task_kind != TaskKind.CGPST:
        return [v for v in versions if not version_is_cgpst(v)]
    return versions


def study_sheets(*, study: Study) -> QuerySet[ScoreSheet]:
    """Every score sheet of the study: live, training or imported. While there is none, its
    rubric may still be replaced."""
    return ScoreSheet.objects.filter(assignment__response__study=study)


def study_rubric_state(*, study: Study) -> dict[str, int | bool]:
    """How many score sheets the study has, and so whether its rubric may still be replaced."""
    sheets = study_sheets(study=study).count()
    return {"sheets": sheets, "can_replace": sheets == 0}
