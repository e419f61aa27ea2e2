"""The versioned judge prompt: ``judging/prompts/<version>.txt`` (system) and
``<version>-user.txt`` (the scenario, the response and the required answer), filled
from the rubric file and the response. Pure (no ORM): the selector
``judging.selectors.response_view_get`` builds the :class:`ResponseView`.

A new prompt version is a new pair of files; existing judges keep theirs.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

from judging.answer import SheetShape, answer_schema, classification_choices
from studies.rubric import Rubric

PROMPT_DIR = Path(__file__).resolve().parent / "prompts"
CURRENT_PROMPT_VERSION = "cgpst-judge-v1"
# Any study's: the rubric's own steps, dimensions and levels, the response as its study shows it.
RUBRIC_PROMPT_VERSION = "rubric-judge-v1"
# The versions whose words explain CGPST's sheet: for studies on a CGPST-shaped rubric only.
CGPST_PROMPT_VERSIONS = frozenset({CURRENT_PROMPT_VERSION})
# The stub recognises a judge conversation by this marker (in the first line of every version).
JUDGE_MARKER = ", judge prompt "


class UnknownPromptVersion(ValueError):
    pass


def prompt_versions() -> list[str]:
    return sorted(p.stem for p in PROMPT_DIR.glob("*.txt") if not p.stem.endswith("-user"))


@functools.cache
def _templates(version: str) -> tuple[Template, Template]:
    system, user = PROMPT_DIR / f"{version}.txt", PROMPT_DIR / f"{version}-user.txt"
    if version not in prompt_versions() or not user.exists():
        raise UnknownPromptVersion(f"unknown judge prompt version {version!r}; known: {prompt_versions()}")
    return Template(system.read_text(encoding="utf-8")), Template(user.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class ResponseView:
    """What the judge reads of one response (as stored on studies.Response/ResponseItem)."""

    scenario_theme: str
    scenario_text: str
    items: dict[int, list[str]] = field(default_factory=dict)  # step -> item texts, in order
    steps: dict[int, str] = field(default_factory=dict)  # step -> the answer's text
    grid: Any = None  # the parsed Step-5 grid, if it parsed
    # a single-text response's one text or a pair's A and B, each with its heading (empty: CGPST)
    texts: list[tuple[str, str]] = field(default_factory=list)

    def shape(self, rubric: Rubric) -> SheetShape:
        return SheetShape(
            rubric=rubric, present={s: len(self.items.get(s, [])) for s in (1, 3) if s in self.items}
        )


def _levels(spec) -> list[str]:
    return [f"    {lv.score}: {lv.en}" for lv in spec.levels]


def rubric_text(rubric: Rubric) -> str:
    """The study's scoring guidelines, item scores and level descriptions (English)."""
    lines = [f"# Rubric {rubric.version}: {rubric.title.en}", "", "## Categories of Yes items"]
    lines += [f"- {c.key}: {c.description.en}" for c in rubric.categories]
    extra = [k for k in rubric.category_keys if k not in {c.key for c in rubric.categories}]
    if extra:
        lines.append(f"- Also allowed for further miscellaneous groups: {', '.join(extra)}")
    for step in rubric.steps:
        lines += ["", f"## {step.name.en} (max {step.max})"]
        if step.guideline:
            lines.append(f"Guideline: {step.guideline.en}")
        if step.yes_description:
            lines.append(f"Yes item: {step.yes_description.en}")
        if step.invalid_types:
            lines.append("Invalid types (classification invalid:<type>):")
            lines += [f"- invalid:{t.key}: {t.description.en}" for t in step.invalid_types]
            lines.append(f"Allowed classifications: {', '.join(classification_choices(rubric, step.number))}")
        for spec in step.item_scores:
            lines.append(f"Item score {spec.key} ({spec.min}-{spec.max}):")
            lines += _levels(spec)
        for text in step.texts:
            lines.append(f"Text texts.{text.key}: {text.help.en}")
        for dim in step.scored_dimensions:
            lines.append(f"Dimension dims.{dim.key}, {dim.label.en} ({dim.min}-{dim.max}):")
            if dim.guideline:
                lines.append(f"  {dim.guideline.en}")
            lines += _levels(dim)
    return "\n".join(lines)


def response_text(view: ResponseView, shape: SheetShape) -> str:
    """The response, every item labelled with the entry path its scores go to."""
    parts: list[str] = []
    for number in range(1, 7):
        parts.append(f"## Step {number}")
        if number in (1, 3):
            present = shape.items_present(number)
            for pos, text in enumerate(view.items.get(number, [])[:present], start=1):
                parts.append(f"[items.{number}.{pos}] {text}")
            if not present:
                parts.append("(no items)")
        elif number == 4 and view.items.get(4):
            for pos, text in enumerate(view.items[4], start=1):
                parts.append(f"[items.4.{pos}] {text}")
        else:
            parts.append(view.steps.get(number, "").strip() or "(empty)")
        if number == 5 and view.grid:
            parts.append("Parsed grid: " + json.dumps(view.grid, ensure_ascii=False))
        parts.append("")
    return "\n".join(parts)


def plain_response_text(view: ResponseView) -> str:
    """The response as its study shows it, for a rubric with no items to label: its one text, a
    pair's text A and text B, or a CGPST response's six steps."""
    sections = view.texts or [(f"Step {n}", view.steps.get(n, "")) for n in range(1, 7)]
    return "\n\n".join(f"## {heading}\n{text.strip() or '(empty)'}" for heading, text in sections)


def judge_messages(*, version: str, rubric: Rubric, view: ResponseView) -> list[dict[str, str]]:
    """The system and user messages of a judge call for one response. A rubric with idea or
    criteria steps reads the response's items, each labelled with its entry path."""
    system, user = _templates(version)
    shape = view.shape(rubric)
    labelled = any(step.kind in ("ideas", "criteria") for step in rubric.steps)
    return [
        {"role": "system", "content": system.substitute(rubric=rubric_text(rubric))},
        {
            "role": "user",
            "content": user.substitute(
                scenario_theme=view.scenario_theme,
                scenario_text=view.scenario_text,
                response=response_text(view, shape) if labelled else plain_response_text(view),
                schema=json.dumps(answer_schema(shape), ensure_ascii=False),
            ),
        },
    ]


def reask_messages(messages: list[dict[str, str]], raw: str, errors: list[str]) -> list[dict[str, str]]:
    """Attempt 2: the first answer and what was wrong with it, asked once more."""
    listed = "\n".join(f"- {e}" for e in errors)
    return [
        *messages,
        {"role": "assistant", "content": raw},
        {
            "role": "user",
            "content": (
                "Your answer could not be stored on the sheet:\n"
                f"{listed}\n"
                "Answer again with the complete JSON object only, exactly the required keys."
            ),
        },
    ]
