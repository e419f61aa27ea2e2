"""Reading response files (data_A.json score objects, JSON Lines) into records, and the
import's error types. Nothing here touches the database: the import checks records against it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from studies.problems import problem_text
from studies.upload_safety import json_parse

# A record of the other task kind than its study's: said of each field given (translated where said)
TEXT_NOT_STEPS = gettext_noop("this study's responses are one text: give it as text")
STEPS_NOT_TEXT = gettext_noop("this study's responses are six steps: give them as steps")
DATA_A_NOT_TEXT = gettext_noop(
    "Response files of the data_A.json kind hold six steps per response; this study's responses are one "
    'text: give them as JSON Lines, one object per line with its "text".'
)

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

    def kind_problems(self, *, text_task: bool) -> list[str]:
        """Its texts read as the other task kind than its study's (a data_A file's six steps for a
        single-text study): said of the field."""
        if not self.answers or len(self.answers) == (1 if text_task else 6):
            return []
        field_name, message = ("steps", TEXT_NOT_STEPS) if text_task else ("text", STEPS_NOT_TEXT)
        return [problem_text(self.where, field_name, _(message))]


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


def stored_answers(answers: list[str]) -> list[str]:
    """A response's texts as it stores them: a single text is Step 1's, a pair's Steps 1 and 2, the
    rest empty."""
    return [*answers, *[""] * (6 - len(answers))]


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


def _jsonl_steps(where: str, obj: dict[str, Any], problems: list[str]) -> list[str]:
    """A six-step study's record: its ``steps``, six strings (a list, or an object with keys
    "1".."6"); a ``text`` is refused. No texts when they are not all there."""
    if "text" in obj:
        problems.append(problem_text(where, "text", _(STEPS_NOT_TEXT)))
    steps = obj.get("steps")
    if "steps" not in obj:
        problems.append(problem_text(where, "steps", _("missing")))
        return []
    if isinstance(steps, dict):
        if not all(k in steps for k in map(str, range(1, 7))):
            problems.append(problem_text(where, "steps", _("needs keys 1 to 6")))
            return []
        steps = [steps[k] for k in map(str, range(1, 7))]
    # not all strings: hostile pass 11 (a 500 before)
    if not isinstance(steps, list) or len(steps) != 6 or not all(isinstance(s, str) for s in steps):
        problems.append(problem_text(where, "steps", _("must be six strings (Steps 1-6)")))
        return []
    for n, text in enumerate(steps, start=1):
        _step_length_check(where, f"steps[{n}]", text, problems)
    return steps


def _jsonl_text(where: str, obj: dict[str, Any], problems: list[str]) -> list[str]:
    """A single-text study's record: its one ``text`` (empty is read: the parse holds it); step
    fields are refused, each named."""
    step_keys = [key for key in obj if key == "steps" or re.fullmatch(r"step[1-6]", key)]
    problems.extend(problem_text(where, key, _(TEXT_NOT_STEPS)) for key in step_keys)
    if "text" not in obj:
        if not step_keys:
            problems.append(problem_text(where, "text", _("missing")))
        return []
    text = obj["text"]
    if not isinstance(text, str):
        problems.append(problem_text(where, "text", _("must be a string")))
        return []
    _step_length_check(where, "text", text, problems)
    return [text]


def _jsonl_record(i: int, line: str, text_task: bool) -> ResponseRecord:
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
    steps = _jsonl_text(where, obj, problems) if text_task else _jsonl_steps(where, obj, problems)
    return ResponseRecord(
        where,
        values.get("research_id", ""),
        values.get("scenario", ""),
        values.get("model", ""),
        values.get("condition", ""),
        steps,
        problems,
    )


def records_from_jsonl(text: str, *, text_task: bool) -> list[ResponseRecord]:
    """One record per non-blank line: a six-step study's ``steps``, or a single-text study's
    ``text`` (``text_task``)."""
    lines = [(i, line) for i, line in enumerate(text.splitlines(), start=1) if line.strip()]
    _refuse_too_many(len(lines))
    records = [_jsonl_record(i, line, text_task) for i, line in lines]
    if not records:
        raise RecordError("file", "records", _("no records found"))
    return records


def records_from_file(path: str | Path, *, text_task: bool) -> list[ResponseRecord]:
    """Read either format: a JSON list (data_A.json) or JSON Lines (``records_from_text``)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(
            "file", "file", _("cannot read %(path)s: %(err)s") % {"path": path, "err": exc}
        ) from exc
    return records_from_text(text, text_task=text_task)


def response_text_from_upload(content: bytes) -> str:
    """An uploaded file's text (the import page), either format."""
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RecordError("file", "file", _("the file is not UTF-8 text")) from exc


def records_from_text(text: str, *, text_task: bool) -> list[ResponseRecord]:
    """A JSON list (data_A.json: six steps, so a six-step study's only) or JSON Lines; for a
    single-text study (``text_task``) each line gives its ``text``."""
    if text.lstrip().startswith("["):
        if text_task:
            raise RecordError("file", "format", _(DATA_A_NOT_TEXT))
        try:
            data = json_parse(text)
        except json.JSONDecodeError as exc:
            raise RecordError(
                "file",
                "json",
                _("not valid JSON (line %(line)s: %(err)s)") % {"line": exc.lineno, "err": exc.msg},
            ) from exc
        return records_from_data_a(data)
    return records_from_jsonl(text, text_task=text_task)
