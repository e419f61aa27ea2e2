"""What the scoring page shows: the response and this rater's entries on it, as
plain dicts for templates/scoring/sheet.html and the script's JSON. The markup
is in the templates; the widgets that depend only on the rubric and the language
come pre-rendered from ``sheet_widgets``, and a request only picks the variant
of each control that shows its value.

Only blind-safe data goes in here: blind code, scenario theme and text, the
response's answers, this rater's own entries. Never the research ID, model,
condition or anything about another rater.

A single-text study's response (``Response.is_text_task``) is one text, a pairwise study's
(``Response.is_pair``) text A and text B: the page shows them once, beside the rubric's steps,
whose numbers then name no part of the response.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from django.urls import reverse
from django.utils.translation import gettext as _

from core.draft_keys import draft_key, storage_name
from scoring.check_hints import response_check_hints
from scoring.models import Assignment, ResponseFlag, ScoreSheet
from scoring.selectors import (
    rater_queue,
    rater_queue_left,
    response_items_by_step,
    sheet_entries_get,
    sheet_reopen_notice,
)
from scoring.views.sheet_texts import (
    client_spec,
    entry_labels,
    grid_error_label,
    grid_error_text,
    script_messages,
)
from scoring.views.sheet_widgets import dom_id, sheet_widgets, text
from studies.models import Response, TaskKind
from studies.rubric import Rubric, SheetEntries, SheetTotals, Step, load_rubric, sheet_totals
from studies.rubric.cgpst import version_is_cgpst


class _Shown(Protocol):
    """What a step shows of the response: a Response, or the preview's sample."""

    @property
    def grid_errors(self) -> list | None: ...

    @property
    def implied_correctly_used(self) -> int | None: ...

    def shown_answer(self, step: int) -> str: ...


@dataclass(frozen=True)
class _PreviewResponse:
    """Stands in for a response on a rubric's preview."""

    answer: str
    grid_errors: list | None = None
    implied_correctly_used: int | None = None

    def shown_answer(self, step: int) -> str:
        return self.answer


@dataclass(frozen=True)
class _Sheet:
    """What every step of the page reads: this rater's entries on one response."""

    rubric: Rubric
    response: _Shown
    whole_text: bool  # one text shown once for the whole sheet, none beside each step
    entries: SheetEntries
    totals: SheetTotals
    items: dict[int, dict[int, str]]  # the response's item texts by step and position
    readonly: bool
    lang: str


def _idea_rows(*, sheet: _Sheet, step: Step, widgets: dict) -> list[dict]:
    texts, options = sheet.items.get(step.number, {}), widgets["options"]
    rows = []
    for row, item in zip(widgets["rows"], sheet.entries.ideas[step.number], strict=False):
        disabled = sheet.readonly or not item.is_yes  # scores count only for a Yes item
        rows.append(
            {
                **row,
                "text": texts.get(row["pos"], ""),
                "present": row["pos"] in texts,
                "is_yes": item.is_yes,
                "classification": item.classification,
                "options": options.get(item.classification, options[""]),
                "controls": [c.html(item.score(c.key), disabled=disabled) for c in row["controls"]],
                "comment": item.comment,
            }
        )
    return rows


def _criteria_rows(*, sheet: _Sheet, step: Step, widgets: dict) -> list[dict]:
    texts = sheet.items.get(step.number, {})
    return [
        {
            **row,
            "text": texts.get(row["pos"], ""),
            "present": row["pos"] in texts,
            "controls": [c.html(crit.score(c.key), disabled=sheet.readonly) for c in row["controls"]],
            "comment": crit.comment,
        }
        for row, crit in zip(widgets["rows"], sheet.entries.criteria, strict=False)
    ]


def _texts(*, sheet: _Sheet, step: Step) -> dict:
    """The step's text fields, and the Step-2 texts that a later step shows again."""
    lang, entered = sheet.lang, sheet.entries.texts
    labels = {t.key: text(t.label, lang) for s in sheet.rubric.steps for t in s.texts}
    return {
        "texts": [
            {
                "path": f"texts.{t.key}",
                "id": dom_id(f"texts.{t.key}"),
                "label": labels[t.key],
                "help": text(t.help, lang),
                "value": entered.get(t.key, ""),
            }
            for t in step.texts
        ],
        "mirrors": [
            {"path": f"texts.{key}", "label": labels[key], "value": entered.get(key, "")}
            for key in step.shows_step2_texts
        ],
    }


def _step(*, sheet: _Sheet, step: Step, widgets: dict) -> dict:
    n, entries, response = step.number, sheet.entries, sheet.response
    data = {
        "number": n,
        "name": text(step.name, sheet.lang),
        # the summary bar: CGPST's "Step 2", another rubric's step by its name
        "short_name": "" if version_is_cgpst(sheet.rubric.version) else text(step.name, sheet.lang),
        "max": step.max,
        "kind": step.kind,
        "answer": None if sheet.whole_text else response.shown_answer(n),
        "total": sheet.totals.steps[n],
        "yes_description": text(step.yes_description, sheet.lang),
        "items_head": widgets.get("items_head", ""),
        "rows": None,
        "categories": widgets.get("categories", ""),
        "dims": [d.html(entries.dimensions.get(d.key), disabled=sheet.readonly) for d in widgets["dims"]],
        "computed_head": widgets.get("computed_head", ""),
        "computed": [
            c.html(sheet.totals.dimensions[c.key], disabled=False) for c in widgets.get("computed", ())
        ],
        "comment": entries.comments.get(n, ""),
        "comment_path": f"comments.{n}",
        "comment_id": dom_id(f"comments.{n}"),
        "comment_label": widgets["comment_label"],
        **_texts(sheet=sheet, step=step),
        **_guidelines(step=step, lang=sheet.lang),
    }
    if step.kind == "ideas":
        data["rows"] = _idea_rows(sheet=sheet, step=step, widgets=widgets)
    elif step.kind == "criteria":
        data["rows"] = _criteria_rows(sheet=sheet, step=step, widgets=widgets)
    if n == 5 and version_is_cgpst(sheet.rubric.version):
        data["grid_check"] = True
        data["grid_errors"] = [
            {
                "label": grid_error_label(e.get("kind", "")),
                "where": grid_error_text(e.get("where", ""), where=True),
                "detail": grid_error_text(e.get("detail", ""), where=False),
            }
            for e in (response.grid_errors or [])
        ]
        data["implied"] = response.implied_correctly_used
    return data


def _guidelines(*, step: Step, lang: str) -> dict:
    """The study's scoring guidelines for the step and its dimensions (the guidelines partial)."""
    return {
        "guideline": text(step.guideline, lang),
        "dim_guidelines": [
            {"label": text(d.label, lang), "text": text(d.guideline, lang)}
            for d in step.dimensions
            if d.guideline
        ],
    }


def _progress(*, rubric: Rubric, entries: SheetEntries, totals: SheetTotals) -> dict:
    """How many of the entries the sheet needs are filled in (the bar's "87 of 102
    entries"): an item's scores are needed only once it is a Yes item."""
    total = 0
    for step in rubric.steps:
        if step.kind == "ideas":
            items = entries.ideas.get(step.number, [])[: step.item_count]
            total += step.item_count + 2 * sum(1 for item in items if item.is_yes)
        elif step.kind == "criteria":
            total += step.item_count * len(step.item_scores)
        else:
            total += len(step.texts) + len(step.scored_dimensions)
    return {"done": total - len(totals.missing), "total": total}


def sheet_page_context(
    *,
    sheet: ScoreSheet,
    assignment: Assignment,
    lang: str,
    items: dict[int, dict[int, str]] | None = None,
    entries: SheetEntries | None = None,
) -> dict:
    """``items`` (the response's item texts) and ``entries`` (the sheet's, e.g. as a
    first open just created them) are read here unless the caller has them."""
    rubric = load_rubric(sheet.rubric_version)
    response = assignment.response
    if entries is None:
        entries = sheet_entries_get(sheet=sheet, rubric=rubric)
    totals = sheet_totals(entries, rubric)
    page = _Sheet(
        rubric=rubric,
        response=response,
        whole_text=bool(response.whole_texts),
        entries=entries,
        totals=totals,
        items=items if items is not None else response_items_by_step(response=response),
        readonly=sheet.is_submitted,
        lang=lang,
    )
    widgets = sheet_widgets(rubric_version=rubric.version, lang=lang)
    code = assignment.blind_code  # the rater's own code: each rater of a response has another
    script = {
        "code": code,
        "sheet": sheet.pk,  # the rater's own sheet, named in each save
        # drafts are kept per owner and sheet, under a name that says neither
        "store": "teamllm.draft." + storage_name(user_id=assignment.rater_id, of=f"sheet:{sheet.pk}") + ".",
        # where releases before 2026-12 kept them (moved to "store" on the next visit)
        "legacy_store": f"teamllm.draft.{assignment.rater_id}.{sheet.pk}.",
        "draft_key": draft_key(user_id=assignment.rater_id),  # seals the drafts left in the browser
        "token_url": reverse("csrf_token"),
        "version": sheet.version,
        "last_batch_id": sheet.last_batch_id,
        "readonly": page.readonly,
        "save_url": reverse("scoring:sheet_save", args=[code]),
        "submit_url": reverse("scoring:sheet_submit", args=[code]),
        "time_url": reverse("scoring:sheet_time", args=[code]),
        "totals": totals.as_dict(),
        "rubric": client_spec(rubric_version=rubric.version),
        "messages": script_messages(lang=lang),
        "labels": entry_labels(rubric_version=rubric.version, lang=lang),
    }
    return {
        "assignment": assignment,
        "sheet": sheet,
        "readonly": page.readonly,
        "code": code,
        # the scenario in the rater's UI language when the study imported that version
        "theme": response.scenario.theme_for(lang),
        "scenario_text": response.scenario.text_for(lang),
        "scenario_seen_key": "teamllm.scenario-read."
        + storage_name(user_id=assignment.rater_id, of=f"scenario:{response.scenario_id}"),
        # a single-text response's one text, a pair's two (None: a CGPST response, step by step)
        "whole_texts": _whole_texts(response) or None,
        "check_hints": response_check_hints(rubric=rubric, response=response, lang=lang),
        "steps": [_step(sheet=page, step=step, widgets=widgets[step.number]) for step in rubric.steps],
        "totals": totals,
        "max_total": rubric.max_total,
        # the key map lists the item and copied-text keys only where the rubric has such entries
        "rubric_keys": {
            "items": any(step.has_items for step in rubric.steps),
            "texts": any(step.texts for step in rubric.steps),
        },
        "progress": _progress(rubric=rubric, entries=entries, totals=totals),
        "script": script,
        "reopened": sheet_reopen_notice(sheet=sheet),
        "my_flags": (
            list(ResponseFlag.objects.filter(response=response, rater_id=assignment.rater_id))
            if getattr(assignment, "flagged_by_rater", True)  # annotated by rater_assignment_get
            else []
        ),
        # after a submit: what is left, and the next response one click away
        "queue_left": (
            rater_queue_left(user=assignment.rater, queue=rater_queue(user=assignment.rater), after=code)
            if page.readonly
            else None
        ),
    }


def _whole_texts(response: Response) -> list[tuple[str, str]]:
    """The texts shown once for the sheet, each with its heading: a pair's A and B, or the one text."""
    headings = {"response": _("Response"), "a": _("Text A"), "b": _("Text B")}
    return [(headings[kind], text) for kind, text in response.whole_texts]


def sheet_preview_context(*, rubric_version: str, lang: str, task_kind: str = TaskKind.CGPST) -> dict:
    """A rubric's steps as the scoring page draws them, empty, for an admin's preview: the
    same widgets and step template, a sample text where the response goes (a single-text or
    pairwise study's, once for the whole sheet)."""
    text_task = task_kind != TaskKind.CGPST
    rubric = load_rubric(rubric_version)
    entries = SheetEntries.empty(rubric)
    totals = sheet_totals(entries, rubric)
    page = _Sheet(
        rubric=rubric,
        response=_PreviewResponse(answer=_("The response's text for this step appears here.")),
        whole_text=text_task,
        entries=entries,
        totals=totals,
        items={},
        readonly=False,
        lang=lang,
    )
    widgets = sheet_widgets(rubric_version=rubric.version, lang=lang)
    return {
        "rubric": rubric,
        "rubric_title": rubric.title.text(lang),
        "whole_texts": (
            [(_("Text A"), _("Text A appears here.")), (_("Text B"), _("Text B appears here."))]
            if task_kind == TaskKind.PAIR
            else [(_("Response"), _("The response's text appears here."))]
        )
        if text_task
        else None,
        "steps": [_step(sheet=page, step=step, widgets=widgets[step.number]) for step in rubric.steps],
        "totals": totals,
        "max_total": rubric.max_total,
        # the rubric's checks on the text: raters see a hint only where one finds something
        "check_messages": [text(check.message, lang) for check in rubric.checks],
    }


def dimension_sheet_context(*, sheet: ScoreSheet, code: str, lang: str) -> dict:
    """A sheet of dimension scores alone (imported from the study's Excel layout): its scores
    by step, read only. Blind-safe as the page: the blind code and this rater's own scores."""
    rubric = load_rubric(sheet.rubric_version)
    totals = sheet_totals(sheet_entries_get(sheet=sheet, rubric=rubric), rubric)
    steps = [
        {
            "number": step.number,
            "name": step.name.text(lang),
            "total": totals.steps[step.number],
            "max": step.max,
            "dimensions": [
                {"label": d.label.text(lang), "value": totals.dimensions[d.key], "max": d.max}
                for d in step.dimensions
            ],
        }
        for step in rubric.steps
    ]
    return {"code": code, "steps": steps, "overall": totals.overall, "max": sum(s.max for s in rubric.steps)}
