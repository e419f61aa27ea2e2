"""The review gate: an administrator releases a held response to raters, withdraws it, or
redacts the names in its text that would break the blind (a new version of its text)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from core.accounts.roles import is_admin
from studies.blind_segments import blind_redacted
from studies.blind_text import (
    BLIND_TEXT,
    WORD,
    BlindTerm,
    blind_names_of,
    blind_spans,
    blind_steps_found,
)
from studies.models import Response, ResponseStatus, ResponseTextChange, Study, shown_text
from studies.review import blind_text_reasons
from studies.selectors import study_blind_terms
from studies.services.audit import audit_record
from studies.services.responses import response_texts_store
from studies.signals import responses_released

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# What stands where a name was, in the response's own language.
REDACTED: dict[str, str] = {Study.Language.CHINESE: "[已隐去]", Study.Language.ENGLISH: "[redacted]"}
MAX_EXTRA_WORDS = 20
EXTRA_WORD_LENGTH = (2, 80)


class ReviewError(Exception):
    """A release or withdrawal that cannot be done; ``message`` is for the admin."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Released:
    response: Response
    assignments: int  # made by the arrival path (a paired scenario group takes it at once)


# The most responses one bulk action takes: ten times the paper's study (a larger selection is
# refused whole, in words, and the admin narrows the filters)
BULK_MAX = 6000


def _held_responses(*, response_ids: list[int], actor: User | None) -> list[Response]:
    """The held responses of ``response_ids``, locked, in id order; refused whole (nothing is
    changed) when the actor is no administrator or any of them is gone, withdrawn or released."""
    if actor is None or not is_admin(actor):
        raise ReviewError(_("Only an administrator may release or withdraw a held response."))
    wanted = sorted(set(response_ids))
    if not wanted:
        raise ReviewError(_("No response was chosen."))
    if len(wanted) > BULK_MAX:
        raise ReviewError(
            _("%(n)d responses were chosen; one action takes at most %(max)d. Narrow the filters.")
            % {"n": len(wanted), "max": BULK_MAX}
        )
    responses = list(
        Response.objects.select_for_update(of=("self",))
        .filter(pk__in=wanted)
        .select_related("study")
        .order_by("pk")
    )
    if len(responses) < len(wanted):
        raise ReviewError(_("This response does not exist."))
    for response in responses:
        if response.status == ResponseStatus.WITHDRAWN:
            raise ReviewError(_("%(id)s was withdrawn.") % {"id": response.research_id})
        if not response.held:
            raise ReviewError(
                _("%(id)s is not held: it is already released to raters.") % {"id": response.research_id}
            )
    return responses


def _held_response(*, response_id: int, actor: User | None) -> Response:
    return _held_responses(response_ids=[response_id], actor=actor)[0]


def responses_release(*, response_ids: list[int], actor: User | None) -> list[Released]:
    """Release held responses to raters, all or none: from now on each is assigned as any
    arriving response is (the receivers of ``responses_released`` run the same assignment
    service as on arrival, once for all of them: a scenario group that has its pair takes its
    responses at once). Each release is audited."""
    with transaction.atomic():
        now = timezone.now()
        responses = _held_responses(response_ids=response_ids, actor=actor)
        for response in responses:
            response.held = False
            response.released_at = now
            response.released_by = actor
            response.updated_at = now
            audit_record(
                actor=actor,
                action="response.released",
                target=response,
                study=response.study,
                changes={
                    "held": [True, False],
                    "hold_reasons": [r.get("code") for r in response.hold_reasons],
                },
            )
        Response.objects.filter(pk__in=[r.pk for r in responses]).update(
            held=False, released_at=now, released_by=actor, updated_at=now
        )
        responses_released.send(sender=Response, responses=responses, actor=actor)
        # what the receivers assigned, read back from the data rather than from their return values
        made = dict(
            Response.objects.filter(pk__in=[r.pk for r in responses])
            .annotate(n=Count("assignments", filter=Q(assignments__created_at__gte=now)))
            .values_list("pk", "n")
        )
    return [Released(response=r, assignments=made.get(r.pk, 0)) for r in responses]


def response_release(*, response_id: int, actor: User | None) -> Released:
    """Release one held response (``responses_release``)."""
    return responses_release(response_ids=[response_id], actor=actor)[0]


def responses_withdraw(*, response_ids: list[int], actor: User | None, reason: str = "") -> list[Response]:
    """Withdraw held responses, all or none: they never reach raters and leave every pool
    (plans, counts, the study's checklist); each is kept, with its texts, for the record.
    Each withdrawal is audited, with the admin's reason."""
    with transaction.atomic():
        responses = _held_responses(response_ids=response_ids, actor=actor)
        responses_mark_withdrawn(responses=responses, actor=actor, reason=reason)
    return responses


def response_withdraw(*, response_id: int, actor: User | None, reason: str = "") -> Response:
    """Withdraw one held response (``responses_withdraw``)."""
    return responses_withdraw(response_ids=[response_id], actor=actor, reason=reason)[0]


def responses_mark_withdrawn(
    *, responses: list[Response], actor: User | None, reason: str, flag_id: int | None = None
) -> None:
    """The one withdrawal step, held or flagged: each response (locked by the caller, in the
    caller's transaction) becomes withdrawn, audited with the admin's reason (and the flag
    that led to it)."""
    now = timezone.now()
    for response in responses:
        changes: dict[str, object] = {"status": [response.status, ResponseStatus.WITHDRAWN.value]}
        if flag_id is not None:
            changes["flag"] = flag_id
        audit_record(
            actor=actor,
            action="response.withdrawn",
            target=response,
            study=response.study,
            changes=changes,
            reason=(reason or "").strip(),
        )
        response.status, response.updated_at = ResponseStatus.WITHDRAWN, now
    Response.objects.filter(pk__in=[r.pk for r in responses]).update(
        status=ResponseStatus.WITHDRAWN, updated_at=now
    )


def response_research_id_release(*, response: Response, actor: User | None) -> str:
    """A withdrawn response gives up its research ID, so that its cell (scenario, model,
    condition) can be generated again: it is kept, with its texts and history, under the
    ID with a ``~W1`` suffix (the first number free; training copies use ``~T``). Audited;
    runs in the caller's transaction. Returns the new ID."""
    if response.status != ResponseStatus.WITHDRAWN:
        raise ReviewError(_("Only a withdrawn response gives up its research ID."))
    old = response.research_id
    taken = set(
        Response.objects.filter(study_id=response.study_id, research_id__startswith=f"{old}~W").values_list(
            "research_id", flat=True
        )
    )
    n = 1
    while f"{old}~W{n}" in taken:
        n += 1
    response.research_id = f"{old}~W{n}"
    response.save(update_fields=["research_id", "updated_at"])
    audit_record(
        actor=actor,
        action="response.research_id_released",
        target=response,
        study=response.study,
        changes={"research_id": [old, response.research_id]},
    )
    return response.research_id


@dataclass(frozen=True)
class Redacted:
    response: Response
    steps: list[int]  # the steps whose text changed
    names: list[str]  # what was redacted, as the catalogue (or the admin) writes it


def redaction_words(text: str) -> list[str]:
    """The admin's further words to redact, one per line or comma; ReviewError when there are
    too many or one is too short or too long (nothing is changed then)."""
    words = list(dict.fromkeys(w.strip() for w in text.replace("，", ",").replace("\n", ",").split(",")))
    words = [w for w in words if w]
    low, high = EXTRA_WORD_LENGTH
    if len(words) > MAX_EXTRA_WORDS:
        raise ReviewError(_("At most %(n)s further words can be redacted at once.") % {"n": MAX_EXTRA_WORDS})
    for word in words:
        if not low <= len(word) <= high:
            raise ReviewError(
                _("“%(word)s”: a word to redact has %(low)s to %(high)s characters.")
                % {"word": word[:high], "low": low, "high": high}
            )
    return words


def response_text_redact(*, response_id: int, actor: User | None, words: list[str] | None = None) -> Redacted:
    """Replace, in a held response's six texts, every name of its study's catalogue the
    blind-text check finds (and each of ``words``, anywhere) by a placeholder: a new version
    of each changed step's text (``ResponseTextChange``, the old text kept), its items parsed
    again, its blind-text hold reasons dropped, audited; the diversity follows
    (``response_answers_changed``). It stays held: the admin reads it and releases it.
    Raises ReviewError when there is nothing to redact."""
    with transaction.atomic():
        response = _held_response(response_id=response_id, actor=actor)
        catalogue = study_blind_terms(
            study=response.study, model=response.model, condition=response.condition
        )
        terms = catalogue + [BlindTerm(word, WORD) for word in words or []]
        placeholder = REDACTED.get(response.study.response_language, REDACTED[Study.Language.ENGLISH])
        texts: dict[int, str] = {}
        names: list[str] = []
        for step in range(1, 7):
            old = response.answer(step)
            spans = blind_spans(old, terms)  # once: the text's check costs up to seconds a step
            new = blind_redacted(old, spans, placeholder)
            if new == old:
                continue
            found = list(dict.fromkeys(span.term for span in spans))
            ResponseTextChange.objects.create(
                response=response, step=step, old_text=old, new_text=new, actor=actor, names=found
            )
            texts[step] = new
            names += [name for name in found if name not in names]
        if not texts:
            raise ReviewError(_("The text names nothing to redact."))
        before = [r.get("code") for r in response.hold_reasons]
        redacted = [response.answer(n) if n not in texts else texts[n] for n in range(1, 7)]
        response.hold_reasons = [r for r in response.hold_reasons if r.get("code") != BLIND_TEXT]
        response.blind_spans = blind_steps_found([shown_text(text) for text in redacted], catalogue)
        response.hold_reasons += blind_text_reasons(blind_names_of(response.blind_spans))
        response_texts_store(
            response=response,
            texts=texts,
            actor=actor,
            action="response.redacted",
            changes={
                "steps": sorted(texts),
                "names": names,
                "hold_reasons": [before, [r.get("code") for r in response.hold_reasons]],
            },
            also_save=("hold_reasons", "blind_spans"),
        )
    return Redacted(response=response, steps=sorted(texts), names=names)
