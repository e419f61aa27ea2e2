"""Reads of a study's rubric versions."""

from __future__ import annotations

import re
from typing import Any

from studies.models import Study
from training.models import RubricRevision

# the names ``rubric_revise`` gives (e.g. cgpst-v1.s3.r2): other names never reach the database
REVISION_NAME = re.compile(r"[A-Za-z0-9-]+\.s\d+\.r\d+")


def rubric_revision_data(version: str) -> dict[str, Any] | None:
    """The document of a stored rubric version (registered with ``studies.rubric``)."""
    if not REVISION_NAME.fullmatch(version):
        return None
    return RubricRevision.objects.filter(version=version).values_list("data", flat=True).first()


def study_rubric_revisions(*, study: Study) -> list[RubricRevision]:
    return list(RubricRevision.objects.filter(study=study).select_related("created_by"))
