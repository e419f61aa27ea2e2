"""A study's admin edits guidelines and level texts: every edit makes a new rubric version.

Paths (``|``-separated, as the edit form names its fields):
``step|<n>|<lang>`` (the step's guideline), ``guide|<n>|<key>|<lang>`` (a dimension's
guideline), ``level|<n>|<key>|<score>|<lang>`` (a level text; it becomes "edited").
"""

from __future__ import annotations

import copy
import re
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils.translation import gettext as _

from studies.models import Study
from studies.rubric import RubricError, parse_rubric
from studies.rubric.loader import rubric_data
from studies.services.audit import audit_record
from training.models import RubricRevision
from training.services.training_set import TrainingError

if TYPE_CHECKING:
    from django.contrib.auth.models import User

LANGS = ("en", "zh")


def _spec(step: dict[str, Any], key: str) -> dict[str, Any]:
    specs: list[dict[str, Any]] = [*step.get("dimensions", []), *step.get("item_scores", [])]
    for spec in specs:
        if spec["key"] == key:
            return spec
    raise KeyError(key)


def _slot(data: dict[str, Any], path: str) -> tuple[dict[str, Any], str]:
    """The JSON object and key a path writes to."""
    kind, n, *rest = path.split("|")
    step = data["steps"][int(n) - 1]
    if kind == "step" and len(rest) == 1:
        return step.setdefault("guideline", {"en": "", "zh": ""}), rest[0]
    if kind == "guide" and len(rest) == 2:
        return _spec(step, rest[0]).setdefault("guideline", {"en": "", "zh": ""}), rest[1]
    if kind == "level" and len(rest) == 3:
        level = next(lv for lv in _spec(step, rest[0])["levels"] if lv["score"] == int(rest[1]))
        return level, rest[2]
    raise KeyError(path)


def rubric_text(data: dict[str, Any], path: str) -> str:
    try:
        obj, lang = _slot(copy.deepcopy(data), path)
    except (KeyError, IndexError, ValueError, StopIteration):
        return ""
    text: str = obj.get(lang, "")
    return text


def rubric_revise(*, study: Study, changes: dict[str, str], actor: User | None) -> RubricRevision:
    """Apply text edits to the study's rubric as a new version and make it the study's.
    Sheets already opened keep their version. Nothing changed, an unknown path or a text
    left in only one language is refused, and nothing is stored."""
    base = study.rubric_version
    data = copy.deepcopy(rubric_data(base))
    applied = []
    for path, text in changes.items():
        text = (text or "").strip()
        try:
            obj, lang = _slot(data, path)
        except (KeyError, IndexError, ValueError, StopIteration) as exc:
            raise TrainingError(_("Unknown rubric text: %(path)s") % {"path": path}) from exc
        if lang not in LANGS:
            raise TrainingError(_("Unknown rubric text: %(path)s") % {"path": path})
        if obj.get(lang, "") != text:
            applied.append([path, obj.get(lang, ""), text])
            obj[lang] = text
            if path.startswith("level|"):
                obj["source"] = "edited"
    if not applied:
        raise TrainingError(_("Nothing was changed."))
    with transaction.atomic():
        Study.objects.select_for_update().filter(pk=study.pk).first()
        root = re.sub(r"\.s\d+\.r\d+$", "", base)
        n = RubricRevision.objects.filter(study=study).count() + 1
        data["version"] = f"{root}.s{study.pk}.r{n}"
        _drop_empty_guidelines(data)
        try:
            parse_rubric(data)
        except RubricError as exc:
            raise TrainingError(
                _("The edited rubric is not valid: %(error)s. Give every text in English and in Chinese.")
                % {"error": exc}
            ) from exc
        revision = RubricRevision.objects.create(
            version=data["version"], study=study, based_on=base, data=data, changes=applied, created_by=actor
        )
        Study.objects.filter(pk=study.pk).update(rubric_version=revision.version)
        audit_record(
            actor=actor,
            action="rubric.revise",
            target=revision.version,
            study=study,
            changes={"rubric_version": [base, revision.version], "texts": applied},
        )
    study.rubric_version = revision.version
    return revision


def _drop_empty_guidelines(data: dict[str, Any]) -> None:
    """A guideline emptied in both languages is removed (an empty one in only one is an error)."""
    for step in data["steps"]:
        for obj in (step, *step.get("dimensions", []), *step.get("item_scores", [])):
            if obj.get("guideline") == {"en": "", "zh": ""}:
                del obj["guideline"]
