"""What the scoring page and its script say besides the rubric's own texts: the
script's messages, readable names of entry paths (the "still missing" list) and of
grid errors, and the rubric's arithmetic for the script's instant totals."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from django.utils import translation
from django.utils.translation import gettext as _

from scoring.views.sheet_widgets import dom_id, text
from studies.rubric import Missing, Rubric, load_rubric


def grid_error_label(kind: str) -> str:
    return {
        "no_grid": _("No scoring grid found"),
        "missing_cells": _("Missing cells"),
        "ties": _("Tied scores in a column"),
        "not_permutation": _("Column is not a permutation of 1..n"),
        "wrong_total": _("Wrong row total"),
        "missing_rows": _("Solutions missing from the grid"),
    }.get(kind, kind)


_WHERE = (
    (re.compile(r"^Criterion (\d+)$"), lambda m: _("Criterion %(n)s") % {"n": m[1]}),
    (re.compile(r"^Solution (\d+)$"), lambda m: _("Solution %(n)s") % {"n": m[1]}),
    (re.compile(r"^Step (\d+)$"), lambda m: _("Step %(n)s") % {"n": m[1]}),
    (re.compile(r"^rows$"), lambda m: _("rows")),
)
_DETAIL = (
    (re.compile(r"^tied scores: ([\d, ]+)$"), lambda m: _("tied scores: %(s)s") % {"s": m[1]}),
    (re.compile(r"^(\d+) missing score\(s\)$"), lambda m: _("%(n)s missing score(s)") % {"n": m[1]}),
    (
        re.compile(r"^not a permutation of 1\.\.(\d+)$"),
        lambda m: _("not a permutation of 1..%(n)s") % {"n": m[1]},
    ),
    (
        re.compile(r"^(\d+) of (\d+) solutions scored$"),
        lambda m: _("%(n)s of %(m)s solutions scored") % {"n": m[1], "m": m[2]},
    ),
    (
        re.compile(r"^total (\d+) but scores add to (\d+)$"),
        lambda m: _("total %(t)s but scores add to %(s)s") % {"t": m[1], "s": m[2]},
    ),
    (re.compile(r"^no scoring grid found$"), lambda m: _("No scoring grid found")),
)


def grid_error_text(text: str, *, where: bool) -> str:
    """A grid error's place or detail in the page's language: the import stores them in
    English ("Criterion 4", "tied scores: 5"); an unknown form is shown as stored."""
    for pattern, translate in _WHERE if where else _DETAIL:
        if match := pattern.match(text):
            return translate(match)
    return text


def missing_label(*, rubric: Rubric, path: str, lang: str) -> str:
    """A readable name for an entry path (for the 'still missing' list)."""
    parts = path.split(".")
    try:
        if parts[0] == "items":
            step = rubric.step(int(parts[1]))
            item = f"{text(step.item_label, lang)} {parts[2]}"
            field = parts[3]
            if field == "classification":
                what = _("category or invalid type")
            else:
                what = text(step.item_score(field).label, lang)
            return _("Step %(n)s · %(item)s · %(what)s") % {"n": step.number, "item": item, "what": what}
        if parts[0] == "dims":
            dim = rubric.dimension(f"{parts[1]}.{parts[2]}")
            label = text(dim.label, lang)
            if any(text(t.label, lang) == label for t in rubric.step(dim.step).texts):
                # Step 2 scores the copied texts under their own names: say which is meant
                return _("Step %(n)s · %(what)s (score)") % {"n": dim.step, "what": label}
            return _("Step %(n)s · %(what)s") % {"n": dim.step, "what": label}
        if parts[0] == "texts":
            for step in rubric.steps:
                for t in step.texts:
                    if t.key == parts[1]:
                        return _("Step %(n)s · %(what)s (copied text)") % {
                            "n": step.number,
                            "what": text(t.label, lang),
                        }
        if parts[0] == "comments":
            step = rubric.step(int(parts[1]))
            label = text(step.comment.label, lang) if step.comment.label else _("comment")
            return _("%(step)s · %(what)s") % {"step": text(step.name, lang), "what": label}
    except (KeyError, IndexError, ValueError):
        pass
    return path


def missing_list(*, rubric: Rubric, missing: Iterable[Missing], lang: str) -> list[dict]:
    return [
        {
            "path": m.path,
            "id": dom_id(m.path),
            "step": m.step,
            "label": missing_label(rubric=rubric, path=m.path, lang=lang),
        }
        for m in missing
    ]


@lru_cache(maxsize=8)
def client_spec(*, rubric_version: str) -> dict:
    """The rubric's arithmetic for the script's instant totals (the server's are authoritative)."""
    rubric = load_rubric(rubric_version)
    return {
        "max_total": rubric.max_total,
        "steps": [
            {
                "number": s.number,
                "kind": s.kind,
                "item_count": s.item_count,
                "dimensions": [
                    {
                        "key": d.key,
                        "computed": d.computed,
                        # only where the rubric has it: a dimension needed for some scores of another
                        **(
                            {
                                "required_when": {
                                    "dimension": d.required_when[0],
                                    "values": list(d.required_when[1]),
                                }
                            }
                            if d.required_when
                            else {}
                        ),
                    }
                    for d in s.dimensions
                ],
                # what the script's completeness check (the same rules as sheet_totals) needs
                "item_scores": [spec.key for spec in s.item_scores],
                "texts": [t.key for t in s.texts],
                # when the step's comment is needed (CommentRule.needed)
                "comment": {
                    "required": s.comment.required,
                    "dimension": s.comment.dimension,
                    "values": list(s.comment.values),
                },
            }
            for s in rubric.steps
        ],
    }


@lru_cache(maxsize=16)
def entry_labels(*, rubric_version: str, lang: str) -> dict[str, str]:
    """Readable names of every entry a sheet can miss, for the script's own
    completeness check (it lists what is missing before asking to submit)."""
    rubric = load_rubric(rubric_version)
    paths: list[str] = []
    for step in rubric.steps:
        n = step.number
        for pos in range(1, step.item_count + 1):
            keys = ["classification"] if step.kind == "ideas" else []
            keys += [spec.key for spec in step.item_scores]
            paths += [f"items.{n}.{pos}.{key}" for key in keys]
        paths += [f"texts.{t.key}" for t in step.texts]
        paths += [f"dims.{d.key}" for d in step.scored_dimensions]
    paths += [
        f"comments.{step.number}" for step in rubric.steps if step.comment.required or step.comment.dimension
    ]
    with translation.override(lang):
        return {path: missing_label(rubric=rubric, path=path, lang=lang) for path in paths}


@lru_cache(maxsize=8)
def script_messages(*, lang: str) -> dict:
    """The script's status and error messages in ``lang`` (the same for every sheet)."""
    with translation.override(lang):
        return _message_texts()


def _message_texts() -> dict:
    return {
        "saving": _("Saving…"),
        "saved_at": _("Saved at %(time)s"),
        "all_saved": _("All changes saved"),
        "unsaved": _("Unsaved changes"),
        "offline": _(
            "Not saved: the server cannot be reached. Retrying automatically; your changes are kept in this browser."
        ),
        "auth": _(
            "Not saved: your session has ended. Log in again in another tab; your changes are kept and will be sent."
        ),
        "conflict": _(
            "This sheet was changed elsewhere (another tab or device). Reload to see the newest scores; unsaved changes in this tab will be discarded."
        ),
        "locked": _("This sheet has been submitted and is read-only. Reload to see it."),
        "gone": _(
            "Not saved: this sheet is not open to the account now logged in (another rater logged in in this browser, or the sheet was taken back). Your changes are kept in this browser for its rater."
        ),
        "invalid": _("The server refused a value; nothing of that batch was saved:"),
        "incomplete": _("The sheet is not complete. Still missing:"),
        "missing_step": _("Step %(n)s: %(count)s"),
        "missing_other": _("Other: %(count)s"),
        "submitting": _("Submitting…"),
        "submit_wait": _("Saving your last changes before submitting…"),
        "confirm_submit": _("Submit this sheet? It becomes read-only."),
        "retry_in": _("next try in %(s)s s"),
        "too_long": _(
            "%(n)s characters: at most %(max)s can be saved. Shorten the text; it is not saved until then."
        ),
        "too_long_submit": _("Shorten these texts before submitting; they are not saved yet:"),
        "too_long_status": _("Not saved: a text is too long"),
        "progress": _("%(done)s of %(total)s entries"),
        "complete": _("Every entry is filled in."),
    }
