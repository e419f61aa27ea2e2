"""Creating responses (generated or imported) and parsing them into items."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from studies.blind_text import BlindTerm, blind_names_of, blind_steps_found
from studies.models import (
    TASK_TEXTS,
    Condition,
    ModelEndpoint,
    Response,
    ResponseItem,
    ResponseSource,
    Scenario,
    Strategy,
    Study,
    TaskKind,
    shown_text,
)
from studies.parsing import ParsedResponse, parse_response
from studies.problems import problem_text
from studies.response_files import (
    RESEARCH_ID,
    RecordError,
    RecordProblems,
    ResponseRecord,
    stored_answers,
)
from studies.review import held_response_text, hold_reasons_for
from studies.selectors import BlindTermsRead, study_blind_terms
from studies.services.audit import audit_record
from studies.services.scenarios import released_scenario
from studies.services.setup import DEFAULT_CONDITIONS, PAPER_MODELS
from studies.signals import response_answers_changed, response_created

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class ResponseExists(Exception):
    pass


def research_id_for(*, condition: Condition, model: ModelEndpoint, scenario: Scenario) -> str:
    return f"{condition.letter}{model.model_number}_{scenario.code}"


def response_parse(*, response: Response) -> Response:
    """(Re)build the response's items, blank counts and Step-5 grid checks."""
    _parse_into(response)
    return response


def _parse_into(response: Response, parsed: ParsedResponse | None = None) -> ParsedResponse:
    parsed = parsed or parse_response(response.answers, texts=TASK_TEXTS[response.study.task_kind])
    with transaction.atomic():
        ResponseItem.objects.filter(response=response).delete()
        ResponseItem.objects.bulk_create(
            ResponseItem(response=response, step=step, position=pos, text=text)
            for step, texts in parsed.items.items()
            for pos, text in enumerate(texts, start=1)
        )
        response.step1_blank_items = parsed.blank_items[1]
        response.step3_blank_items = parsed.blank_items[3]
        response.grid = parsed.grid.as_dict() if parsed.grid else None
        response.grid_errors = [e.as_dict() for e in parsed.grid_errors]
        response.implied_correctly_used = parsed.implied_correctly_used
        response.parse_notes = parsed.notes
        response.save(
            update_fields=[
                "step1_blank_items",
                "step3_blank_items",
                "grid",
                "grid_errors",
                "implied_correctly_used",
                "parse_notes",
                "updated_at",
            ]
        )
    return parsed


def response_texts_store(
    *,
    response: Response,
    texts: dict[int, str],
    actor: User | None,
    action: str,
    changes: dict[str, Any],
    reason: str = "",
    also_save: tuple[str, ...] = (),
) -> None:
    """Store new texts for some of a response's steps (``texts``: step -> text; ``also_save``:
    other fields already set on ``response``), parse it again, audit the change as ``action``
    and tell the apps above (the diversity follows). In the caller's transaction."""
    for step, text in texts.items():
        setattr(response, f"step{step}", text)
    response.save(update_fields=[*(f"step{step}" for step in texts), *also_save, "updated_at"])
    response_parse(response=response)
    audit_record(
        actor=actor, action=action, target=response, study=response.study, changes=changes, reason=reason
    )
    response_answers_changed.send(sender=Response, response=response, steps=sorted(texts))


def response_text_restore(*, response: Response, answers: list[str]) -> Response:
    """Store a response's texts exactly as given (six steps, or a single-text study's one text)
    where the stored ones differ only in whitespace (an earlier import trimmed them): nothing a
    rater reads changes, the diversity as released is recomputed. Audited."""
    answers = stored_answers(answers)
    changed = {n: answers[n - 1] for n in range(1, 7) if response.answer(n) != answers[n - 1]}
    if changed:
        with transaction.atomic():
            response_texts_store(
                response=response,
                texts=changed,
                actor=None,
                action="response.text_restored",
                changes={"steps": sorted(changed)},
                reason="re-import: text kept exactly as given (whitespace)",
            )
    return response


def response_create(
    *,
    study: Study,
    scenario: Scenario,
    model: ModelEndpoint,
    condition: Condition,
    answers: list[str],
    source: str,
    research_id: str = "",
    blind_terms: list[BlindTerm] | None = None,
) -> Response:
    """A new response with a fresh blind code, parsed into items. It is held for review
    (assigned to no rater until an administrator releases it) when its parse found
    warnings, when its text names a role, strategy, condition or model of the study's
    catalogue (``studies.blind_text``), or when it is generated and the study's responses
    need release. ``blind_terms``: the study's catalogue for this model and condition, when the
    caller (an import of many) has read it already. ``answers``: the six steps', or a
    single-text study's one text (kept as the first answer)."""
    texts = TASK_TEXTS[study.task_kind]
    if len(answers) != texts:
        raise ValueError(f"a response of this study has {texts} text(s), not {len(answers)}")
    answers = stored_answers(answers)
    research_id = research_id or research_id_for(condition=condition, model=model, scenario=scenario)
    parsed = parse_response(answers, texts=texts)
    # checked as people read the text, and the spans kept: the held page shows them unchecked
    spans = blind_steps_found(
        [shown_text(a) for a in answers],
        blind_terms
        if blind_terms is not None
        else study_blind_terms(study=study, model=model, condition=condition),
    )
    reasons = hold_reasons_for(
        parsed=parsed,
        generated=source == ResponseSource.GENERATED,
        needs_release=study.responses_need_release,
        blind_names=blind_names_of(spans),
    )
    with transaction.atomic():
        if Response.objects.filter(study=study, research_id=research_id).exists():
            raise ResponseExists(research_id)
        response = Response.objects.create(
            study=study,
            scenario=scenario,
            model=model,
            condition=condition,
            research_id=research_id,
            source=source,
            held=bool(reasons),
            hold_reasons=reasons,
            blind_spans=spans,
            released_at=None if reasons else timezone.now(),
            **dict(zip(Response.STEP_FIELDS, answers, strict=True)),
        )
        _parse_into(response, parsed)
        if reasons:
            audit_record(
                actor=None, action="response.held", target=response, study=study, changes={"reasons": reasons}
            )
        # e.g. a scenario group that already has its rater pair takes the new response at
        # once (a held one waits for its release)
        response_created.send(sender=Response, response=response)
    return response


def scenario_for(*, study: Study, code: str) -> Scenario | None:
    """The study's own scenario with that code, else the shared one."""
    return (
        Scenario.objects.filter(study=study, code=code).first()
        or Scenario.objects.filter(study__isnull=True, code=code).first()
    )


# --- import ------------------------------------------------------------------------


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    created_objects: list[str] = field(default_factory=list)
    # responses whose stored text differed from the file's only in whitespace
    restored: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # created responses held for review: assigned to no rater until released
    held: list[str] = field(default_factory=list)
    hold_reasons: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # research ID -> why
    task: str = TaskKind.CGPST  # the study's task kind: how a reason names a text

    def held_texts(self, limit: int | None = None) -> list[str]:
        """The first ``limit`` held responses, each with why, in the reader's language."""
        return [
            held_response_text(rid, self.hold_reasons.get(rid, []), task=self.task)
            for rid in self.held[:limit]
        ]

    def summary(self) -> str:
        parts = [
            f"{len(self.created)} response(s) created",
            f"{len(self.unchanged)} already present and identical",
        ]
        if self.held:
            parts.append(f"{len(self.held)} held for review")
        if self.restored:
            parts.append(f"{len(self.restored)} with their whitespace restored as given")
        if self.created_objects:
            parts.append("also created: " + ", ".join(self.created_objects))
        return "; ".join(parts)


def _find_model(name: str) -> ModelEndpoint | None:
    model = ModelEndpoint.objects.filter(name=name).first()
    if model is None and re.fullmatch(r"[0-9]{2}", name):
        model = ModelEndpoint.objects.filter(model_number=name).first()
    return model


def _resolve_model(record: ResponseRecord, create_missing: bool, report: ImportReport) -> ModelEndpoint:
    model = _find_model(record.model)
    if model is None:
        if not create_missing:
            raise RecordError(
                record.where,
                "model",
                _("unknown model %(m)r (allow creating missing ones to create it)") % {"m": record.model},
            )
        number = record.model if re.fullmatch(r"[0-9]{2}", record.model) else None
        if number is None:
            m = RESEARCH_ID.match(record.research_id)
            number = m["number"] if m else None
        if number is None or ModelEndpoint.objects.filter(model_number=number).exists():
            raise RecordError(
                record.where,
                "model",
                _("cannot create model %(m)r: no free model number") % {"m": record.model},
            )
        paper = {n: (name, model_name) for n, name, model_name in PAPER_MODELS}
        if number != record.model:
            name, model_name = record.model, ""
        elif number in paper:  # the paper's numbering: 05 is kimi-k2
            name, model_name = paper[number]
        else:
            name, model_name = f"model-{number}", ""
        model = ModelEndpoint.objects.create(name=name, model_number=number, model_name=model_name)
        report.created_objects.append(f"model {number} {name}")
    return model


def _resolve_condition(record: ResponseRecord, create_missing: bool, report: ImportReport) -> Condition:
    condition = Condition.objects.filter(letter=record.condition).first()
    if condition is not None:
        return condition
    if not create_missing:
        raise RecordError(
            record.where,
            "condition",
            _("unknown condition letter %(c)r (allow creating missing ones to create it)")
            % {"c": record.condition},
        )
    standard = {letter: (name, strategy) for letter, name, strategy in DEFAULT_CONDITIONS}
    name, strategy = standard.get(record.condition, (f"Condition {record.condition}", Strategy.SINGLE))
    if record.condition not in standard:
        report.warnings.append(
            f"condition {record.condition} is not a standard one: created with the single-model strategy; "
            "set its name and strategy in the Django admin"
        )
    condition = Condition.objects.create(letter=record.condition, name=name, strategy=strategy)
    report.created_objects.append(f"condition {record.condition} ({name})")
    return condition


def _create_scenario(record: ResponseRecord, study: Study, report: ImportReport) -> Scenario:
    released = released_scenario(record.scenario)
    if released is not None:  # the release's public scenario: its real text
        scenario = Scenario.objects.create(study=study, code=released.code, **released.values())
        report.created_objects.append(f"scenario {record.scenario} (text from the release)")
        return scenario
    scenario = Scenario.objects.create(study=study, code=record.scenario, theme=record.scenario, text="")
    report.created_objects.append(f"scenario {record.scenario}")
    report.warnings.append(
        f"scenario {record.scenario} was created with an empty text: import its text "
        f"(import_scenarios FILE --study {study.name!r}) before raters score it"
    )
    return scenario


def _unknown(kind: str, name: str) -> str:
    """A name the installation does not know, and how to have it created."""
    messages = {
        "scenario": _("unknown scenario %(name)r (allow creating missing ones to create it)"),
        "model": _("unknown model %(name)r (allow creating missing ones to create it)"),
        "condition": _("unknown condition %(name)r (allow creating missing ones to create it)"),
    }
    return messages[kind] % {"name": name}


def responses_unknown_names(*, records: list[ResponseRecord], study: Study) -> list[str]:
    """Every scenario, model and condition the records name that does not exist, each once
    with the first record that uses it."""
    problems: dict[tuple[str, str], str] = {}
    for rec in records:
        checks = (
            ("condition", rec.condition, Condition.objects.filter(letter=rec.condition).exists()),
            ("scenario", rec.scenario, scenario_for(study=study, code=rec.scenario) is not None),
            ("model", rec.model, _find_model(rec.model) is not None),
        )
        for kind, name, known in checks:
            if not known and (kind, name) not in problems:
                problems[(kind, name)] = problem_text(rec.where, kind, _unknown(kind, name))
    return list(problems.values())


def _record_problems(
    rec: ResponseRecord, *, study: Study, create_missing: bool, seen: dict[str, str]
) -> list[str]:
    """Every problem of one record: its own, then against the file and the database."""
    text_task = study.task_kind == TaskKind.TEXT
    problems = [*rec.problems, *rec.kind_problems(text_task=text_task)]
    if rec.research_id:
        if rec.research_id in seen:
            problems.append(
                problem_text(
                    rec.where,
                    "research_id",
                    _("appears twice in the file (first at %(first)s)") % {"first": seen[rec.research_id]},
                )
            )
        else:
            seen[rec.research_id] = rec.where.split(" (")[0]
        if not RESEARCH_ID.match(rec.research_id):
            problems.append(problem_text(rec.where, "research_id", _("not a research ID like A05_FS10")))
    condition = Condition.objects.filter(letter=rec.condition).first() if rec.condition else None
    scenario = scenario_for(study=study, code=rec.scenario) if rec.scenario else None
    model = _find_model(rec.model) if rec.model else None
    if not create_missing:
        for kind, name, known in (
            ("scenario", rec.scenario, scenario), ("model", rec.model, model), ("condition", rec.condition, condition)
        ):  # fmt: skip
            if name and known is None:
                problems.append(problem_text(rec.where, kind, _unknown(kind, name)))
    if condition and scenario and model and RESEARCH_ID.match(rec.research_id):
        expected = research_id_for(condition=condition, model=model, scenario=scenario)
        if rec.research_id != expected:
            problems.append(
                problem_text(
                    rec.where,
                    "research_id",
                    _("should be %(e)s for this condition, model and scenario") % {"e": expected},
                )
            )
    if rec.research_id and len(rec.answers) == (1 if text_task else 6):
        existing = Response.objects.filter(study=study, research_id=rec.research_id).first()
        # the same text but for whitespace an earlier version trimmed is restored, not refused
        shown = [shown_text(a) for a in stored_answers(rec.answers)]
        if existing is not None and existing.shown_answers != shown:
            problems.append(
                problem_text(
                    rec.where,
                    "research_id",
                    _("a different response with this research ID already exists in the study"),
                )
            )
    return problems


Progress = Callable[[int, int], None]  # (done, total): records checked


PROGRESS_EVERY = 50


def responses_import(
    *,
    records: list[ResponseRecord],
    study: Study,
    create_missing: bool = False,
    actor: User | None = None,
    source: str = "",
    progress: Progress | None = None,
    on_imported: Callable[[ImportReport], None] | None = None,
) -> ImportReport:
    """Import responses all-or-nothing. Re-importing an identical response is a
    no-op; a different response under an existing research ID is an error. Every
    problem of every record is reported at once, in file order (RecordProblems). An import
    that changed anything is audited (``responses.import``: who, from where, which IDs).
    ``progress`` is told every ``PROGRESS_EVERY`` records checked (the import itself is one
    transaction: nothing of it shows before its commit); ``on_imported`` runs inside that
    transaction once every record is in (an import job records its outcome there)."""
    total = len(records)

    def told(done: int) -> None:
        if progress is not None and (done % PROGRESS_EVERY == 0 or done == total):
            progress(done, total)

    report = ImportReport(task=study.task_kind)
    # the catalogue, read once per model and condition (the import adds no term but its models)
    catalogues = BlindTermsRead()
    seen: set[str] = set()
    firsts: dict[str, str] = {}
    problems = []
    for done, rec in enumerate(records, start=1):
        problems += _record_problems(rec, study=study, create_missing=create_missing, seen=firsts)
        told(done)
    if problems:
        raise RecordProblems(problems)
    with transaction.atomic():
        for rec in records:
            if rec.research_id in seen:
                raise RecordError(rec.where, "research_id", _("appears twice in the file"))
            seen.add(rec.research_id)
            m = RESEARCH_ID.match(rec.research_id)
            if not m:
                raise RecordError(rec.where, "research_id", _("not a research ID like A05_FS10"))
            condition = _resolve_condition(rec, create_missing, report)
            scenario = scenario_for(study=study, code=rec.scenario) or _create_scenario(rec, study, report)
            model = _resolve_model(rec, create_missing, report)
            expected = research_id_for(condition=condition, model=model, scenario=scenario)
            if rec.research_id != expected:
                raise RecordError(
                    rec.where,
                    "research_id",
                    _("should be %(e)s for this condition, model and scenario") % {"e": expected},
                )
            existing = Response.objects.filter(study=study, research_id=rec.research_id).first()
            if existing is not None:
                if existing.answers == stored_answers(rec.answers):
                    report.unchanged.append(rec.research_id)
                    continue
                if existing.shown_answers == [shown_text(a) for a in stored_answers(rec.answers)]:
                    # Stored trimmed by an earlier version: keep the text as given.
                    response_text_restore(response=existing, answers=rec.answers)
                    report.restored.append(rec.research_id)
                    continue
                raise RecordError(
                    rec.where,
                    "research_id",
                    _("a different response with this research ID already exists in the study"),
                )
            response = response_create(
                study=study,
                scenario=scenario,
                model=model,
                condition=condition,
                answers=rec.answers,
                source=ResponseSource.IMPORTED,
                research_id=rec.research_id,
                blind_terms=catalogues.of(study=study, model=model, condition=condition),
            )
            report.created.append(rec.research_id)
            if response.held:
                report.held.append(rec.research_id)
                report.hold_reasons[rec.research_id] = response.hold_reasons
        if report.created or report.restored or report.created_objects:
            audit_record(
                actor=actor,
                action="responses.import",
                target=f"study:{study.pk}",
                study=study,
                changes={
                    "created": report.created,
                    "held": report.held,
                    "restored": report.restored,
                    "created_objects": report.created_objects,
                },
                reason=source,
            )
        if on_imported is not None:
            on_imported(report)
    return report
