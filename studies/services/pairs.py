"""A pairwise study's units: every two released responses of its source study (a single-text study,
``Study.pairs_from``) to the same prompt, from different systems (model x condition), side by side
as text A and text B. Raters see the unit's blind code and the two texts, nothing else."""

from __future__ import annotations

import secrets
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations, pairwise
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils.translation import gettext as _

from studies.models import (
    Response,
    ResponsePair,
    ResponseSource,
    ResponseStatus,
    Scenario,
    Study,
    TaskKind,
)
from studies.response_files import RecordError
from studies.selectors import BlindTermsRead
from studies.services.audit import audit_record
from studies.services.responses import response_create

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class PairsError(Exception):
    """Nothing to build; the message is for the admin."""


@dataclass
class PairsReport:
    created: list[str] = field(default_factory=list)  # research IDs of the new units
    existing: int = 0  # pairs built before
    held: list[str] = field(default_factory=list)  # new units the review gate holds
    alone: list[str] = field(default_factory=list)  # prompts with fewer than two systems' responses
    left_out: int = 0  # pairs a sample did not take


def pairs_import_refused(*, study: Study) -> None:
    """A pairwise study's responses are its pairs: built from its source's, never imported."""
    if study.task_kind == TaskKind.PAIR:
        raise RecordError(
            "file",
            "records",
            _(
                "A pairwise study's responses are pairs built from the responses of %(source)s: import "
                "them there, then build the pairs on this study's page."
            )
            % {"source": study.pairs_from.name if study.pairs_from else "?"},
        )


def pair_research_id(*, left: Response, right: Response) -> str:
    """``B90vC91_P1``: text A's condition and model, text B's, the prompt's code."""
    return (
        f"{left.condition.letter}{left.model.model_number}v"
        f"{right.condition.letter}{right.model.model_number}_{left.scenario.code}"
    )


def _source_responses(source: Study) -> dict[str, list[Response]]:
    """The source's released, scoreable responses by prompt code, one per system."""
    by_prompt: dict[str, list[Response]] = defaultdict(list)
    shown = (
        Response.objects.filter(study=source, held=False, is_training_copy=False)
        .exclude(status=ResponseStatus.WITHDRAWN)
        .select_related("scenario", "model", "condition")
        .order_by("scenario__code", "research_id")
    )
    for response in shown:
        by_prompt[response.scenario.code].append(response)
    return by_prompt


def _pair_key(first: Response, second: Response) -> frozenset[int]:
    return frozenset((first.pk, second.pk))


def _pairs_to_add(
    responses: list[Response], built: set[frozenset[int]], per_prompt: int | None
) -> list[tuple[Response, Response]]:
    """One prompt's pairs not built yet, in the order they are taken. Every one when ``per_prompt``
    is None. For a sample: a random chain through the systems, the pair closing it into a cycle, then
    the rest at random; of these, first the pairs that link systems no built or earlier pair links
    (so a large enough sample links every system of the prompt, and the Bradley-Terry scores of its
    systems compare), then the others in that order."""
    new = [pair for pair in combinations(responses, 2) if _pair_key(*pair) not in built]
    if per_prompt is None:
        return new
    chance = secrets.SystemRandom()
    order = list(responses)
    chance.shuffle(order)
    chain = [*pairwise(order), (order[-1], order[0])]
    rest = list(new)
    chance.shuffle(rest)
    from scipy.cluster.hierarchy import DisjointSet  # heavy: imported where it is used

    linked = DisjointSet(r.pk for r in responses)  # the systems the pairs so far link
    for pair in built:
        if all(pk in linked for pk in pair):
            linked.merge(*pair)
    linking: list[tuple[Response, Response]] = []
    others: list[tuple[Response, Response]] = []
    seen: set[frozenset[int]] = set()
    for first, second in [*chain, *rest]:
        key = _pair_key(first, second)
        if key in built or key in seen:
            continue
        seen.add(key)
        # merge() answers whether the pair joined two groups apart until now
        (linking if linked.merge(first.pk, second.pk) else others).append((first, second))
    return [*linking, *others]


def _pair_scenario(study: Study, prompt: Scenario) -> Scenario:
    """The pairwise study's copy of the source's prompt (its assignment pages list its own)."""
    copy, _ = Scenario.objects.get_or_create(
        study=study,
        code=prompt.code,
        defaults={
            "theme": prompt.theme,
            "text": prompt.text,
            "theme_zh": prompt.theme_zh,
            "text_zh": prompt.text_zh,
        },
    )
    return copy


def pairs_build(*, study: Study, actor: User | None, per_prompt: int | None = None) -> PairsReport:
    """Every pair not built yet, A and B drawn at random, each a response of ``study`` (held by
    the review gate like any other when a text names the study's catalogue). Audited.

    ``per_prompt``: a sample, for many systems (n of them make n(n-1)/2 pairs a prompt): at most that
    many pairs of each prompt, the ones built before included, linked first (``_pairs_to_add``).
    Building again with a larger number adds to the sample."""
    source = study.pairs_from
    if study.task_kind != TaskKind.PAIR or source is None:
        raise PairsError(_("Only a pairwise study builds pairs."))
    if per_prompt is not None and per_prompt < 1:
        raise PairsError(_("A sample needs at least one pair a prompt."))
    report = PairsReport()
    catalogue = BlindTermsRead()  # the names the texts must not give, read once per system
    built = {
        frozenset(pair)
        for pair in ResponsePair.objects.filter(response__study=study).values_list("left_id", "right_id")
    }
    with transaction.atomic():
        for code, responses in _source_responses(source).items():
            if len(responses) < 2:
                report.alone.append(code)
                continue
            before = sum(_pair_key(*pair) in built for pair in combinations(responses, 2))
            report.existing += before
            to_add = _pairs_to_add(responses, built, per_prompt)
            if per_prompt is not None:  # the sample's pairs built before count towards it
                room = max(per_prompt - before, 0)
                report.left_out += len(to_add) - min(room, len(to_add))
                to_add = to_add[:room]
            for first, second in to_add:
                left, right = (first, second) if secrets.randbelow(2) else (second, first)
                research_id = pair_research_id(left=left, right=right)
                terms = [
                    *catalogue.of(study=study, model=left.model, condition=left.condition),
                    *catalogue.of(study=study, model=right.model, condition=right.condition),
                ]
                unit = response_create(
                    study=study,
                    scenario=_pair_scenario(study, left.scenario),
                    model=left.model,
                    condition=left.condition,
                    answers=[left.step1, right.step1],
                    source=ResponseSource.PAIRED,
                    research_id=research_id,
                    blind_terms=terms,
                )
                ResponsePair.objects.create(response=unit, left=left, right=right)
                report.created.append(research_id)
                if unit.held:
                    report.held.append(research_id)
        if not report.created:
            raise PairsError(
                _("No new pair: %(existing)s built before; prompts with fewer than two responses: %(alone)s.")
                % {"existing": report.existing, "alone": ", ".join(report.alone) or _("none")}
            )
        audit_record(
            actor=actor,
            action="pairs.build",
            target=study,
            study=study,
            changes={
                "created": report.created,
                "held": report.held,
                "source": source.name,
                "per_prompt": per_prompt,
            },
        )
    return report
