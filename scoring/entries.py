"""Entry paths: how one value on a score sheet is addressed, validated and applied.

Paths (the web form, the workbook import and the JSON import all use them):

- ``items.<1|3>.<pos>.classification``: a category, ``invalid:<type>`` or "" to clear
- ``items.<1|3>.<pos>.elaboration`` / ``.originality``: 0..2 (Yes items only) or None: an ideas
  step's item scores, by the rubric's keys
- ``items.4.<pos>.correctly_written`` (0..1) / ``.relevance`` (0..3) or None: a criteria
  step's item scores, by the rubric's keys
- ``items.<1|3|4>.<pos>.comment``: text
- ``dims.<dimension key>``, e.g. ``dims.s2.focus``: an integer in range, or None
- ``texts.<key>``: a copied text the rubric names (CGPST: condition_phrase, stem, kvp, purpose)
- ``comments.<step>``: text

Pure (no ORM): sheets are ``studies.rubric`` dataclasses. Only the messages of
refused values go through Django's gettext, which needs settings when it runs.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from studies.rubric import INVALID_PREFIX, IdeaEntry, Label, Rubric, SheetEntries

MAX_TEXT = 4000
# A whole number typed as text: ASCII digits only. ``"²".isdigit()`` and ``"⑦".isdigit()``
# are true, but int() refuses them, and other scripts' digits are not scores either.
ASCII_INTEGER = re.compile(r"[+-]?[0-9]{1,9}")


def _ascii_int(text: str) -> int:
    """int() of ASCII digits only; ValueError for anything else (unicode digits, "1_0", " 1")."""
    if not ASCII_INTEGER.fullmatch(text):
        raise ValueError(text)
    return int(text)


class EntryError(ValueError):
    """A value that cannot go on the sheet; the message is shown to the rater."""

    def __init__(self, path: str, message: str):
        super().__init__(message)
        self.path = path
        self.message = message


@dataclass(frozen=True)
class EntryPath:
    kind: str  # items | dims | texts | comments
    step: int = 0
    position: int = 0
    field: str = ""
    key: str = ""

    def __str__(self) -> str:
        if self.kind == "items":
            return f"items.{self.step}.{self.position}.{self.field}"
        if self.kind == "comments":
            return f"comments.{self.step}"
        return f"{self.kind}.{self.key}"


def _unknown(path: str) -> EntryError:
    return EntryError(str(path), _("Unknown field."))


# Paths already parsed, per rubric version (a version's rubric never changes): a whole
# sheet sends ~100 paths per save, each parsed the same way every time. Only valid paths
# are kept (bounded by the rubric), never an error (its message is in the rater's language).
_parsed: dict[tuple[str, str], EntryPath] = {}


def parse_path(rubric: Rubric, path: str) -> EntryPath:
    """Where ``path`` points on a sheet of ``rubric``; EntryError for an unknown or computed field."""
    if not isinstance(path, str):
        return _parse_path(rubric, path)
    key = (rubric.version, path)
    where = _parsed.get(key)
    if where is None:
        where = _parsed[key] = _parse_path(rubric, path)
    return where


def _parse_path(rubric: Rubric, path: str) -> EntryPath:
    parts = str(path).split(".")
    try:
        if parts[0] == "items" and len(parts) == 4:
            step, pos, name = _ascii_int(parts[1]), _ascii_int(parts[2]), parts[3]
            if not 1 <= step <= len(rubric.steps):
                raise _unknown(path)
            spec = rubric.step(step)
            allowed = {"comment"} | {s.key for s in spec.item_scores}
            if spec.kind == "ideas":
                allowed.add("classification")
            if not spec.has_items or not 1 <= pos <= spec.item_count or name not in allowed:
                raise _unknown(path)
            return EntryPath("items", step=step, position=pos, field=name)
        if parts[0] == "dims" and len(parts) == 3:
            key = f"{parts[1]}.{parts[2]}"
            dim = rubric.dimension(key)
            if dim.computed:
                raise EntryError(str(path), _("This total is computed, never typed."))
            return EntryPath("dims", step=dim.step, key=key)
        if parts[0] == "texts" and len(parts) == 2:
            for rubric_step in rubric.steps:
                if parts[1] in {t.key for t in rubric_step.texts}:
                    return EntryPath("texts", step=rubric_step.number, key=parts[1])
            raise _unknown(path)
        if parts[0] == "comments" and len(parts) == 2:
            step = _ascii_int(parts[1])
            if 1 <= step <= len(rubric.steps):
                return EntryPath("comments", step=step)
    except (ValueError, KeyError, IndexError) as exc:
        if isinstance(exc, EntryError):
            raise
        raise _unknown(path) from exc
    raise _unknown(path)


def _integer(path: str, value: Any, lo: int, hi: int, label: Label) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        value = "x"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and ASCII_INTEGER.fullmatch(value.strip()):
        value = int(value.strip())
    if not isinstance(value, int) or not lo <= value <= hi:
        raise EntryError(
            path,
            _("%(label)s must be a whole number from %(lo)s to %(hi)s.")
            # in the message's language, read only when refusing (a valid value needs no settings)
            % {"label": label.text(get_language() or "en"), "lo": lo, "hi": hi},
        )
    return value


def _text(path: str, value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise EntryError(path, _("Expected text."))
    if isinstance(value, float) and not math.isfinite(value):
        raise EntryError(path, _("Expected text."))
    text = str(value).replace("\x00", "")
    if len(text) > MAX_TEXT:
        raise EntryError(path, _("Text is longer than %(n)s characters.") % {"n": MAX_TEXT})
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate ("\ud800" in JSON): no database stores it
        raise EntryError(
            path,
            _("Text contains a character that is not valid Unicode (at position %(n)s).")
            % {"n": exc.start + 1},
        ) from exc
    return text


def clean_value(rubric: Rubric, entries: SheetEntries, where: EntryPath, value: Any) -> Any:
    """Validate ``value`` for ``where`` given the sheet's current entries."""
    path = str(where)
    if where.kind == "items":
        step = rubric.step(where.step)
        if where.field == "comment":
            return _text(path, value)
        if where.field == "classification":
            value = "" if value is None else str(value).strip()
            if value == "":
                return ""
            if value.startswith(INVALID_PREFIX):
                if value[len(INVALID_PREFIX) :] not in {t.key for t in step.invalid_types}:
                    raise EntryError(path, _("Not an invalid type of this step."))
                return value
            if value not in rubric.category_keys:
                raise EntryError(path, _("Unknown category."))
            return value
        spec = step.item_score(where.field)
        cleaned = _integer(path, value, spec.min, spec.max, spec.label)
        if step.kind == "ideas" and cleaned is not None:
            item = entries.ideas[where.step][where.position - 1]
            if not item.is_yes:
                if {s.key for s in step.item_scores} == set(IdeaEntry.COLUMNS):
                    raise EntryError(path, _("Only Yes items get Elaboration and Originality."))
                raise EntryError(path, _("Only Yes items are scored."))
        return cleaned
    if where.kind == "dims":
        dim = rubric.dimension(where.key)
        return _integer(path, value, dim.min, dim.max, dim.label)
    return _text(path, value)


def current_value(entries: SheetEntries, where: EntryPath) -> Any:
    if where.kind == "items":
        if where.step not in entries.ideas:  # a criteria step's item
            criterion = entries.criteria[where.position - 1]
            return criterion.comment if where.field == "comment" else criterion.score(where.field)
        idea = entries.ideas[where.step][where.position - 1]
        if where.field == "classification":
            return idea.classification
        return idea.comment if where.field == "comment" else idea.score(where.field)
    if where.kind == "dims":
        return entries.dimensions.get(where.key)
    if where.kind == "texts":
        return entries.texts.get(where.key, "")
    return entries.comments.get(where.step, "")


def apply_value(entries: SheetEntries, where: EntryPath, value: Any) -> list[tuple[EntryPath, Any, Any]]:
    """Set a cleaned value; returns every (path, old, new) it changed, including the
    item scores cleared when an item stops being a Yes item."""
    old = current_value(entries, where)
    changes = [] if old == value else [(where, old, value)]
    if where.kind == "items" and where.step not in entries.ideas:  # a criteria step's item
        criterion = entries.criteria[where.position - 1]
        if where.field == "comment":
            criterion.comment = value
        else:
            criterion.score_set(where.field, value)
    elif where.kind == "items":
        item = entries.ideas[where.step][where.position - 1]
        if where.field == "classification":
            if value.startswith(INVALID_PREFIX):
                item.category, item.invalid = "", value[len(INVALID_PREFIX) :]
            else:
                item.category, item.invalid = value, ""
            if not item.is_yes:  # only a Yes item is scored
                for name in item.scores_made():
                    changes.append(
                        (EntryPath("items", where.step, where.position, name), item.score(name), None)
                    )
                    item.score_set(name, None)
        elif where.field == "comment":
            item.comment = value
        else:
            item.score_set(where.field, value)
    elif where.kind == "dims":
        entries.dimensions[where.key] = value
    elif where.kind == "texts":
        entries.texts[where.key] = value
    else:
        entries.comments[where.step] = value
    return changes


def entries_from_changes(
    changes: list[tuple[str, Any]], rubric: Rubric, *, errors: list[EntryError] | None = None
) -> SheetEntries:
    """The sheet a list of changes produces, built in memory without a database.

    Raises the first EntryError; with ``errors`` given, collects every refused change
    there instead and goes on (imports list every problem at once)."""
    entries = SheetEntries.empty(rubric)
    for path, value in changes:
        try:
            where = parse_path(rubric, path)
            apply_value(entries, where, clean_value(rubric, entries, where, value))
        except EntryError as exc:
            if errors is None:
                raise
            errors.append(exc)
    return entries
