"""What the scoring page shows: the rubric in the user's language, the response
and the sheet's current entries, as plain dicts for the template and the script.

Only blind-safe data goes in here: blind code, scenario theme and text, the
response's answers, this rater's own entries. Never the research ID, model,
condition or anything about another rater.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from scoring.models import Assignment, ScoreSheet
from scoring.selectors import response_items_by_step, sheet_entries_get
from scoring.views.sheet_widgets import (
    categories_html,
    item_row_html,
    levels_html,
    options_html,
    scale_html,
    select_html,
)
from studies.rubric import INVALID_PREFIX, Label, Rubric, ScoreSpec, SheetEntries, load_rubric, sheet_totals


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


@dataclass(frozen=True)
class _ScaleParts:
    """One score control's markup for every value it can hold, enabled or disabled."""

    path: str
    spec: ScoreSpec
    where: str
    variants: dict[tuple[int | None, bool], str]
    value_texts: dict[int | None, str]  # escaped level text of each value

    def html(self, value, *, disabled: bool, lang: str) -> str:
        found = self.variants.get((value, disabled))
        if found is None:  # a value outside the scale (never saved by the services)
            return scale_html(_scale(self.spec, self.path, value, lang), where=self.where, readonly=disabled)
        return found


def _scale_parts(spec: ScoreSpec, path: str, lang: str, where: str = "") -> _ScaleParts:
    variants = {}
    value_texts = {}
    for value in (None, *spec.choices):
        scale = _scale(spec, path, value, lang)
        value_texts[value] = escape(scale["value_text"])
        for disabled in (False, True):
            variants[(value, disabled)] = str(scale_html(scale, where=where, readonly=disabled))
    return _ScaleParts(path, spec, where, variants, value_texts)


@dataclass(frozen=True)
class _DimParts:
    """A directly scored dimension: heading, radio group, current level, level descriptions."""

    key: str
    head: str
    scale: _ScaleParts
    tail: str

    def html(self, value, *, disabled: bool, lang: str) -> str:
        level = self.scale.value_texts.get(value, "")
        return (
            f"{self.head}{self.scale.html(value, disabled=disabled, lang=lang)}"
            f'<p class="level-now" data-level-for="{escape(self.scale.path)}">{level}</p>{self.tail}'
        )


def _dim_parts(spec: ScoreSpec, lang: str, *, open_: bool) -> _DimParts:
    path = f"dims.{spec.key}"
    scale = _scale(spec, path, None, lang)
    description = (
        f' <span class="muted small">{escape(scale["description"])}</span>' if scale["description"] else ""
    )
    head = (
        f'<div class="dim"><div class="dim-head"><span class="dim-label" id="{escape(scale["id"])}-label">'
        f'{escape(scale["label"])}</span> <span class="muted">{spec.min}–{spec.max}</span>{description}</div>'
    )
    tail = f"{levels_html(scale, summary=_('Levels'), open_=open_)}</div>"
    return _DimParts(spec.key, head, _scale_parts(spec, path, lang), tail)


def _item_heads(step, lang: str) -> str:
    """The score columns' headings of an item table, with their level descriptions."""
    return "".join(
        f'<th>{escape(h["label"])} <span class="muted">{h["min"]}–{h["max"]}</span>{h["levels_html"]}</th>'
        for h in (_header(spec, lang) for spec in step.item_scores)
    )


def _ideas_step(
    step, entries: SheetEntries, texts: dict[int, str], lang: str, rubric: Rubric, readonly: bool
) -> dict:
    static = _static(rubric.version, lang)
    parts = static["steps"][step.number]
    rows = []
    for pos, item in enumerate(entries.ideas[step.number], start=1):
        row = parts["rows"][pos - 1]
        disabled = readonly or not item.is_yes
        rows.append(
            {
                "pos": pos,
                "text": texts.get(pos, ""),
                "present": pos in texts,
                "classification": item.classification,
                "is_yes": item.is_yes,
                "select": select_html(
                    options=parts["options"],
                    select_id=row["select_id"],
                    path=row["select_path"],
                    label=row["select_label"],
                    value=item.classification,
                    readonly=readonly,
                ),  # fmt: skip
                "controls": [
                    row["elaboration"].html(item.elaboration, disabled=disabled, lang=lang),
                    row["originality"].html(item.originality, disabled=disabled, lang=lang),
                ],
                "comment": item.comment,
                "comment_path": row["comment_path"],
                "comment_id": row["comment_id"],
            }
        )
    return {
        "rows_html": _rows_html(rows, step.number, readonly),
        "categories_html": parts["categories_html"],
        "yes_description": _t(step.yes_description, lang),
        "item_heads_html": parts["item_heads_html"],
    }


def _header(spec: ScoreSpec, lang: str) -> dict:
    scale = _scale(spec, "", None, lang)
    scale["levels_html"] = levels_html(scale, summary=_("Levels"))
    return scale


def _criteria_step(
    step, entries: SheetEntries, texts: dict[int, str], lang: str, rubric: Rubric, readonly: bool
) -> dict:
    parts = _static(rubric.version, lang)["steps"][step.number]
    rows = []
    for pos, crit in enumerate(entries.criteria, start=1):
        row = parts["rows"][pos - 1]
        rows.append(
            {
                "pos": pos,
                "text": texts.get(pos, ""),
                "present": pos in texts,
                "controls": [
                    row["correctly_written"].html(crit.correctly_written, disabled=readonly, lang=lang),
                    row["relevance"].html(crit.relevance, disabled=readonly, lang=lang),
                ],
                "comment": crit.comment,
                "comment_path": row["comment_path"],
                "comment_id": row["comment_id"],
            }
        )
    return {
        "rows_html": _rows_html(rows, step.number, readonly),
        "item_heads_html": parts["item_heads_html"],
    }


def _rows_html(rows: list[dict], step: int, readonly: bool) -> str:
    no_item, comment = _("(no item in the response)"), _("Comment")
    return mark_safe(  # noqa: S308 - each row is built escaped
        "".join(
            item_row_html(r, step=step, no_item=no_item, comment_label=comment, readonly=readonly)
            for r in rows
        )
    )


def _computed_html(parts: dict, totals) -> str:
    """The table of the step's computed dimensions with their current values."""
    if not parts["computed_rows"]:
        return ""
    body = "".join(
        f"{prefix}{totals.dimensions[key]}{suffix}" for key, prefix, suffix in parts["computed_rows"]
    )
    return mark_safe(f"{parts['computed_head']}{body}</tbody></table>")  # noqa: S308 - labels escaped, values are numbers


def _computed_parts(step, lang: str) -> dict:
    head = (
        '<table class="table computed"><thead><tr>'
        f"<th>{escape(_('Scoring dimension'))}</th><th>{escape(_('Description'))}</th>"
        f'<th class="num">{escape(_("Score"))}</th></tr></thead><tbody>'
    )
    rows = [
        (
            d.key,
            f'<tr><td>{escape(_t(d.label, lang))}</td><td class="muted small">{escape(_t(d.description, lang))}</td>'
            f'<td class="num"><b data-total="dim.{escape(d.key)}">',
            f"</b>/{d.max}</td></tr>",
        )
        for d in step.dimensions
        if d.computed
    ]
    return {"computed_head": head, "computed_rows": rows}


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


def _item_rows(step, lang: str) -> list[dict]:
    """Per item position: the ids and paths of its controls and its score controls' markup."""
    item_label = _t(step.item_label, lang)
    rows = []
    for pos in range(1, step.item_count + 1):
        base = f"items.{step.number}.{pos}"
        where = f"{item_label} {pos}"
        row = {"comment_path": f"{base}.comment", "comment_id": _dom_id(f"{base}.comment")}
        if step.kind == "ideas":
            row.update(
                select_id=_dom_id(f"{base}.classification"),
                select_path=f"{base}.classification",
                select_label=f"{where}: {_('category or invalid type')}",
            )
        for spec in step.item_scores:
            row[spec.key] = _scale_parts(spec, f"{base}.{spec.key}", lang, where=where)
        rows.append(row)
    return rows


@lru_cache(maxsize=16)
def _static(rubric_version: str, lang: str) -> dict:
    """The parts of the page that depend only on the rubric and the language (immutable per
    rubric version): every score control's markup for each value, headings, level texts."""
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
            data["item_heads_html"] = mark_safe(_item_heads(step, lang))  # noqa: S308 - built escaped
            data["rows"] = _item_rows(step, lang)
        data["dims"] = [_dim_parts(d, lang, open_=step.number == 6) for d in step.scored_dimensions]
        data.update(_computed_parts(step, lang))
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
    response = assignment.response
    entries = sheet_entries_get(sheet=sheet, rubric=rubric)
    items = response_items_by_step(response=response)
    totals = sheet_totals(entries, rubric)
    readonly = sheet.is_submitted
    steps = []
    static = _static(rubric.version, lang)
    for step in rubric.steps:
        n = step.number
        parts = static["steps"][n]
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
            "computed_html": _computed_html(parts, totals),
            "dims_html": mark_safe(  # noqa: S308 - built escaped
                "".join(
                    d.html(entries.dimensions.get(d.key), disabled=readonly, lang=lang) for d in parts["dims"]
                )
            ),
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
        "sheet": sheet.pk,  # the rater's own sheet: drafts are kept per owner and sheet
        "owner": assignment.rater_id,
        "token_url": reverse("csrf_token"),
        "version": sheet.version,
        "last_batch_id": sheet.last_batch_id,
        "readonly": readonly,
        "save_url": reverse("scoring:sheet_save", args=[code]),
        "submit_url": reverse("scoring:sheet_submit", args=[code]),
        "totals": totals.as_dict(),
        "rubric": static["client_spec"],
        "messages": static["messages"],
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
