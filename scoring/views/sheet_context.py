"""What the scoring page shows: the rubric in the user's language, the response
and the sheet's current entries, as plain dicts for the template and the script.

Only blind-safe data goes in here: blind code, scenario theme and text, the
response's answers, this rater's own entries. Never the research ID, model,
condition or anything about another rater.
"""

from __future__ import annotations

from functools import lru_cache

from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from scoring.models import Assignment, ScoreSheet
from scoring.rubric import INVALID_PREFIX, Label, Rubric, ScoreSpec, SheetEntries, load_rubric, sheet_totals
from scoring.selectors import response_items_by_step, sheet_entries_get
from scoring.views.sheet_widgets import (
    categories_html,
    item_row_html,
    levels_html,
    options_html,
    scale_html,
    select_html,
)


def _t(label: Label | None, lang: str) -> str:
    return label.text(lang) if label is not None else ""


def _dom_id(path: str) -> str:
    return "f-" + path.replace(".", "-").replace(":", "-")


def _scale(spec: ScoreSpec, path: str, value, lang: str, *, enabled: bool = True) -> dict:
    levels = {lv.score: lv.text(lang) for lv in spec.levels}
    return {
        "path": path,
        "id": _dom_id(path),
        "label": _t(spec.label, lang),
        "description": _t(spec.description, lang),
        "min": spec.min,
        "max": spec.max,
        "value": value,
        "enabled": enabled,
        "choices": [{"score": n, "text": levels.get(n, ""), "checked": value == n} for n in spec.choices],
        "value_text": levels.get(value, "") if value is not None else "",
    }


def grid_error_label(kind: str) -> str:
    return {
        "no_grid": _("No scoring grid found"),
        "missing_cells": _("Missing cells"),
        "ties": _("Tied scores in a column"),
        "not_permutation": _("Column is not a permutation of 1..n"),
        "wrong_total": _("Wrong row total"),
        "missing_rows": _("Solutions missing from the grid"),
    }.get(kind, kind)


def missing_label(rubric: Rubric, path: str, lang: str) -> str:
    """A readable name for an entry path (for the 'still missing' list)."""
    parts = path.split(".")
    try:
        if parts[0] == "items":
            step = rubric.step(int(parts[1]))
            item = f"{_t(step.item_label, lang)} {parts[2]}"
            field = parts[3]
            if field == "classification":
                what = _("category or invalid type")
            else:
                what = _t(step.item_score(field).label, lang)
            return _("Step %(n)s · %(item)s · %(what)s") % {"n": step.number, "item": item, "what": what}
        if parts[0] == "dims":
            dim = rubric.dimension(f"{parts[1]}.{parts[2]}")
            return _("Step %(n)s · %(what)s") % {"n": dim.step, "what": _t(dim.label, lang)}
        if parts[0] == "texts":
            for step in rubric.steps:
                for t in step.texts:
                    if t.key == parts[1]:
                        return _("Step %(n)s · %(what)s") % {"n": step.number, "what": _t(t.label, lang)}
    except (KeyError, IndexError, ValueError):
        pass
    return path


def missing_list(rubric: Rubric, missing, lang: str) -> list[dict]:
    return [
        {"path": m.path, "id": _dom_id(m.path), "step": m.step, "label": missing_label(rubric, m.path, lang)}
        for m in missing
    ]


def _ideas_step(
    step, entries: SheetEntries, texts: dict[int, str], lang: str, rubric: Rubric, readonly: bool
) -> dict:
    static = _static(rubric.version, lang)
    options = static["steps"][step.number]["options"]
    item_label = _t(step.item_label, lang)
    what = static["what"]
    elab_spec, orig_spec = step.item_score("elaboration"), step.item_score("originality")
    rows = []
    for pos, item in enumerate(entries.ideas[step.number], start=1):
        base = f"items.{step.number}.{pos}"
        where = f"{item_label} {pos}"
        elab = _scale(elab_spec, f"{base}.elaboration", item.elaboration, lang, enabled=item.is_yes)
        orig = _scale(orig_spec, f"{base}.originality", item.originality, lang, enabled=item.is_yes)
        rows.append(
            {
                "pos": pos,
                "text": texts.get(pos, ""),
                "present": pos in texts,
                "classification": item.classification,
                "is_yes": item.is_yes,
                "select": select_html(
                    options=options,
                    select_id=_dom_id(f"{base}.classification"),
                    path=f"{base}.classification",
                    label=f"{where}: {what}",
                    value=item.classification,
                    readonly=readonly,
                ),  # fmt: skip
                "controls": [
                    scale_html(elab, where=where, readonly=readonly),
                    scale_html(orig, where=where, readonly=readonly),
                ],
                "comment": item.comment,
                "comment_path": f"{base}.comment",
                "comment_id": _dom_id(f"{base}.comment"),
            }
        )
    return {
        "rows_html": _rows_html(rows, step.number, readonly),
        "categories_html": static["steps"][step.number]["categories_html"],
        "yes_description": _t(step.yes_description, lang),
        "item_scores": static["steps"][step.number]["item_scores"],
        "rows": rows,
    }


def _header(spec: ScoreSpec, lang: str) -> dict:
    scale = _scale(spec, "", None, lang)
    scale["levels_html"] = levels_html(scale, summary=_("Levels"))
    return scale


def _criteria_step(
    step, entries: SheetEntries, texts: dict[int, str], lang: str, rubric: Rubric, readonly: bool
) -> dict:
    cw_spec, rel_spec = step.item_score("correctly_written"), step.item_score("relevance")
    item_label = _t(step.item_label, lang)
    rows = []
    for pos, crit in enumerate(entries.criteria, start=1):
        base = f"items.{step.number}.{pos}"
        where = f"{item_label} {pos}"
        cw = _scale(cw_spec, f"{base}.correctly_written", crit.correctly_written, lang)
        rel = _scale(rel_spec, f"{base}.relevance", crit.relevance, lang)
        rows.append(
            {
                "pos": pos,
                "text": texts.get(pos, ""),
                "present": pos in texts,
                "controls": [
                    scale_html(cw, where=where, readonly=readonly),
                    scale_html(rel, where=where, readonly=readonly),
                ],
                "comment": crit.comment,
                "comment_path": f"{base}.comment",
                "comment_id": _dom_id(f"{base}.comment"),
            }
        )
    return {
        "rows_html": _rows_html(rows, step.number, readonly),
        "item_scores": _static(rubric.version, lang)["steps"][step.number]["item_scores"],
    }


def _rows_html(rows: list[dict], step: int, readonly: bool) -> str:
    no_item, comment = _("(no item in the response)"), _("Comment")
    return mark_safe(  # noqa: S308 - each row is built escaped
        "".join(
            item_row_html(r, step=step, no_item=no_item, comment_label=comment, readonly=readonly)
            for r in rows
        )
    )


def _dimension(spec: ScoreSpec, value, lang: str, *, readonly: bool, open_: bool) -> dict:
    scale = _scale(spec, f"dims.{spec.key}", value, lang)
    scale["html"] = scale_html(scale, readonly=readonly)
    scale["levels_html"] = levels_html(scale, summary=_("Levels"), open_=open_)
    return scale


def client_spec(rubric: Rubric) -> dict:
    """The rubric's arithmetic for the script's instant totals (the server's are authoritative)."""
    return {
        "max_total": rubric.max_total,
        "steps": [
            {
                "number": s.number,
                "kind": s.kind,
                "item_count": s.item_count,
                "dimensions": [{"key": d.key, "computed": d.computed} for d in s.dimensions],
            }
            for s in rubric.steps
        ],
    }


@lru_cache(maxsize=16)
def _static(rubric_version: str, lang: str) -> dict:
    """The parts of the page that depend only on the rubric and the language."""
    rubric = load_rubric(rubric_version)
    messages = {
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
        "invalid": _("The server refused a value; nothing of that batch was saved:"),
        "incomplete": _("The sheet is not complete. Still missing:"),
        "submitting": _("Submitting…"),
        "submit_wait": _("Saving your last changes before submitting…"),
        "confirm_submit": _("Submit this sheet? It becomes read-only."),
        "retry_in": _("next try in %(s)s s"),
    }
    per_step = {}
    for step in rubric.steps:
        data: dict = {}
        if step.kind == "ideas":
            categories = [
                {"key": c.key, "label": c.text(lang), "description": _t(c.description, lang)}
                for c in rubric.categories
            ] + [
                {"key": v, "label": rubric.category_label(v, lang), "description": ""}
                for v in rubric.category_keys[len(rubric.categories) :]
            ]
            invalid = [
                {
                    "key": INVALID_PREFIX + t.key,
                    "label": _t(t.label, lang),
                    "description": _t(t.description, lang),
                }
                for t in step.invalid_types
            ]
            data["options"] = options_html(
                empty=_("— choose —"), yes_label=_("Yes: category"), categories=categories,
                invalid_label=_("Not valid"), invalid=invalid,
            )  # fmt: skip
            data["categories_html"] = categories_html(summary=_("Categories"), categories=categories)
        if step.has_items:
            data["item_scores"] = [_header(spec, lang) for spec in step.item_scores]
        per_step[step.number] = data
    return {
        "messages": messages,
        "client_spec": client_spec(rubric),
        "steps": per_step,
        "what": _("category or invalid type"),
        "levels": _("Levels"),
    }


def sheet_page_context(*, sheet: ScoreSheet, assignment: Assignment, lang: str) -> dict:
    rubric = load_rubric(sheet.rubric_version)
    entries = sheet_entries_get(sheet=sheet, rubric=rubric)
    totals = sheet_totals(entries, rubric)
    response = assignment.response
    items = response_items_by_step(response=response)
    readonly = sheet.is_submitted
    steps = []
    for step in rubric.steps:
        n = step.number
        data = {
            "number": n,
            "name": _t(step.name, lang),
            "max": step.max,
            "kind": step.kind,
            "answer": response.answer(n),
            "item_label": _t(step.item_label, lang),
            "total": totals.steps[n],
            "comment": entries.comments.get(n, ""),
            "comment_path": f"comments.{n}",
            "comment_id": _dom_id(f"comments.{n}"),
            "computed": [
                {
                    "key": d.key,
                    "label": _t(d.label, lang),
                    "description": _t(d.description, lang),
                    "max": d.max,
                    "value": totals.dimensions[d.key],
                }
                for d in step.dimensions
                if d.computed
            ],
            "scales": [
                _dimension(d, entries.dimensions.get(d.key), lang, readonly=readonly, open_=n == 6)
                for d in step.scored_dimensions
            ],
            "texts": [
                {
                    "path": f"texts.{t.key}",
                    "id": _dom_id(f"texts.{t.key}"),
                    "label": _t(t.label, lang),
                    "help": _t(t.help, lang),
                    "value": entries.texts.get(t.key, ""),
                }
                for t in step.texts
            ],
            "mirrors": [
                {
                    "path": f"texts.{key}",
                    "label": next(_t(t.label, lang) for s in rubric.steps for t in s.texts if t.key == key),
                    "value": entries.texts.get(key, ""),
                }
                for key in step.shows_step2_texts
            ],
        }
        if step.kind == "ideas":
            data.update(_ideas_step(step, entries, items.get(n, {}), lang, rubric, readonly))
        elif step.kind == "criteria":
            data.update(_criteria_step(step, entries, items.get(n, {}), lang, rubric, readonly))
        if n == 5:
            data["grid_errors"] = [
                {
                    "label": grid_error_label(e.get("kind", "")),
                    "where": e.get("where", ""),
                    "detail": e.get("detail", ""),
                }
                for e in (response.grid_errors or [])
            ]
            data["implied"] = response.implied_correctly_used
        steps.append(data)
    code = response.blind_code
    script = {
        "code": code,
        "version": sheet.version,
        "last_batch_id": sheet.last_batch_id,
        "readonly": readonly,
        "save_url": reverse("scoring:sheet_save", args=[code]),
        "submit_url": reverse("scoring:sheet_submit", args=[code]),
        "totals": totals.as_dict(),
        "rubric": _static(rubric.version, lang)["client_spec"],
        "messages": _static(rubric.version, lang)["messages"],
    }
    return {
        "assignment": assignment,
        "sheet": sheet,
        "readonly": readonly,
        "code": code,
        "theme": response.scenario.theme,
        "scenario_text": response.scenario.text,
        "steps": steps,
        "totals": totals,
        "max_total": rubric.max_total,
        "script": script,
    }
