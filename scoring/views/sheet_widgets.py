"""The scoring page's widgets that depend only on the rubric version and the language,
rendered from templates/scoring/sheet/widgets.html once per process and kept.

A sheet has ~55 score controls (~200 radios) and 16 category selects with ~29
options each; rendering them through the template engine on every request would
cost several times the rest of the page. Their markup differs between responses
only in which value is checked or selected, so each control is rendered once for
every value it can hold (enabled and disabled), and a request picks the variant.

Only the rubric and the language go in here: nothing of a response, a sheet or a
user, so no rater's entries can reach another rater's page through this cache
(tests/test_sheet_page_golden.py checks it).

The cache is kept in the process (``lru_cache``, keyed by rubric version and
language), not in Django's cache framework (Redis here): a page uses ~100 of the
~600 pieces, and fetching them from Redis (one round trip and unpickling all of them,
or ~100 round trips) costs more than the page itself; and a shared cache would
serve the previous release's markup after a deploy changed a template. A rubric
version never changes, a deploy restarts the processes, and with DEBUG on an edit of the
widgets template clears it (``_forget_edited_templates``).

Building them takes a second or two of CPU per language. One thread of a process builds
them while the others wait (threads building the same widgets at once would each pay
it, and a fresh process's first pages would queue behind all of them), and the web
server starts that build in the background when a process starts (``sheet_widgets_warm``,
from ``teamllm_web/wsgi.py``), so the first raters after a deploy do not pay it.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.db import connections
from django.template.backends.django import Template as DjangoTemplate
from django.template.loader import get_template
from django.utils import translation
from django.utils.safestring import SafeString
from django.utils.translation import gettext

from scoring.views.type_keys import option_keys
from studies.rubric import DEFAULT_RUBRIC_VERSION, INVALID_PREFIX, Label, Rubric, ScoreSpec, Step, load_rubric
from studies.rubric.cgpst import version_is_cgpst

if TYPE_CHECKING:
    from django.template.backends.base import _EngineTemplate  # django-stubs' name of a backend's template

WIDGETS = "scoring/sheet/widgets.html"


def text(label: Label | None, lang: str) -> str:
    return label.text(lang) if label is not None else ""


def dom_id(path: str) -> str:
    return "f-" + path.replace(".", "-").replace(":", "-")


def _render(partial: str, context: dict[str, Any]) -> SafeString:
    # Django's template backend returns a SafeString; django-stubs' protocol says str
    return cast(SafeString, _partial(partial).render(context))


@lru_cache(maxsize=32)
def _partial(name: str) -> _EngineTemplate:
    return get_template(f"{WIDGETS}#{name}")  # looked up once: ~600 renders build the widgets


def scale_data(*, spec: ScoreSpec, path: str, lang: str, where: str = "") -> dict:
    """What the ``scale``, ``levels`` and heading partials show of a score control."""
    levels = {lv.score: lv.text(lang) for lv in spec.levels}
    return {
        "id": dom_id(path),
        "path": path,
        "label": text(spec.label, lang),
        "where": where,
        "description": text(spec.description, lang),
        "min": spec.min,
        "max": spec.max,
        "choices": [{"score": n, "text": levels.get(n, "")} for n in spec.choices],
        # the study's sheet gives one description for some dimensions: say which levels are ours
        "platform": spec.levels_source == "platform",
        "edited": spec.levels_source == "edited",
    }


@dataclass(frozen=True)
class Control:
    """A score control (``partial``: a radio group, a whole dimension with its level
    text, or a computed dimension's row) rendered for every value it can hold,
    enabled and disabled."""

    key: str  # the entry's field (elaboration, relevance, ...) or the dimension's key
    partial: str
    context: dict
    variants: dict[tuple[int | None, bool], SafeString]

    def html(self, value: int | None, *, disabled: bool) -> SafeString:
        found = self.variants.get((value, disabled))
        if found is None:  # a value outside the scale: the services never save one
            found = _render_control(
                partial=self.partial, context=self.context, value=value, disabled=disabled
            )
        return found


def _render_control(*, partial: str, context: dict, value: int | None, disabled: bool) -> SafeString:
    level = next((c["text"] for c in context["scale"]["choices"] if c["score"] == value), "")
    return _render(partial, {**context, "value": value, "disabled": disabled, "level": level})


def _control(
    *, spec: ScoreSpec, partial: str, context: dict, states: tuple[bool, ...] = (False, True)
) -> Control:
    variants = {
        (value, disabled): _render_control(partial=partial, context=context, value=value, disabled=disabled)
        for value in (None, *spec.choices)
        for disabled in states
    }
    return Control(spec.key, partial, context, variants)


def _categories(*, rubric: Rubric, step: Step, lang: str) -> tuple[list[dict], list[dict]]:
    """The Yes categories (the rubric's and the numbered Miscellaneous ones) and the step's invalid types."""
    categories = [
        {
            "key": c.key,
            "label": c.text(lang),
            "description": text(c.description, lang),
            "keys": option_keys(english=c.key, label_zh=c.text("zh")),
        }
        for c in rubric.categories
    ] + [
        {
            "key": key,
            "label": rubric.category_label(key, lang),
            "description": "",
            "keys": option_keys(english=key, label_zh=rubric.category_label(key, "zh")),
        }
        for key in rubric.category_keys[len(rubric.categories) :]
    ]
    invalid = [
        {
            "key": INVALID_PREFIX + t.key,
            "label": text(t.label, lang),
            "description": text(t.description, lang),
            "keys": option_keys(english=text(t.label, "en"), label_zh=text(t.label, "zh"), invalid=True),
        }
        for t in step.invalid_types
    ]
    return categories, invalid


def _rows(*, step: Step, lang: str) -> list[dict]:
    """Per item position: the ids, paths and labels of its controls, and its score controls."""
    item_label = text(step.item_label, lang)
    comment, what = translation.gettext("Comment"), translation.gettext("category or invalid type")
    rows = []
    for pos in range(1, step.item_count + 1):
        base = f"items.{step.number}.{pos}"
        where = f"{item_label} {pos}"
        comment_id = dom_id(f"{base}.comment")
        row = {
            "pos": pos,
            "key": f"{step.number}.{pos}",
            "comment_path": f"{base}.comment",
            "comment_id": comment_id,
            "comment_label": _render("hidden_label", {"for": comment_id, "label": f"{comment} {pos}"}),
        }
        if step.kind == "ideas":
            row["select_id"] = dom_id(f"{base}.classification")
            row["select_path"] = f"{base}.classification"
            row["select_label"] = _render(
                "hidden_label", {"for": row["select_id"], "label": f"{where}: {what}"}
            )
        row["controls"] = [
            _control(
                spec=spec,
                partial="scale",
                context={"scale": scale_data(spec=spec, path=f"{base}.{spec.key}", lang=lang, where=where)},
            )
            for spec in step.item_scores
        ]
        rows.append(row)
    return rows


def _needed_when(*, rubric: Rubric, spec: ScoreSpec, lang: str) -> str:
    """When a dimension the rubric needs only for some scores of another is needed."""
    if spec.required_when is None:
        return ""
    key, values = spec.required_when
    return gettext("Needed only when %(label)s is scored %(scores)s; otherwise it counts 0.") % {
        "label": text(rubric.dimension(key).label, lang),
        "scores": ", ".join(str(v) for v in values),
    }


def _dims(*, rubric: Rubric, step: Step, lang: str, levels_open: bool) -> list[Control]:
    """The directly scored dimensions: heading, score control, level text, level descriptions
    (``levels_open``: shown without a click)."""
    dims = []
    for spec in step.scored_dimensions:
        scale = scale_data(spec=spec, path=f"dims.{spec.key}", lang=lang)
        scale["needed_when"] = _needed_when(rubric=rubric, spec=spec, lang=lang)
        context = {
            "scale": scale,
            "head": _render("dim_head", {"scale": scale}),
            "levels": _render("levels", {"scale": scale, "open": levels_open}),
        }
        dims.append(_control(spec=spec, partial="dim", context=context))
    return dims


def _step_widgets(*, rubric: Rubric, step: Step, lang: str) -> dict:
    comment_id = dom_id(f"comments.{step.number}")
    cgpst = version_is_cgpst(rubric.version)
    widgets: dict = {
        # read while scoring: CGPST's Step 6 levels (long), and the anchors of another rubric's step
        # of one score (a preference's "A much better" .. "B much better", a Likert item's 1-7)
        "dims": _dims(
            rubric=rubric,
            step=step,
            lang=lang,
            levels_open=step.number == 6 if cgpst else len(step.scored_dimensions) == 1,
        ),
        # CGPST's steps are known by their numbers; another rubric's by their names
        "comment_label": _render(
            "comment_label",
            {
                "for": comment_id,
                "n": step.number,
                "name": "" if cgpst else text(step.name, lang),
                "label": text(step.comment.label, lang) if step.comment.label else "",
                "needed": step.comment.required,
                "when": ", ".join(map(str, step.comment.values)) if step.comment.dimension else "",
            },
        ),
    }
    if step.has_items:
        heads = [scale_data(spec=spec, path="", lang=lang) for spec in step.item_scores]
        widgets["items_head"] = _render(
            "items_head",
            {"heads": heads, "item_label": text(step.item_label, lang), "ideas": step.kind == "ideas"},
        )
        widgets["rows"] = _rows(step=step, lang=lang)
    if step.kind == "ideas":
        categories, invalid = _categories(rubric=rubric, step=step, lang=lang)
        widgets["categories"] = _render("categories", {"categories": categories, "invalid": invalid})
        widgets["options"] = {
            key: _render("options", {"categories": categories, "invalid": invalid, "selected": key})
            for key in ["", *(c["key"] for c in categories), *(t["key"] for t in invalid)]
        }
    computed = [d for d in step.dimensions if d.computed]
    if computed:
        widgets["computed_head"] = _render("computed_head", {})
        widgets["computed"] = [
            _control(
                spec=d,
                partial="computed_row",
                context={"key": d.key, "scale": scale_data(spec=d, path=f"dims.{d.key}", lang=lang)},
                states=(False,),  # a total is never disabled
            )
            for d in computed
        ]
    return widgets


_build_lock = threading.Lock()


def sheet_widgets(*, rubric_version: str, lang: str) -> dict[int, dict]:
    """Per step number: the step's widgets in ``lang`` (keyed by rubric version and language only)."""
    with _build_lock:  # built by one thread; the others wait for it instead of building them again
        _forget_edited_templates()
        return _built(rubric_version=rubric_version, lang=lang)


_edition = 0  # the widgets template's modification time the kept widgets were built from (DEBUG)


def _forget_edited_templates() -> None:
    """With DEBUG on, runserver shows edited templates without a restart; so must the widgets: they
    are built again once the widgets template changed (its file's modification time). Without
    DEBUG a template changes only with a deploy, which restarts the processes."""
    global _edition
    if not settings.DEBUG:
        return
    template = get_template(WIDGETS)
    if not isinstance(template, DjangoTemplate):
        return
    edition = os.stat(template.origin.name).st_mtime_ns
    if edition != _edition:
        _edition = edition
        _built.cache_clear()
        _partial.cache_clear()


@lru_cache(maxsize=16)
def _built(*, rubric_version: str, lang: str) -> dict[int, dict]:
    rubric = load_rubric(rubric_version)
    with translation.override(lang):
        return {step.number: _step_widgets(rubric=rubric, step=step, lang=lang) for step in rubric.steps}


def sheet_widgets_warm(*, rubric_versions: tuple[str, ...] = (DEFAULT_RUBRIC_VERSION,)) -> threading.Thread:
    """Build the widgets of these rubric versions in every language, in a background
    thread of this process (a page asking for them meanwhile waits for that build)."""

    def build() -> None:
        try:
            for version in rubric_versions:
                for lang, _name in settings.LANGUAGES:
                    sheet_widgets(rubric_version=version, lang=lang)
        finally:
            connections.close_all()  # this thread's own, if a template asked the database

    thread = threading.Thread(target=build, name="sheet-widgets-warm", daemon=True)
    thread.start()
    return thread
