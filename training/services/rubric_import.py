"""A study's own rubric: imported from a rubric file (docs/rubric-format.md), or chosen among
the shipped rubrics and the study's stored versions, before any sheet of the study exists."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from studies.models import Study, TaskKind
from studies.rubric import Rubric, RubricError, load_rubric, parse_rubric
from studies.rubric.cgpst import version_is_cgpst
from studies.rubric.loader import rubric_data
from studies.rubric_sheet import rubric_file_read
from studies.services.audit import audit_record
from studies.services.studies import CGPST_RUBRIC_REFUSED
from training.models import RubricRevision
from training.selectors.rubric import study_rubric_versions, study_sheets
from training.services.training_set import TrainingError

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# A study's text edits add ".s<study>.r<n>" to the version, and a version has 40 characters.
IMPORTED_VERSION_MAX = 28
# the names ``rubric_revise`` gives a study's text edits: never taken by an imported rubric
EDITED_VERSION = re.compile(r"\.s\d+\.r\d+$")


def _stored_document(version: str) -> dict[str, object] | None:
    try:
        return rubric_data(version)
    except RubricError:
        return None


def rubric_import(*, study: Study, content: bytes, file_name: str, actor: User | None) -> Rubric:
    """Check a rubric file (the format's JSON or YAML, or an Excel scoring sheet whose notes mark
    its score cells) and store it as a version of the study (not yet the study's: see
    ``study_rubric_choose``). RubricError names every problem and nothing is stored. The same
    document imported again gives its version back; a version name taken by another document
    is refused."""
    document = rubric_file_read(content=content, file_name=file_name)
    rubric = parse_rubric(document)
    if EDITED_VERSION.search(rubric.version):
        raise RubricError(
            [
                f"version: {rubric.version!r} ends as a study's edited versions are named (.s<study>.r<n>); choose another"
            ]
        )
    if len(rubric.version) > IMPORTED_VERSION_MAX:
        raise RubricError(
            [
                f"version: at most {IMPORTED_VERSION_MAX} characters for an imported rubric ({len(rubric.version)} given)"
            ]
        )
    taken = RubricError(
        [f"version: {rubric.version!r} exists with other content; give your rubric a new version"]
    )
    existing = _stored_document(rubric.version)
    if existing is not None:
        if existing != document:
            raise taken
        return rubric
    try:
        with transaction.atomic():
            RubricRevision.objects.create(
                version=rubric.version,
                study=study,
                origin=RubricRevision.Origin.IMPORTED,
                file_name=file_name[:200],
                data=document,
                created_by=actor,
            )
            audit_record(
                actor=actor,
                action="rubric.import",
                target=rubric.version,
                study=study,
                changes={"version": [None, rubric.version], "file": [None, file_name[:200]]},
            )
    except IntegrityError as exc:  # imported at the same moment by someone else
        if _stored_document(rubric.version) != document:
            raise taken from exc
    return rubric


def study_rubric_choose(*, study: Study, version: str, actor: User | None) -> Rubric:
    """Make ``version`` (a shipped rubric or one of the study's stored versions) the study's
    rubric. Refused once the study has a score sheet (live, training or imported): sheets of
    one study are scored on one rubric."""
    if study.task_kind != TaskKind.CGPST and version_is_cgpst(version):
        raise TrainingError(str(CGPST_RUBRIC_REFUSED))
    if version not in study_rubric_versions(study=study):
        raise TrainingError(_("Unknown rubric version for this study: %(v)s") % {"v": version})
    rubric = load_rubric(version)
    with transaction.atomic():
        locked = Study.objects.select_for_update().get(pk=study.pk)
        if locked.rubric_version == version:
            raise TrainingError(_("The study already uses this rubric."))
        if study_sheets(study=study).exists():
            raise TrainingError(
                _(
                    "This study already has score sheets: its rubric can no longer be replaced. "
                    "Edit its texts instead, or start a new study for another rubric."
                )
            )
        Study.objects.filter(pk=study.pk).update(rubric_version=version)
        audit_record(
            actor=actor,
            action="study.rubric",
            target=study,
            study=study,
            changes={"rubric_version": [locked.rubric_version, version]},
        )
    study.rubric_version = version
    return rubric
