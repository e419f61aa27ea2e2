"""Reading response files (data_A.json score objects, JSON Lines) into records, and the
import's error types. Nothing here touches the database: the import checks records against it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.utils.translation import gettext as _

from studies.problems import problem_text
from studies.upload_safety import json_parse

RESEARCH_ID = re.compile(r"^(?P<letter>[A-Z]{1,2})(?P<number>[0-9]{2})_(?P<scenario>[A-Za-z0-9-]+)$")


class RecordError(Exception):
    """One bad record: names the record and the field. The whole import is rolled back."""

    def __init__(self, record: str, field_name: str, message: str):
        super().__init__(problem_text(record, field_name, message))
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
    # those of them that are about the first scores' steps (the score import names them
    # rater by rater instead)
    step_problems: list[str] = field(default_factory=list)


def _data_a_answers(where: str, scores: Any, problems: list[str]) -> list[str]:
    """Step texts of a data_A.json score object: item contents joined per step by a
    newline, each exactly as given (the release's items end in two spaces, which its
    Self-BLEU counts as tokens: 0.3653 for A05_FS10's Step 1, 0.3695 if stripped).
    Every step that is not a list adds its problem; no texts then."""
    if not isinstance(scores, dict):
        problems.append(problem_text(where, "scores", _("expected an object with Step-1..Step-6")))
        return []
    answers = []
    for n in range(1, 7):
        step = scores.get(f"Step-{n}")
        if not isinstance(step, list):
            problems.append(problem_text(where, f"Step-{n}", _("missing or not a list")))
            continue
        texts = [str(it["Content"]) for it in step if isinstance(it, dict) and "Content" in it]
        answers.append("\n".join(texts))
        _step_length_check(where, f"Step-{n}", answers[-1], problems)
    return answers if len(answers) == 6 else []


# A step's answer holds at most this many characters (the study's longest is under 6,000): every
# check a response passes (the parse, the blind-text check, a rater's page) costs time in its
# length, and a file of megabyte steps would tie up the import.
MAX_STEP_CHARS = 50_000


def _step_length_check(where: str, field_name: str, text: str, problems: list[str]) -> None:
    if len(text) > MAX_STEP_CHARS:
        message = _("longer than %(n)s characters (%(length)s)") % {"n": MAX_STEP_CHARS, "length": len(text)}
        problems.append(problem_text(where, field_name, message))


def _data_a_record(i: int, row: Any) -> ResponseRecord:
    """One data_A.json record; every problem of its own shape is in its ``problems``, each
    with its field (the research ID, the scenario ID, each step of the first scores)."""
    record = _("record %(n)s") % {"n": i}
    if not isinstance(row, list) or len(row) != 5:
        message = _("expected [response_id, [rater1, rater2], scenario_id, scores1, scores2]")
        return ResponseRecord(record, "", "", "", "", [], [problem_text(record, "record", message)])
    rid = str(row[0])
    where = f"{record} ({rid})"
    problems: list[str] = []
    m = RESEARCH_ID.match(rid)
    if not m:
        problems.append(problem_text(where, "response_id", _("not a research ID like A05_FS10")))
    elif str(row[2]) != m["scenario"]:
        problems.append(problem_text(where, "scenario_id", _("does not match the research ID")))
    step_problems: list[str] = []
    answers = _data_a_answers(where, row[3], step_problems)
    problems += step_problems
    if not m:
        return ResponseRecord(where, "", str(row[2]), "", "", answers, problems, step_problems)
    return ResponseRecord(where, rid, str(row[2]), m["number"], m["letter"], answers, problems, step_problems)


def records_from_data_a(data: Any) -> list[ResponseRecord]:
    """One record per entry of a data_A.json list, in file order, each carrying every
    problem of its own shape (the import adds those against the database)."""
    if not isinstance(data, list):
        raise RecordError("file", "top level", _("expected a list of responses"))
    if not data:
        raise RecordError("file", "records", _("no records found"))
    _refuse_too_many(len(data))
    return [_data_a_record(i, row) for i, row in enumerate(data, start=1)]


# One file holds at most this many responses (ten times the paper's 600): a larger one is
# refused before any record is read, with one message.
MAX_RECORDS = 6000


def _refuse_too_many(count: int) -> None:
    if count > MAX_RECORDS:
        raise RecordError(
            "file",
            "records",
            _("more than %(n)s responses in one file: split it into several imports") % {"n": MAX_RECORDS},
        )


def _jsonl_record(i: int, line: str) -> ResponseRecord:
    """One line as a record; every problem of the line is in its ``problems``."""
    where = _("line %(n)s") % {"n": i}
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
            [problem_text(where, "json", _("not valid JSON (%(err)s)") % {"err": exc.msg})],
        )
    if not isinstance(obj, dict):
        return ResponseRecord(
            where, "", "", "", "", [], [problem_text(where, "record", _("expected a JSON object"))]
        )
    rid = obj.get("research_id")
    if isinstance(rid, str) and rid.strip():
        where = f"{where} ({rid.strip()})"
    problems = []
    values = {}
    for key in ("research_id", "scenario", "model", "condition"):
        if key not in obj:
            problems.append(problem_text(where, key, _("missing")))
        elif not isinstance(obj[key], str) or not obj[key].strip():
            problems.append(problem_text(where, key, _("must be a non-empty string")))
        else:
            values[key] = obj[key].strip()
    steps = obj.get("steps")
    if "steps" not in obj:
        problems.append(problem_text(where, "steps", _("missing")))
        steps = []
    elif isinstance(steps, dict):
        if all(k in steps for k in map(str, range(1, 7))):
            steps = [steps[k] for k in map(str, range(1, 7))]
            if not all(isinstance(step, str) for step in steps):  # hostile pass 11: a 500 before
                problems.append(problem_text(where, "steps", _("must be six strings (Steps 1-6)")))
                steps = []
        else:
            problems.append(problem_text(where, "steps", _("needs keys 1 to 6")))
            steps = []
    elif not isinstance(steps, list) or len(steps) != 6 or not all(isinstance(s, str) for s in steps):
        problems.append(problem_text(where, "steps", _("must be six strings (Steps 1-6)")))
        steps = []
    for n, text in enumerate(steps, start=1):
        if isinstance(text, str):
            _step_length_check(where, f"steps[{n}]", text, problems)
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
    lines = [(i, line) for i, line in enumerate(text.splitlines(), start=1) if line.strip()]
    _refuse_too_many(len(lines))
    records = [_jsonl_record(i, line) for i, line in lines]
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


def response_text_from_upload(content: bytes) -> str:
    """An uploaded file's text (the import page), either format."""
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RecordError("file", "file", _("the file is not UTF-8 text")) from exc


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
