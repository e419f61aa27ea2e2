"""Reads of a study's rubric versions."""

from __future__ import annotations

import re
from typing import Any

from django.db.models import Q

from scoring.models import ScoreSheet
from studies.models import Study
from studies.rubric import available_rubric_versions
from training.models import RubricRevision

# a rubric version's name (the format's pattern): other names never reach the database
REVISION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")


def rubric_revision_data(version: str) -> dict[str, Any] | None:
    """The document of a stored rubric version (registered with ``studies.rubric``)."""
    if not REVISION_NAME.fullmatch(version):
        return None
    return RubricRevision.objects.filter(version=version).values_list("data", flat=True).first()


def study_rubric_revisions(*, study: Study) -> list[RubricRevision]:
    return list(RubricRevision.objects.filter(study=study).select_related("created_by"))


def study_rubric_versions(*, study: Study) -> list[str]:
    """The rubrics a study may use: the shipped ones, then every imported one (whichever study
    it was imported for) and its own edited versions, oldest first."""
    stored = RubricRevision.objects.filter(
        Q(study=study) | Q(origin=RubricRevision.Origin.IMPORTED)
    ).values_list("version", flat=True)
    return [*available_rubric_versions(), *stored]


def study_rubric_state(*, study: Study) -> dict[str, int | bool]:
    """How many score sheets the study has (live, training or imported), and so whether its
    rubric may still be replaced (only while it has none)."""
    sheets = ScoreSheet.objects.filter(assignment__response__study=study).count()
    return {"sheets": sheets, "can_replace": sheets == 0}
