"""Reads of the study core that pages and commands share."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, Model, Q, QuerySet
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from studies.blind_names import MODEL_WORDS, VARIANT_WORDS
from studies.blind_segments import StepShown, blind_segments, blind_segments_stored, step_shown
from studies.blind_sources import blind_term_sources
from studies.blind_text import (
    CONDITION,
    MAKER,
    MODEL,
    RESEARCH_ID,
    STRATEGY,
    BlindTerm,
)
from studies.models import (
    TASK_TEXTS,
    Condition,
    ModelEndpoint,
    Response,
    ResponseStatus,
    Scenario,
    Strategy,
    Study,
    TaskKind,
)
from studies.params import id_param
from studies.parsing import parse_response
from studies.review import hold_reason_text


def scenario_codes_with_scores(*, study: Study, codes: list[str]) -> set[str]:
    """Codes of the study's scenarios that already have scores: a response of theirs
    has a score sheet with entries or a submitted one. (The sheets belong to the
    scoring app above this one, reached by the ORM's reverse relations, not imported.)"""
    scored = Q(responses__assignments__sheet__version__gt=0) | Q(
        responses__assignments__sheet__status="submitted"
    )
    return set(
        Scenario.objects.filter(study=study, code__in=codes).filter(scored).values_list("code", flat=True)
    )


STUDIES_PER_PAGE = 50


def studies_overview(*, search: str = "", page: str | None = None) -> Page[Any]:
    """One page of the studies whose name contains ``search`` (any case), with how many
    scenarios and responses each has; by name."""
    studies = Study.objects.filter(name__icontains=search) if search else Study.objects.all()
    counted = studies.annotate(
        n_scenarios=Count("scenarios", distinct=True), n_responses=Count("responses", distinct=True)
    ).order_by("name", "pk")
    return Paginator(counted, STUDIES_PER_PAGE).get_page(page)


def study_response_count(*, study: Study) -> int:
    return study.responses.count()


def study_from_param(value: object) -> Study | None:
    """The study a query string or form field names (``?study=3``), or None."""
    study_id = id_param(value)
    return None if study_id is None else Study.objects.filter(pk=study_id).first()


def study_scenarios_offered(*, study: Study | None) -> QuerySet[Scenario]:
    """What a picker offers: the study's own scenarios and the shared ones; with no study
    chosen, every scenario (labelled with its study by ``scenario_label``)."""
    scenarios = Scenario.objects.select_related("study").order_by("code", "study__name")
    if study is None:
        return scenarios
    return scenarios.filter(Q(study=study) | Q(study__isnull=True))


def study_endpoints_offered(*, study: Study | None) -> QuerySet[ModelEndpoint]:
    """The study's chosen model endpoints; the whole catalogue when it chose none."""
    if study is not None and study.endpoints.exists():
        return study.endpoints.order_by("model_number")
    return ModelEndpoint.objects.order_by("model_number")


def study_conditions_offered(*, study: Study | None) -> QuerySet[Condition]:
    """The study's chosen conditions; the whole catalogue when it chose none. A single-text
    study is offered the single model's only (the team strategies are CGPST protocols,
    ``generation.strategies.TEXT_TASK_STRATEGIES``)."""
    if study is not None and study.conditions.exists():
        offered = study.conditions.order_by("letter")
    else:
        offered = Condition.objects.order_by("letter")
    if study is not None and study.task_kind == TaskKind.TEXT:
        offered = offered.filter(strategy=Strategy.SINGLE)
    return offered


@dataclass(frozen=True)
class ChecklistItem:
    code: str  # stable, for tests and a later gate ("no_released_response")
    message: str  # what is missing, or what is there when done
    done: bool


def _item(code: str, done: bool, present: str, missing: str) -> ChecklistItem:
    return ChecklistItem(code, present if done else missing, done)


def study_checklist(*, study: Study) -> list[ChecklistItem]:
    """What is missing before scoring can start, in the order an admin does it. The
    scoring groups are the scoring app's (read through the ORM's reverse relation, not
    imported): a group exists only for a pair the assignment services accepted, and they
    refuse raters who have not qualified on a study with a training set."""
    responses = study.responses.exclude(status=ResponseStatus.WITHDRAWN)
    released = responses.filter(held=False)
    live_pair = Q(assignments__archived_at__isnull=True, assignments__role="primary")
    unassigned = (
        released.annotate(n_primary=Count("assignments", filter=live_pair)).filter(n_primary=0).count()
    )
    n_scenarios, n_responses = study.scenarios.count(), responses.count()
    n_released = released.count()
    n_held = n_responses - n_released
    groups = study.scoring_groups.filter(archived_at__isnull=True).values_list("rater_a_id", "rater_b_id")
    n_groups = groups.count()
    # a pair scores several groups (scenario x condition): each pair of raters counted once
    n_pairs = len({frozenset(pair) for pair in groups.distinct()})
    return [
        _item(
            "no_scenario",
            n_scenarios > 0,
            ngettext("%(n)d scenario", "%(n)d scenarios", n_scenarios) % {"n": n_scenarios},
            _("No scenario"),
        ),
        _item(
            "no_response",
            n_responses > 0,
            ngettext("%(n)d response", "%(n)d responses", n_responses) % {"n": n_responses},
            _("No response"),
        ),
        _item(
            "no_released_response",
            n_released > 0,
            (
                ngettext(
                    "%(n)d response released to raters", "%(n)d responses released to raters", n_released
                )
                % {"n": n_released}
            )
            + (
                ngettext(" (%(n)d held for review)", " (%(n)d held for review)", n_held) % {"n": n_held}
                if n_held
                else ""
            ),
            (
                ngettext(
                    "No released response: %(n)d held for review",
                    "No released response: %(n)d held for review",
                    n_held,
                )
                % {"n": n_held}
            )
            if n_held
            else _("No released response"),
        ),
        _item(
            "no_qualified_pair",
            n_pairs > 0,
            ngettext("%(n)d qualified rater pair", "%(n)d qualified rater pairs", n_pairs) % {"n": n_pairs}
            + ngettext(" for %(n)d scenario group", " for %(n)d scenario groups", n_groups) % {"n": n_groups},
            _("No qualified rater pair"),
        ),
        _item(
            "unassigned_responses",
            n_released > 0 and unassigned == 0,
            _("Every released response has a rater pair"),
            (
                ngettext(
                    "%(n)d released response has no rater pair",
                    "%(n)d released responses have no rater pair",
                    unassigned,
                )
                % {"n": unassigned}
            )
            if unassigned
            else _("No released response to give a pair yet"),
        ),
    ]


PAIRS_SHOWN = 50  # on the study's page; the assignments page pages and filters them all


def study_pairs(*, study: Study, limit: int = PAIRS_SHOWN) -> tuple[list[Model], int]:
    """The study's first ``limit`` active scoring groups (the scoring app's, read through the
    reverse relation): scenario, condition and its rater pair; and how many there are."""
    groups = study.scoring_groups.filter(archived_at__isnull=True)
    shown: list[Model] = list(
        groups.select_related(
            "scenario", "condition", "rater_a__rater_profile", "rater_b__rater_profile"
        ).order_by("scenario__code", "condition__letter")[:limit]
    )
    return shown, (len(shown) if len(shown) < limit else groups.count())


def responses_without_pair(*, study: Study, research_ids: list[str]) -> list[str]:
    """Which of these released responses of the study no rater pair scores (no live
    primary assignment: the scoring app's, read through the reverse relation). Held
    responses are not counted: they wait for release (``responses_held``)."""
    live_pair = Q(assignments__archived_at__isnull=True, assignments__role="primary")
    return list(
        study.responses.filter(research_id__in=research_ids, held=False)
        .exclude(status=ResponseStatus.WITHDRAWN)
        .annotate(n_primary=Count("assignments", filter=live_pair))
        .filter(n_primary=0)
        .order_by("research_id")
        .values_list("research_id", flat=True)
    )


# --- the review gate --------------------------------------------------------------


def responses_held(*, study: Study | None = None) -> QuerySet[Response]:
    """Responses held for review (not released, not withdrawn), of one study or all."""
    held = Response.objects.filter(held=True).exclude(status=ResponseStatus.WITHDRAWN)
    if study is not None:
        held = held.filter(study=study)
    return held


def responses_held_count(
    *, study: Study, scenario: Scenario | None = None, conditions: Iterable[Condition] | None = None
) -> int:
    """How many of the study's responses (of that scenario, under those conditions) wait
    for release: what assignment pages say they left out."""
    held = responses_held(study=study)
    if scenario is not None:
        held = held.filter(scenario=scenario)
    if conditions is not None:
        held = held.filter(condition__in=list(conditions))
    return held.count()


@dataclass(frozen=True)
class HeldResponse:
    response: Response
    answers: list[str]  # as shown
    # each step's text as shown, cut where it names the study's catalogue (highlighted), and
    # after ``HELD_STEP_SHOWN`` characters unless the whole text was asked for; a single-text
    # response's one text alone (``text_task``)
    segments: list[StepShown]
    text_task: bool  # one text, or a pair's two: no items, grid or steps to count
    names_found: bool  # the text names something of the catalogue now
    redactions: int  # text versions made so far
    items: dict[int, int]  # numbered items found in Steps 1, 3, 4
    grid_found: bool
    grid_rows: int
    warnings: list[str]  # what the parse finds now
    reasons: list[str]  # why it was held when it arrived
    study_held: int  # its study's held responses, on every page
    pair: bool = False  # a pairwise study's unit: its texts are text A and text B


# Held responses per page: each is checked and parsed again when shown (hostile pass 9: an
# import of thousands of held responses made the page recompute them all on every load)
HELD_PER_PAGE = 20
# Characters of a step the list shows (a response's whole text: on request, one at a time). A CGPST
# step is a few thousand characters; hostile pass 18's 45,000-character steps made a page of 16 MB.
HELD_STEP_SHOWN = 10_000


@dataclass(frozen=True)
class HeldPage:
    page: Page[Any]  # of responses annotated with their text changes
    rows: list[HeldResponse]


@dataclass(frozen=True)
class HeldFilters:
    """Which held responses a list shows and a bulk action takes: of a study, a scenario, a
    model, a condition, held for a reason (a hold reason's code), a research ID containing
    ``search``. Unset: any."""

    study: Study | None = None
    scenario: Scenario | None = None
    model: ModelEndpoint | None = None
    condition: Condition | None = None
    reason: str = ""
    search: str = ""


def responses_held_matching(*, filters: HeldFilters) -> QuerySet[Response]:
    """The held responses ``filters`` name."""
    held = responses_held(study=filters.study)
    for field in ("scenario", "model", "condition"):
        if (chosen := getattr(filters, field)) is not None:
            held = held.filter(**{field: chosen})
    if filters.search:
        held = held.filter(research_id__icontains=filters.search)
    if filters.reason:
        # the reasons are a JSON list: read in Python, as SQLite has no JSON containment
        held = held.filter(
            pk__in=[
                pk
                for pk, reasons in held.values_list("pk", "hold_reasons")
                if any(isinstance(r, dict) and r.get("code") == filters.reason for r in reasons or [])
            ]
        )
    return held


def held_responses_review(
    *, filters: HeldFilters, page: str | None = None, whole: int | None = None
) -> HeldPage:
    """One page of the held responses page: each held response ``filters`` name with its text
    (the names of its study's catalogue marked; each step's first ``HELD_STEP_SHOWN`` characters,
    all of them for the response ``whole`` names) and its parse result; ``page`` as the query
    string gives it (a number out of range or not a number: the nearest page)."""
    rows = []
    terms = BlindTermsRead()
    held = (
        responses_held_matching(filters=filters)
        .select_related("study", "scenario", "model", "condition")
        .annotate(n_text_changes=Count("text_changes"))
        .order_by("study__name", "created_at", "pk")
    )
    shown = Paginator(held, HELD_PER_PAGE).get_page(page)
    counts = held_counts_by_study()
    for response in shown.object_list:
        texts = TASK_TEXTS[response.study.task_kind]
        text_task = texts < 6
        parsed = parse_response(response.answers, texts=texts)
        # a single-text response's one text is its first answer, a pair's two its first two
        answers = response.shown_answers[:texts]
        if response.blind_spans is not None:  # as checked when it arrived or was redacted
            stored = response.blind_spans
            segments = [
                blind_segments_stored(text, stored.get(str(step), []))
                for step, text in enumerate(answers, start=1)
            ]
        else:  # held before the spans were kept: checked now
            found = terms.of(study=response.study, model=response.model, condition=response.condition)
            segments = [blind_segments(text, found) for text in answers]
        limit = None if response.pk == whole else HELD_STEP_SHOWN
        rows.append(
            HeldResponse(
                response=response,
                answers=answers,
                segments=[step_shown(step, limit) for step in segments],
                text_task=text_task,
                names_found=any(seg.kind for step in segments for seg in step),
                redactions=response.n_text_changes,
                items={step: len(texts) for step, texts in parsed.items.items()},
                grid_found=parsed.grid is not None,
                grid_rows=len(parsed.grid.rows) if parsed.grid else 0,
                warnings=[
                    hold_reason_text(w.as_dict(), task=response.study.task_kind) for w in parsed.warnings
                ],
                reasons=[hold_reason_text(r, task=response.study.task_kind) for r in response.hold_reasons],
                study_held=counts.get(response.study_id, 0),
                pair=texts == 2,
            )
        )
    return HeldPage(page=shown, rows=rows)


def held_counts_by_study() -> dict[int, int]:
    """Held responses per study id (studies with none are left out)."""
    return dict(responses_held().values_list("study_id").annotate(n=Count("id")).values_list("study_id", "n"))


# --- the blind-text check's catalogue -----------------------------------------------------
# Words a model's name is made of that name no model ("deepseek-chat", "qwen3-instruct").
# What a text may call a model family instead: its maker and its chat product, in English and
# Chinese (names that ordinary prose uses, as "Alibaba", "Meta", "Google" or "Sonnet", are left out).
# (companies whose names prose uses, a cloud, a search engine, "阿里云", "百度", "字节跳动", are makers
# only, looked for where a text says who made it: hostile pass 20)
_MODEL_ALIASES = {
    "gpt": ["ChatGPT", "OpenAI"],
    "claude": ["Anthropic", "克劳德"],
    "gemini": ["Bard", "Google DeepMind", "双子座"],
    "qwen": ["Tongyi", "Qianwen", "Tongyi Qianwen", "通义千问", "通义", "千问"],
    "deepseek": ["Deep Seek", "深度求索"],
    "kimi": ["Moonshot AI", "月之暗面"],
    "llama": ["Meta AI", "羊驼"],
    "glm": ["Zhipu", "智谱", "智谱清言"],
    "doubao": ["豆包"],
    "ernie": ["文心一言", "文心"],
}
# The companies that make models, as a model names its maker ("trained by Google", "由阿里巴巴开发").
_MAKERS = (
    "Google", "谷歌", "Google DeepMind", "DeepMind", "Meta", "Meta AI", "OpenAI", "Anthropic", "Alibaba", "Alibaba Group",
    "Alibaba Cloud", "阿里巴巴", "阿里", "阿里云", "Moonshot", "Moonshot AI", "月之暗面", "DeepSeek", "深度求索",
    "Zhipu", "Zhipu AI", "智谱", "ByteDance", "字节跳动", "Baidu", "百度", "Tencent", "腾讯", "Mistral", "Mistral AI",
    "xAI", "Microsoft", "微软", "Amazon", "亚马逊", "01.AI", "零一万物", "MiniMax", "Baichuan", "百川智能",
    "iFlytek", "科大讯飞", "SenseTime", "商汤",
)  # fmt: skip


def _product_lines(name: str) -> list[str]:
    """The product line a model is called by without its family, with its version
    ("claude-opus-4-1-20250805": "Opus 4.1", "Opus 4"; "claude-3-5-sonnet": "Sonnet 3.5"):
    a text says "As Opus 4.1, I" (hostile pass 13). Without a version the word is prose
    ("a magnum opus", "a sonnet")."""
    parts = [part for part in re.split(r"[-_:.\s]+", name.rsplit("/", 1)[-1].strip()) if part][1:]
    words = [p for p in parts if p.isalpha() and len(p) >= 4 and p.lower() not in VARIANT_WORDS]
    numbers = [p for p in parts if p.isdigit() and len(p) <= 2]
    if not words or not numbers:
        return []
    line = words[0].capitalize()
    return [f"{line} {'.'.join(numbers[:2])}", f"{line} {numbers[0]}"]


def _without_brackets(name: str) -> str:
    """ "Single model (baseline)" -> "Single model"."""
    return re.sub(r"\s*[(（][^)）]*[)）]", "", name).strip()


def _model_names(endpoint: ModelEndpoint) -> list[str]:
    """An endpoint's names as a text might give them: its name, its model's name, that name
    without the provider's path ("anthropic/claude-opus-4.1"), the family it starts with
    ("claude", "qwen3", "gpt") and its product line ("Opus 4.1")."""
    names = [endpoint.name, endpoint.model_name, endpoint.model_name.rsplit("/", 1)[-1]]
    for name in list(names):
        family = re.split(r"[-_:.\s]", name.strip(), maxsplit=1)[0]
        if len(family) >= 3 and family.lower() not in MODEL_WORDS:
            names.append(family)
            letters = re.match(r"[A-Za-z]{3,}", family)  # "qwen" of "qwen3": "Qwen 3", "Qwen2.5"
            if letters and letters[0].lower() not in MODEL_WORDS:
                names.append(letters[0])
                names += _MODEL_ALIASES.get(letters[0].lower(), [])
        names += _product_lines(name)
    return names


class BlindTermsRead:
    """``study_blind_terms`` read once per study, model and condition, for callers that check
    many responses (an import, a build of pairs, a page of held responses)."""

    def __init__(self) -> None:
        self._read: dict[tuple[int, int, int], list[BlindTerm]] = {}

    def of(self, *, study: Study, model: ModelEndpoint, condition: Condition) -> list[BlindTerm]:
        key = (study.pk, model.pk, condition.pk)
        if key not in self._read:
            self._read[key] = study_blind_terms(study=study, model=model, condition=condition)
        return self._read[key]


def study_blind_terms(
    *, study: Study, model: ModelEndpoint | None = None, condition: Condition | None = None
) -> list[BlindTerm]:
    """The names a response of ``study`` must not give, for the review gate's blind-text
    check (``studies.blind_text``): its conditions' names and strategies (in English and
    Chinese), its endpoints' names and models, and what the apps above add (generation: the
    roles its strategies give and the study's member profiles). The study's choice of
    conditions and endpoints, or the whole catalogue when it has chosen none; ``model`` and
    ``condition`` (a response's own) are always in."""
    conditions = list(study.conditions.all()) or list(Condition.objects.all())
    endpoints = list(study.endpoints.all()) or list(ModelEndpoint.objects.all())
    conditions += [condition] if condition is not None else []
    endpoints += [model] if model is not None else []
    found: dict[str, BlindTerm] = {}

    def add(text: str, kind: str) -> None:
        text = " ".join(text.split())
        if text and text.casefold() not in found:
            found[text.casefold()] = BlindTerm(text, kind)

    for endpoint in endpoints:
        for name in _model_names(endpoint):
            add(name, MODEL)
    strategies = {c.strategy for c in conditions}
    for language in ("en", "zh-hans"):
        with translation.override(language):
            for value, label in Strategy.choices:
                if value in strategies:
                    add(_without_brackets(str(label)), STRATEGY)
    for c in conditions:
        add(c.name, CONDITION)
        add(_without_brackets(c.name), CONDITION)
    for code in Scenario.objects.filter(study=study).values_list("code", flat=True):
        add(code, RESEARCH_ID)
    for maker in _MAKERS:
        add(maker, MAKER)
    for source in blind_term_sources():
        for term in source(study):
            add(term.text, term.kind)
    return list(found.values())
