"""Creating responses (generated or imported) and parsing them into items."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from studies.models import (
    Condition,
    ModelEndpoint,
    Response,
    ResponseItem,
    ResponseSource,
    Scenario,
    Strategy,
    Study,
    shown_text,
)
from studies.parsing import parse_response
from studies.services.audit import audit_record
from studies.services.scenarios import released_scenario
from studies.services.setup import DEFAULT_CONDITIONS, PAPER_MODELS
from studies.signals import response_answers_changed, response_created
from studies.upload_safety import json_parse

RESEARCH_ID = re.compile(r"^(?P<letter>[A-Z]{1,2})(?P<number>\d{2})_(?P<scenario>[A-Za-z0-9-]+)$")


class RecordError(Exception):
    """One bad record: names the record and the field. The whole import is rolled back."""

    def __init__(self, record: str, field_name: str, message: str):
        super().__init__(f"{record}, field '{field_name}': {message}")
        self.record = record
        self.field = field_name
        self.message = message


class RecordProblems(RecordError):
    """Every problem of every record of a file, in file order, each naming its record
    and field: nothing is imported."""

    def __init__(self, problems: list[str]):
        super().__init__("file", "records", "; ".join(problems))
        self.problems = problems

    def __str__(self) -> str:
        return "\n".join(self.problems)


class UnknownNames(RecordProblems):
    """Names the file uses that the installation does not know, all of them at once."""


def _problem(where: str, field_name: str, message: str) -> str:
    return f"{where}, field '{field_name}': {message}"


class ResponseExists(Exception):
    pass


def research_id_for(*, condition: Condition, model: ModelEndpoint, scenario: Scenario) -> str:
    return f"{condition.letter}{model.model_number}_{scenario.code}"


def response_parse(*, response: Response) -> Response:
    """(Re)build the response's items, blank counts and Step-5 grid checks."""
    parsed = parse_response(response.answers)
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
    return response


def response_text_restore(*, response: Response, answers: list[str]) -> Response:
    """Store a response's texts exactly as given where the stored ones differ only in
    whitespace (an earlier import trimmed them): nothing a rater reads changes, the
    diversity as released is recomputed. Audited."""
    changed = [n for n in range(1, 7) if response.answer(n) != answers[n - 1]]
    if not changed:
        return response
    with transaction.atomic():
        for n in changed:
            setattr(response, f"step{n}", answers[n - 1])
        response.save(update_fields=[f"step{n}" for n in changed] + ["updated_at"])
        response_parse(response=response)
        audit_record(
            actor=None,
            action="response.text_restored",
            target=response,
            study=response.study,
            changes={"steps": changed},
            reason="re-import: text kept exactly as given (whitespace)",
        )
        response_answers_changed.send(sender=Response, response=response, steps=changed)
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
) -> Response:
    """A new response with a fresh blind code, parsed into items."""
    if len(answers) != 6:
        raise ValueError("a response has exactly six step answers")
    research_id = research_id or research_id_for(condition=condition, model=model, scenario=scenario)
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
            **{f"step{i}": answers[i - 1] for i in range(1, 7)},
        )
        response_parse(response=response)
        # e.g. a scenario group that already has its rater pair takes the new response at once
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

    def summary(self) -> str:
        parts = [
            f"{len(self.created)} response(s) created",
            f"{len(self.unchanged)} already present and identical",
        ]
        if self.restored:
            parts.append(f"{len(self.restored)} with their whitespace restored as given")
        if self.created_objects:
            parts.append("also created: " + ", ".join(self.created_objects))
        return "; ".join(parts)


@dataclass
class ResponseRecord:
    where: str
    research_id: str
    scenario: str
    model: str  # endpoint name or two-digit model number
    condition: str
    answers: list[str]
    # what is wrong with the record itself (missing fields, steps), each with its field;
    # the import adds what is wrong against the database and reports them all at once
    problems: list[str] = field(default_factory=list)


def _data_a_answers(where: str, scores: Any) -> list[str]:
    """Step texts of a data_A.json score object: item contents joined per step by a
    newline, each exactly as given (the release's items end in two spaces, which its
    Self-BLEU counts as tokens: 0.3653 for A05_FS10's Step 1, 0.3695 if stripped)."""
    if not isinstance(scores, dict):
        raise RecordError(where, "scores", _("expected an object with Step-1..Step-6"))
    answers = []
    for n in range(1, 7):
        step = scores.get(f"Step-{n}")
        if not isinstance(step, list):
            raise RecordError(where, f"Step-{n}", _("missing or not a list"))
        texts = [str(it["Content"]) for it in step if isinstance(it, dict) and "Content" in it]
        answers.append("\n".join(texts))
    return answers


def records_from_data_a(data: Any) -> list[ResponseRecord]:
    if not isinstance(data, list):
        raise RecordError("file", "top level", _("expected a list of responses"))
    records = []
    for i, row in enumerate(data, start=1):
        where = f"record {i}"
        if not isinstance(row, list) or len(row) != 5:
            raise RecordError(
                where, "record", _("expected [response_id, [rater1, rater2], scenario_id, scores1, scores2]")
            )
        rid = str(row[0])
        where = f"record {i} ({rid})"
        m = RESEARCH_ID.match(rid)
        if not m:
            raise RecordError(where, "response_id", _("not a research ID like A05_FS10"))
        if str(row[2]) != m["scenario"]:
            raise RecordError(where, "scenario_id", _("does not match the research ID"))
        records.append(
            ResponseRecord(where, rid, str(row[2]), m["number"], m["letter"], _data_a_answers(where, row[3]))
        )
    return records


def _jsonl_record(i: int, line: str) -> ResponseRecord:
    """One line as a record; every problem of the line is in its ``problems``."""
    where = f"line {i}"
    try:
        obj = json_parse(line)
    except json.JSONDecodeError as exc:
        return ResponseRecord(
            where,
            "",
            "",
            "",
            "",
            [],
            [_problem(where, "json", _("not valid JSON (%(err)s)") % {"err": exc.msg})],
        )
    if not isinstance(obj, dict):
        return ResponseRecord(
            where, "", "", "", "", [], [_problem(where, "record", _("expected a JSON object"))]
        )
    rid = obj.get("research_id")
    if isinstance(rid, str) and rid.strip():
        where = f"{where} ({rid.strip()})"
    problems = []
    values = {}
    for key in ("research_id", "scenario", "model", "condition"):
        if key not in obj:
            problems.append(_problem(where, key, _("missing")))
        elif not isinstance(obj[key], str) or not obj[key].strip():
            problems.append(_problem(where, key, _("must be a non-empty string")))
        else:
            values[key] = obj[key].strip()
    steps = obj.get("steps")
    if "steps" not in obj:
        problems.append(_problem(where, "steps", _("missing")))
        steps = []
    elif isinstance(steps, dict):
        if all(k in steps for k in map(str, range(1, 7))):
            steps = [steps[k] for k in map(str, range(1, 7))]
        else:
            problems.append(_problem(where, "steps", _("needs keys 1 to 6")))
            steps = []
    elif not isinstance(steps, list) or len(steps) != 6 or not all(isinstance(s, str) for s in steps):
        problems.append(_problem(where, "steps", _("must be six strings (Steps 1-6)")))
        steps = []
    return ResponseRecord(
        where,
        values.get("research_id", ""),
        values.get("scenario", ""),
        values.get("model", ""),
        values.get("condition", ""),
        steps,
        problems,
    )


def records_from_jsonl(text: str) -> list[ResponseRecord]:
    records = [_jsonl_record(i, line) for i, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not records:
        raise RecordError("file", "records", _("no records found"))
    return records


def records_from_file(path: str | Path) -> list[ResponseRecord]:
    """Read either format: a JSON list (data_A.json) or JSON Lines."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(
            "file", "file", _("cannot read %(path)s: %(err)s") % {"path": path, "err": exc}
        ) from exc
    return records_from_text(text)


def response_records_from_upload(content: bytes) -> list[ResponseRecord]:
    """An uploaded file (the import page) in either format."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RecordError("file", "file", _("the file is not UTF-8 text")) from exc
    return records_from_text(text)


def records_from_text(text: str) -> list[ResponseRecord]:
    if text.lstrip().startswith("["):
        try:
            data = json_parse(text)
        except json.JSONDecodeError as exc:
            raise RecordError(
                "file",
                "json",
                _("not valid JSON (line %(line)s: %(err)s)") % {"line": exc.lineno, "err": exc.msg},
            ) from exc
        return records_from_data_a(data)
    return records_from_jsonl(text)


def _find_model(name: str) -> ModelEndpoint | None:
    model = ModelEndpoint.objects.filter(name=name).first()
    if model is None and re.fullmatch(r"\d{2}", name):
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
        number = record.model if re.fullmatch(r"\d{2}", record.model) else None
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
                problems[(kind, name)] = f"{rec.where}: unknown {kind} {name!r}"
    return [f"{p} (allow creating missing ones to create it)" for p in problems.values()]


def _record_problems(
    rec: ResponseRecord, *, study: Study, create_missing: bool, seen: dict[str, str]
) -> list[str]:
    """Every problem of one record: its own, then against the file and the database."""
    problems = list(rec.problems)
    if rec.research_id:
        if rec.research_id in seen:
            problems.append(
                _problem(
                    rec.where,
                    "research_id",
                    _("appears twice in the file (first at %(first)s)") % {"first": seen[rec.research_id]},
                )
            )
        else:
            seen[rec.research_id] = rec.where.split(" (")[0]
        if not RESEARCH_ID.match(rec.research_id):
            problems.append(_problem(rec.where, "research_id", _("not a research ID like A05_FS10")))
    condition = Condition.objects.filter(letter=rec.condition).first() if rec.condition else None
    scenario = scenario_for(study=study, code=rec.scenario) if rec.scenario else None
    model = _find_model(rec.model) if rec.model else None
    if not create_missing:
        unknown = {
            "scenario": _("unknown scenario %(name)r (allow creating missing ones to create it)"),
            "model": _("unknown model %(name)r (allow creating missing ones to create it)"),
            "condition": _("unknown condition %(name)r (allow creating missing ones to create it)"),
        }
        for kind, name, known in (
            ("scenario", rec.scenario, scenario), ("model", rec.model, model), ("condition", rec.condition, condition)
        ):  # fmt: skip
            if name and known is None:
                problems.append(_problem(rec.where, kind, unknown[kind] % {"name": name}))
    if condition and scenario and model and RESEARCH_ID.match(rec.research_id):
        expected = research_id_for(condition=condition, model=model, scenario=scenario)
        if rec.research_id != expected:
            problems.append(
                _problem(
                    rec.where,
                    "research_id",
                    _("should be %(e)s for this condition, model and scenario") % {"e": expected},
                )
            )
    if rec.research_id and len(rec.answers) == 6:
        existing = Response.objects.filter(study=study, research_id=rec.research_id).first()
        # the same text but for whitespace an earlier version trimmed is restored, not refused
        if existing is not None and existing.shown_answers != [shown_text(a) for a in rec.answers]:
            problems.append(
                _problem(
                    rec.where,
                    "research_id",
                    _("a different response with this research ID already exists in the study"),
                )
            )
    return problems


def responses_import(
    *, records: list[ResponseRecord], study: Study, create_missing: bool = False
) -> ImportReport:
    """Import responses all-or-nothing. Re-importing an identical response is a
    no-op; a different response under an existing research ID is an error. Every
    problem of every record is reported at once, in file order (RecordProblems)."""
    report = ImportReport()
    seen: set[str] = set()
    firsts: dict[str, str] = {}
    problems = [
        p
        for rec in records
        for p in _record_problems(rec, study=study, create_missing=create_missing, seen=firsts)
    ]
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
                if existing.answers == rec.answers:
                    report.unchanged.append(rec.research_id)
                    continue
                if existing.shown_answers == [shown_text(a) for a in rec.answers]:
                    # Stored trimmed by an earlier version: keep the text as given.
                    response_text_restore(response=existing, answers=rec.answers)
                    report.restored.append(rec.research_id)
                    continue
                raise RecordError(
                    rec.where,
                    "research_id",
                    _("a different response with this research ID already exists in the study"),
                )
            response_create(
                study=study,
                scenario=scenario,
                model=model,
                condition=condition,
                answers=rec.answers,
                source=ResponseSource.IMPORTED,
                research_id=rec.research_id,
            )
            report.created.append(rec.research_id)
    return report
