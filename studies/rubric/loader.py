"""Reading and validating the rubric's JSON file (``load_rubric``, cached per version)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from studies.rubric.document import format_problems
from studies.rubric.schema import (
    LEVEL_SOURCES,
    Category,
    CommentRule,
    InvalidType,
    Label,
    Level,
    Rubric,
    RubricError,
    ScoreSpec,
    Step,
    TextCheck,
    TextSpec,
)
from studies.rubric.totals import IdeaEntry

RUBRIC_DIR = Path(__file__).resolve().parent
DEFAULT_RUBRIC_VERSION = "cgpst-v1"
DEFAULT_LANGUAGES = ("en", "zh")
VERSION_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,39}")
MAX_CHOICES = 21  # the scores one control offers (0..20): its widgets are built per score
MAX_DIMENSIONS = 100  # in all steps (CGPST has 23)
_DIMENSION_NAME = re.compile(r"[a-z0-9_]{1,36}")
_VARIANT = re.compile(r"Miscellaneous [0-9]{1,2}")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # tab, newline and return stay
_INVISIBLE = re.compile(r"[\s\u200b-\u200d\u2060\ufeff]+")  # a text of these alone is no text


LANGUAGE_NAMES = {"en": "English", "zh": "Chinese"}


class _Build:
    """Builds a Rubric from a document the format's schema accepted, noting every problem
    the schema cannot see instead of stopping at the first."""

    def __init__(self, languages: tuple[str, ...]):
        self.languages = languages
        self.problems: list[str] = []

    def problem(self, text: str) -> None:
        self.problems.append(text)

    def label(self, raw: dict[str, str], where: str) -> Label:
        lacking = [
            LANGUAGE_NAMES[lang] for lang in self.languages if not _INVISIBLE.sub("", str(raw.get(lang, "")))
        ]
        if lacking:
            self.problem(f"{where}: needs a text in {' and '.join(lacking)}")
        if any(_CONTROL.search(str(text)) for text in raw.values()):
            self.problem(f"{where}: control characters (such as NUL) are not accepted in a text")
        return Label(en=str(raw.get("en", "")), zh=str(raw.get("zh", "")))

    def check(self, raw: dict[str, Any]) -> TextCheck:
        """A text check; what its kind needs and nothing another kind takes."""
        where = f"check {raw['key']}"
        wants = {"length": {"unit", "min", "max"}, "phrases": {"absent", "present"}}[raw["kind"]]
        for other in sorted({"unit", "min", "max", "absent", "present"} - wants & raw.keys()):
            self.problem(f"{where}: a {raw['kind']} check takes no {other}")
        low, high = raw.get("min"), raw.get("max")
        if raw["kind"] == "length":
            if "unit" not in raw:
                self.problem(f"{where}: a length check needs its unit (words or characters)")
            if low is None and high is None:
                self.problem(f"{where}: a length check needs a min, a max or both")
            if low is not None and high is not None and low > high:
                self.problem(f"{where}: min {low} is more than max {high}")
        elif not raw.get("absent") and not raw.get("present"):
            self.problem(f"{where}: a phrases check needs phrases absent, present or both")
        phrases = [*raw.get("absent", []), *raw.get("present", [])]
        if any(_CONTROL.search(p) or not _INVISIBLE.sub("", p) for p in phrases):
            self.problem(f"{where}: a phrase is blank or has control characters")
        return TextCheck(
            key=str(raw["key"]),
            kind=str(raw["kind"]),
            message=self.label(raw["message"], f"{where} message"),
            text=int(raw.get("text", 0)),
            unit=str(raw.get("unit", "words")),
            min=low,
            max=high,
            absent=tuple(raw.get("absent", [])),
            present=tuple(raw.get("present", [])),
        )

    def optional_label(self, raw: dict[str, Any], key: str, where: str) -> Label | None:
        return self.label(raw[key], f"{where} {key}") if key in raw else None

    def levels(self, raw: dict[str, Any], lo: int, hi: int, where: str) -> tuple[Level, ...]:
        source = raw.get("levels_source")
        if raw.get("levels") and source not in LEVEL_SOURCES:
            self.problem(f"{where}: levels_source must be one of {', '.join(LEVEL_SOURCES)}")
        # a level a study's admin rewrote says so itself ("source": "edited")
        levels = tuple(
            Level(
                int(lv["score"]), str(lv.get("en", "")), str(lv.get("zh", "")), str(lv.get("source", source))
            )
            for lv in raw.get("levels", [])
        )
        if levels and sorted(lv.score for lv in levels) != list(range(lo, hi + 1)):
            self.problem(f"{where}: level scores must cover {lo}..{hi} exactly once")
        for lv in levels:
            self.label({"en": lv.en, "zh": lv.zh}, f"{where} level {lv.score}")
        return levels

    def score_spec(self, raw: dict[str, Any], where: str, step: int) -> ScoreSpec:
        lo, hi = int(raw["min"]), int(raw["max"])
        if lo > hi:
            self.problem(f"{where}: bad range {lo}..{hi} (min above max)")
        elif not raw.get("computed") and not 1 <= hi - lo < MAX_CHOICES:
            # a rater picks one of the scores: two at least, and few enough to pick from
            self.problem(
                f"{where}: a scored control offers 2 to {MAX_CHOICES} scores ({lo}..{hi} gives {hi - lo + 1})"
            )
        when = raw.get("required_when")
        return ScoreSpec(
            required_when=(str(when["dimension"]), tuple(int(v) for v in when["in"])) if when else None,
            key=str(raw["key"]),
            label=self.label(raw["label"], f"{where} label"),
            min=lo,
            max=hi,
            levels=self.levels(raw, lo, hi, where),
            computed=str(raw.get("computed", "")),
            integrity=bool(raw.get("integrity", False)),
            description=self.optional_label(raw, "description", where),
            step=step,
            guideline=self.optional_label(raw, "guideline", where),
        )

    def step(self, raw: dict[str, Any], i: int, category_count: int) -> Step:
        where = f"step {i}"
        if raw["number"] != i:
            self.problem(f"{where}: steps must be numbered 1..n in order (this one says {raw['number']})")
        kind = str(raw["kind"])
        dims = tuple(self.score_spec(d, f"{where} dimension {d['key']}", i) for d in raw["dimensions"])
        item_scores = tuple(
            self.score_spec(s, f"{where} item score {s['key']}", i) for s in raw.get("item_scores", [])
        )
        step = Step(
            number=i,
            name=self.label(raw["name"], f"{where} name"),
            max=int(raw["max"]),
            kind=kind,
            dimensions=dims,
            item_count=int(raw.get("item_count", 0)),
            item_label=self.optional_label(raw, "item_label", where),
            yes_description=self.optional_label(raw, "yes_description", where),
            invalid_types=tuple(
                InvalidType(
                    str(t["key"]),
                    self.label(t["label"], f"{where} invalid type {t['key']}"),
                    self.label(t["description"], f"{where} invalid type {t['key']} description"),
                )
                for t in raw.get("invalid_types", [])
            ),
            item_scores=item_scores,
            texts=tuple(
                TextSpec(
                    str(t["key"]),
                    self.label(t["label"], f"{where} text {t['key']}"),
                    self.label(t["help"], f"{where} text {t['key']} help"),
                )
                for t in raw.get("texts", [])
            ),
            shows_step2_texts=tuple(raw.get("shows_step2_texts", [])),
            guideline=self.optional_label(raw, "guideline", where),
            comment=self.comment(raw.get("comment") or {}, where),
        )
        self.step_rules(step, category_count)
        return step

    def comment(self, raw: dict[str, Any], where: str) -> CommentRule:
        when = raw.get("required_when") or {}
        if raw.get("required") and when:
            self.problem(f"{where} comment: required and required_when: give one of them")
        return CommentRule(
            label=self.optional_label(raw, "label", f"{where} comment"),
            required=bool(raw.get("required")),
            dimension=str(when.get("dimension", "")),
            values=tuple(int(v) for v in when.get("in", [])),
        )

    def conditions(self, steps: tuple[Step, ...]) -> None:
        """A dimension needed only for some scores of another: both scored directly, that one
        needed always, the scores within its range."""
        scored = {d.key: d for s in steps for d in s.scored_dimensions}
        for s in steps:
            for spec in (*s.dimensions, *s.item_scores):
                if spec.required_when is None:
                    continue
                where, (key, values) = f"step {s.number} {spec.key}", spec.required_when
                other = scored.get(key)
                if spec.key not in scored:
                    self.problem(f"{where}: only a dimension scored directly can be required_when")
                elif other is None or other.required_when is not None or key == spec.key:
                    self.problem(
                        f"{where}: required_when names {key!r}, not another dimension scored directly "
                        "and needed always"
                    )
                elif outside := [v for v in values if not other.min <= v <= other.max]:
                    self.problem(
                        f"{where}: required_when scores {outside} are outside {key}'s {other.min}-{other.max}"
                    )

    def step_rules(self, step: Step, category_count: int) -> None:
        where, i, kind = f"step {step.number}", step.number, step.kind
        total = sum(d.max for d in step.dimensions)
        if total != step.max:
            self.problem(f"{where}: dimension maxima add up to {total}, not {step.max}")
        item_keys = {s.key for s in step.item_scores}
        for d in step.dimensions:
            if not d.key.startswith(f"s{i}.") or len(d.key) == len(f"s{i}."):
                self.problem(
                    f"{where}: dimension key {d.key!r} must start with 's{i}.' and name the dimension"
                )
            elif not _DIMENSION_NAME.fullmatch(d.key.removeprefix(f"s{i}.")):
                self.problem(
                    f"{where}: dimension key {d.key!r}: after 's{i}.' only lower-case letters, digits and _"
                )
            if d.computed and kind == "dimensions":
                self.problem(f"{where}: {d.key} cannot be computed in a dimensions step")
            elif not d.computed and kind != "dimensions":
                self.problem(f"{where}: {d.key} must be computed from items")
            elif d.computed and not (
                (kind == "ideas" and d.computed in _IDEA_COMPUTED | (item_keys & set(IdeaEntry.COLUMNS)))
                or (d.computed.startswith("sum:") and d.computed[4:] in item_keys)
            ):
                self.problem(f"{where}: unknown computation {d.computed!r} for {d.key}")
            if d.integrity and i != 2:
                self.problem(f"{where}: {d.key} is marked integrity; only step 2 has Integrity")
        rule = step.comment
        if rule.dimension:
            spec = next((d for d in step.scored_dimensions if d.key == rule.dimension), None)
            if spec is None:
                self.problem(
                    f"{where} comment: required_when names {rule.dimension!r}, not a scored dimension of the step"
                )
            elif outside := [v for v in rule.values if not spec.min <= v <= spec.max]:
                self.problem(
                    f"{where} comment: required_when scores {outside} are outside {spec.key}'s "
                    f"{spec.min}-{spec.max}"
                )
        if len(item_keys) != len(step.item_scores):
            self.problem(f"{where}: item score keys must be unique")
        for taken in sorted(item_keys & (_ITEM_FIELDS | (_IDEA_COMPUTED if kind == "ideas" else set()))):
            self.problem(
                f"{where}: {taken!r} names another entry of an item; give the item score another key"
            )
        if kind == "dimensions" and (step.item_count or step.item_scores or step.invalid_types):
            self.problem(f"{where}: a dimensions step has no items (item_count, item_scores, invalid_types)")
        if kind == "ideas":
            if "blank" not in {t.key for t in step.invalid_types}:
                self.problem(f"{where}: an ideas step needs the blank invalid type")
            if not category_count:
                self.problem(f"{where}: an ideas step needs the rubric's categories")


# An ideas step's computations besides the sums of its item scores (``sum:<key>``; CGPST names
# those of elaboration and originality bare).
_IDEA_COMPUTED = {"fluency", "flexibility"}
# An item's entries besides its scores: no item score takes their names.
_ITEM_FIELDS = {"comment", "classification"}


def parse_rubric(data: dict[str, Any]) -> Rubric:
    """Build and validate a Rubric from its document; RubricError lists every problem:
    first where the document breaks the format's schema, then (once it does not) every rule
    the schema cannot state."""
    problems = format_problems(data)
    if problems:
        raise RubricError(problems)
    build = _Build(tuple(data.get("languages", DEFAULT_LANGUAGES)))
    if not VERSION_NAME.fullmatch(str(data["version"])):  # the schema's "$" lets a final newline through
        build.problem(f"version: {str(data['version'])!r} is not a version name (lower case, digits, . _ -)")
    categories = tuple(
        Category(
            key=str(c["key"]),
            zh=str(c.get("zh", "")),
            description=build.label(c["description"], f"category {c['key']}"),
        )
        for c in data.get("categories", [])
    )
    if "zh" in build.languages:
        for c in data.get("categories", []):
            if not str(c.get("zh", "")).strip():
                build.problem(f"category {c['key']}: needs a Chinese name (zh)")
    for c in categories:
        if c.key != c.key.strip() or _CONTROL.search(c.key) or _CONTROL.search(c.zh):
            build.problem(f"category {c.key!r}: no spaces around its name and no control characters")
    for variant in data.get("miscellaneous_variants", []):
        if not _VARIANT.fullmatch(variant):  # the schema's "$" lets a final newline through
            build.problem(f"miscellaneous variant {variant!r} is not 'Miscellaneous <n>'")
    keys = [c.key for c in categories]
    variants = tuple(str(v) for v in data.get("miscellaneous_variants", []))
    for key in sorted({k for k in keys + list(variants) if (keys + list(variants)).count(k) > 1}):
        build.problem(f"category {key!r} is given more than once")
    if variants and "Miscellaneous" not in keys:
        build.problem("miscellaneous_variants need a category with the key 'Miscellaneous'")
    steps = tuple(build.step(raw, i, len(keys)) for i, raw in enumerate(data["steps"], start=1))
    text_keys = [t.key for s in steps for t in s.texts]
    for key in sorted({k for k in text_keys if text_keys.count(k) > 1}):
        build.problem(f"copied text key {key!r} is used more than once")
    step2_texts = {t.key for t in steps[1].texts} if len(steps) > 1 else set()
    for s in steps:
        for key in s.shows_step2_texts:
            if key not in step2_texts:
                build.problem(f"step {s.number}: shows_step2_texts names {key!r}, which step 2 does not copy")
    all_keys = [d.key for s in steps for d in s.dimensions]
    build.conditions(steps)
    if len(all_keys) > MAX_DIMENSIONS:
        build.problem(f"{len(all_keys)} dimensions; a rubric has at most {MAX_DIMENSIONS}")
    for key in sorted({k for k in all_keys if all_keys.count(k) > 1}):
        build.problem(f"dimension key {key!r} is used more than once")
    max_total = int(data["max_total"])
    if sum(s.max for s in steps) != max_total:
        build.problem(f"step maxima add up to {sum(s.max for s in steps)}, not max_total {max_total}")
    checks = tuple(build.check(raw) for raw in data.get("checks", []))
    check_keys = [c.key for c in checks]
    for key in sorted({k for k in check_keys if check_keys.count(k) > 1}):
        build.problem(f"check key {key!r} is used more than once")
    rubric = Rubric(
        version=str(data["version"]),
        title=build.label(data["title"], "title"),
        max_total=max_total,
        steps=steps,
        categories=categories,
        category_keys=tuple(keys) + variants,
        languages=build.languages,
        checks=checks,
    )
    if build.problems:
        raise RubricError(build.problems)
    return rubric


# Versions that are not files (a study's edited guidelines and level texts) come from a
# source the app layer registers (it reads them from the database). A version never
# changes once made, so caching by version stays right.
_sources: list[Callable[[str], dict | None]] = []


def rubric_source_register(source: Callable[[str], dict | None]) -> None:
    """Add a lookup ``version -> rubric document or None`` for versions without a file."""
    if source not in _sources:
        _sources.append(source)


def rubric_data(version: str) -> dict:
    """The JSON document of a rubric version: its file, else a registered source."""
    path = RUBRIC_DIR / f"{version}.json"
    if path.is_file() and path.parent == RUBRIC_DIR:
        return json.loads(path.read_text(encoding="utf-8"))
    for source in _sources:
        data = source(version)
        if data is not None:
            return data
    raise RubricError(f"no rubric file for version {version!r}")


@cache
def load_rubric(version: str = DEFAULT_RUBRIC_VERSION) -> Rubric:
    """The rubric of that version from ``studies/rubric/<version>.json`` or a registered
    source (validated, cached)."""
    rubric = parse_rubric(rubric_data(version))
    if rubric.version != version:
        raise RubricError(f"rubric {version!r} declares version {rubric.version!r}")
    return rubric


def available_rubric_versions() -> list[str]:
    return sorted(p.stem for p in RUBRIC_DIR.glob("*.json"))
