"""Reading scenario files (pure: no database): the released JSON (``{"FS10": {"theme",
"text"}}``), a JSON list of objects, JSON Lines, or an xlsx sheet or a CSV with a header row.

Every record gets a code, a theme, an English text and optionally a Simplified Chinese
theme and text. Every problem is collected with its line (or row) and field, so a file
is refused with all of its problems at once.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from studies.problems import FileProblems, field_key, problem_text
from studies.upload_safety import json_decode_error, json_decoder, json_parse, json_value_check, text_problem
from studies.xlsx_safety import XlsxLimits, XlsxRefused, xlsx_check

CODE = re.compile(r"^[A-Za-z0-9-]{1,20}$")
# A tag (<p>, </div>, <br/>, <a href=...>) or a comment: scenario texts are plain text.
HTML = re.compile(r"<\s*/?\s*[A-Za-z][A-Za-z0-9-]*(\s[^<>]*)?/?\s*>|<!--")
MAX_THEME = 200
MAX_TEXT = 100_000
MAX_RECORDS = 2000
# xlsx uploads: refuse zip bombs before openpyxl inflates anything. The texts sit in the shared
# strings part: 8 MB holds 2,000 scenarios of 4,000 characters; openpyxl's read of 48 MB of it
# took 30 s and 200 MB of the web process (hostile pass 9). Its cost is per entry: the styles part
# is bounded at 1 MB and the shared strings at 64,000 entries (``xlsx_safety``, hostile pass 10).
MAX_XLSX_UNCOMPRESSED = 16 * 1024 * 1024
MAX_XLSX_PART = 8 * 1024 * 1024
# the first sheet is read in read-only mode (streamed, at most MAX_RECORDS rows); the limits bound
# what loading the rest (shared strings, styles) and the check's own streaming read may cost
XLSX_LIMITS = XlsxLimits(
    max_bytes=64 * 1024 * 1024,  # the upload forms hold files to UPLOAD_MAX_BYTES before this
    max_total=MAX_XLSX_UNCOMPRESSED,
    max_part=MAX_XLSX_PART,
    max_sheet_part=MAX_XLSX_PART,
    max_sheets=64,
    max_rows=1_048_576,  # Excel's own limits: other sheets are never loaded
    max_columns=16_384,
    max_cells=5_000_000,
    max_shared_strings=64_000,  # 2,001 rows of 30 columns hold at most 60,030 texts
)
MAX_XLSX_COLUMNS = 30

# Accepted names of each field (keys of JSON objects, header cells of xlsx sheets).
FIELD_ALIASES = {
    "code": "code",
    "id": "code",
    "scenario": "code",
    "theme": "theme",
    "text": "text",
    "text_en": "text",
    "theme_en": "theme",
    "theme_zh": "theme_zh",
    "theme_zh_hans": "theme_zh",
    "text_zh": "text_zh",
    "text_zh_hans": "text_zh",
}
REQUIRED = ("code", "theme", "text")


@dataclass(frozen=True)
class ScenarioRecord:
    where: str  # "line 3" or "row 4"
    code: str
    theme: str
    text: str
    theme_zh: str = ""
    text_zh: str = ""

    def values(self) -> dict[str, str]:
        return {"theme": self.theme, "text": self.text, "theme_zh": self.theme_zh, "text_zh": self.text_zh}


class ScenarioFileError(FileProblems):
    """The file cannot be imported; ``problems`` lists every reason, each with its place."""


def record_from_mapping(
    where: str, data: dict[str, Any], problems: list[str], code: str = ""
) -> None | ScenarioRecord:
    """One record from a key/value mapping; appends its problems and returns None if any."""
    values: dict[str, str] = {}
    found = len(problems)
    if code:
        values["code"] = code
    for key, value in data.items():
        name = FIELD_ALIASES.get(field_key(str(key)))
        if name is None:
            problems.append(
                problem_text(
                    where, str(key), _("unknown field (expected code, theme, text, theme_zh, text_zh)")
                )
            )
            continue
        if value is None:
            value = ""
        if isinstance(value, int | float) and not isinstance(value, bool) and name == "code":
            value = str(value)
        if not isinstance(value, str):
            problems.append(problem_text(where, str(key), _("must be text")))
            continue
        unstorable = text_problem(value) or _control_problem(
            value, one_line=name in ("code", "theme", "theme_zh")
        )
        if unstorable:
            problems.append(problem_text(where, name, unstorable))
            continue
        values[name] = value.strip() if name in ("code", "theme", "theme_zh") else value.strip("\n\r ")
    if len(problems) > found:
        return None
    for name in REQUIRED:
        if not values.get(name):
            problems.append(problem_text(where, name, _("missing or empty")))
    value_code = values.get("code", "")
    if value_code and not CODE.match(value_code):
        problems.append(
            problem_text(where, "code", _("letters, digits and dashes only, at most 20 (e.g. FS10)"))
        )
    for name in ("theme", "theme_zh"):
        if len(values.get(name, "")) > MAX_THEME:
            problems.append(problem_text(where, name, _("longer than %(n)s characters") % {"n": MAX_THEME}))
    for name in ("text", "text_zh"):
        if len(values.get(name, "")) > MAX_TEXT:
            problems.append(problem_text(where, name, _("longer than %(n)s characters") % {"n": MAX_TEXT}))
    for name in ("theme", "text", "theme_zh", "text_zh"):
        match = HTML.search(values.get(name, ""))
        if match:
            problems.append(
                problem_text(
                    where,
                    name,
                    _("contains HTML (%(tag)s); scenario texts are plain text")
                    % {"tag": match.group(0)[:40]},
                )
            )
    if len(problems) > found:
        return None
    return ScenarioRecord(
        where=where,
        code=values["code"],
        theme=values["theme"],
        text=values["text"],
        theme_zh=values.get("theme_zh", ""),
        text_zh=values.get("text_zh", ""),
    )


def _skip_ws(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


# Control characters (a bell, an escape sequence) and the marks that turn text around (a
# right-to-left override would disguise a theme on the raters' queue): never in a scenario
_DIRECTION_MARKS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def _control_problem(value: str, *, one_line: bool) -> str:
    allowed = "" if one_line else "\n\r\t\f"
    bad = next((c for c in value if (unicodedata.category(c) == "Cc" and c not in allowed)), None)
    if bad is None and (found := _DIRECTION_MARKS.search(value)):
        bad = found[0]
    if bad is None:
        return ""
    return _("contains the control character U+%(code)04X; scenario texts are plain text") % {
        "code": ord(bad)
    }


def _top_level_entries(text: str) -> list[tuple[int, str | None, Any]]:
    """The top-level entries of a JSON object or list with the line each starts on
    (``json.loads`` would keep only the last of two equal keys and forget the lines)."""
    decoder = json_decoder()
    index = _skip_ws(text, 0)
    opening = text[index]
    closing = "}" if opening == "{" else "]"
    index = _skip_ws(text, index + 1)
    entries: list[tuple[int, str | None, Any]] = []
    if text[index : index + 1] == closing:
        return entries
    # lines counted as the entries go (once over the text), and the cap checked per entry: a
    # file of 300,000 entries is refused at the 2,001st, not after all are parsed
    line, counted = 1, 0
    while True:
        line += text.count("\n", counted, index)
        counted = index
        _refuse_too_many(len(entries) + 1)
        key = None
        if opening == "{":
            if text[index : index + 1] != '"':
                raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, index)
            key, index = json.decoder.scanstring(text, index + 1)  # type: ignore[attr-defined]
            index = _skip_ws(text, index)
            if text[index : index + 1] != ":":
                raise json.JSONDecodeError("Expecting ':' delimiter", text, index)
            index = _skip_ws(text, index + 1)
        try:
            value, index = decoder.raw_decode(text, index)
        except (RecursionError, ValueError) as exc:
            raise json_decode_error(exc, text, index) from exc
        json_value_check(value, text)
        entries.append((line, key, value))
        index = _skip_ws(text, index)
        if text[index : index + 1] == ",":
            index = _skip_ws(text, index + 1)
            continue
        if text[index : index + 1] == closing:
            break
        raise json.JSONDecodeError(f"Expecting ',' or '{closing}'", text, index)
    if _skip_ws(text, index + 1) != len(text):
        raise json.JSONDecodeError("Extra data", text, _skip_ws(text, index + 1))
    return entries


def records_from_json(text: str) -> list[ScenarioRecord]:
    problems: list[str] = []
    records: list[ScenarioRecord | None] = []
    codes: list[tuple[str, str]] = []
    try:
        entries = _top_level_entries(text)
    except json.JSONDecodeError as exc:
        raise ScenarioFileError(
            [
                problem_text(
                    _("line %(n)s") % {"n": exc.lineno},
                    "json",
                    _("not valid JSON (%(err)s)") % {"err": exc.msg},
                )
            ]
        ) from exc
    _refuse_too_many(len(entries))
    for line, key, value in entries:
        where = _("line %(n)s") % {"n": line}
        if not isinstance(value, dict):
            problems.append(problem_text(where, key or "record", _("expected an object with theme and text")))
            continue
        records.append(record_from_mapping(where, value, problems, code=key or ""))
        codes.append((where, _raw_code(value, key or "")))
    return _checked(records, problems, codes)


def _refuse_too_many(count: int) -> None:
    """A file of more than MAX_RECORDS scenarios is refused before any is read: one message,
    not a problem per line of a huge file."""
    if count > MAX_RECORDS:
        raise ScenarioFileError([_("More than %(n)s scenarios in one file.") % {"n": MAX_RECORDS}])


def records_from_jsonl(text: str) -> list[ScenarioRecord]:
    problems: list[str] = []
    records: list[ScenarioRecord | None] = []
    codes: list[tuple[str, str]] = []
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    _refuse_too_many(len(lines))
    for n, line in lines:
        where = _("line %(n)s") % {"n": n}
        try:
            obj = json_parse(line)
        except json.JSONDecodeError as exc:
            problems.append(problem_text(where, "json", _("not valid JSON (%(err)s)") % {"err": exc.msg}))
            continue
        if not isinstance(obj, dict):
            problems.append(problem_text(where, "record", _("expected a JSON object")))
            continue
        records.append(record_from_mapping(where, obj, problems))
        codes.append((where, _raw_code(obj)))
    return _checked(records, problems, codes)


def records_from_xlsx(content: bytes) -> list[ScenarioRecord]:
    """The first sheet: a header row (code, theme, text, optional theme_zh, text_zh), one scenario per row."""
    from openpyxl import load_workbook  # loaded only for xlsx files

    try:
        xlsx_check(content, XLSX_LIMITS)
    except XlsxRefused as exc:
        raise ScenarioFileError([exc.message]) from None
    try:
        workbook = load_workbook(io.BytesIO(content), read_only=True, data_only=True)
        # read-only sheets are parsed (and inflated) while iterated: read the rows here, so
        # that a damaged part is refused like a damaged archive (at most MAX_RECORDS rows)
        sheet = workbook.worksheets[0]
        all_rows = []
        for row in sheet.iter_rows(values_only=True):
            if any(cell is not None for cell in row[MAX_XLSX_COLUMNS:]):
                raise ScenarioFileError(
                    [_("The first sheet has more than %(n)s columns.") % {"n": MAX_XLSX_COLUMNS}]
                )
            all_rows.append(row[:MAX_XLSX_COLUMNS])
            if len(all_rows) > MAX_RECORDS + 1:
                break
        workbook.close()
    except ScenarioFileError:
        raise
    except Exception as exc:  # openpyxl raises many kinds on a damaged or foreign file
        raise ScenarioFileError([_("Not a readable xlsx workbook.")]) from exc
    return _records_from_table(all_rows, where=_("row %(n)s"))


def records_from_csv(text: str) -> list[ScenarioRecord]:
    """A CSV (comma, semicolon or tab, as Excel saves it) with the xlsx sheet's header row."""
    first = text.splitlines()[0] if text.strip() else ""
    delimiter = max(",;\t", key=first.count)
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    except csv.Error as exc:
        raise ScenarioFileError([_("The CSV cannot be read: %(err)s") % {"err": exc}]) from exc
    if len(rows) > MAX_RECORDS + 1:
        raise ScenarioFileError([_("More than %(n)s scenarios in one file.") % {"n": MAX_RECORDS}])
    return _records_from_table(rows, where=_("line %(n)s"))


def _records_from_table(all_rows: list, *, where: str) -> list[ScenarioRecord]:
    """Rows of a table whose first row names the columns: a problem of the header is the header's
    (named once, on its row), not every row's."""
    rows = iter(all_rows)
    header = next(rows, None)
    if not header or all(cell is None or str(cell).strip() == "" for cell in header):
        raise ScenarioFileError([_("The first row is empty: it needs a header row (code, theme, text).")])
    names = ["" if cell is None else str(cell) for cell in header]
    header_problems = [
        problem_text(
            where % {"n": 1}, name, _("unknown column (expected code, theme, text, theme_zh, text_zh)")
        )
        for name in names
        if name.strip() and FIELD_ALIASES.get(field_key(name)) is None
    ]
    known = {FIELD_ALIASES.get(field_key(name)) for name in names}
    header_problems += [
        problem_text(where % {"n": 1}, name, _("column missing")) for name in REQUIRED if name not in known
    ]
    if header_problems:
        raise ScenarioFileError(header_problems)
    problems: list[str] = []
    records: list[ScenarioRecord | None] = []
    codes: list[tuple[str, str]] = []
    for n, row in enumerate(rows, start=2):
        if n > MAX_RECORDS + 1:
            problems.append(_("More than %(n)s scenarios in one file.") % {"n": MAX_RECORDS})
            break
        if all(cell is None or str(cell).strip() == "" for cell in row):
            continue
        data = {
            names[i]: ("" if cell is None else cell)
            for i, cell in enumerate(row)
            if i < len(names) and (names[i].strip() or (cell is not None and str(cell).strip()))
        }
        place = where % {"n": n}
        records.append(record_from_mapping(place, data, problems))
        codes.append((place, _raw_code(data)))
    return _checked(records, problems, codes)


def _raw_code(data: dict[str, Any], code: str = "") -> str:
    """The code a record gives, valid or not (for finding duplicates among bad records too)."""
    if code:
        return code.strip()
    for key, value in data.items():
        if FIELD_ALIASES.get(field_key(str(key))) == "code" and value is not None:
            return str(value).strip()
    return ""


def _checked(
    records: list[ScenarioRecord | None], problems: list[str], codes: list[tuple[str, str]]
) -> list[ScenarioRecord]:
    found = [r for r in records if r is not None]
    seen: dict[str, tuple[int, str]] = {}
    for index, (where, code) in enumerate(codes):
        # by position, not place: two entries of a one-line JSON object share their line
        first_index, first = seen.setdefault(code.upper(), (index, where)) if code else (index, where)
        if first_index != index:
            problems.append(
                problem_text(
                    where,
                    "code",
                    _("%(code)s appears twice in the file (first at %(first)s)")
                    % {"code": code, "first": first},
                )
            )
    if not problems and not found:
        problems.append(_("The file has no scenarios."))
    if len(found) > MAX_RECORDS:
        problems.append(_("More than %(n)s scenarios in one file.") % {"n": MAX_RECORDS})
    if problems:
        # in file order: a line's own problems, then its duplicate code, line by line
        problems.sort(key=_place)
        raise ScenarioFileError(problems)
    return found


_FIRST_NUMBER = re.compile(r"\d+")


def _place(problem: str) -> int:
    """The line (row) a problem names first ("line 3, field ...", "第 3 行, ..."), for
    sorting; problems of the whole file (no number) last."""
    m = _FIRST_NUMBER.search(problem)
    return int(m[0]) if m else 10**9


def records_from_upload(name: str, content: bytes) -> list[ScenarioRecord]:
    """Any accepted format, told apart by the file name and its first character."""
    if name.lower().endswith(".xlsx") or content[:2] == b"PK":
        return records_from_xlsx(content)
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioFileError([_("The file is not UTF-8 text (nor an xlsx workbook).")]) from exc
    stripped = text.lstrip()
    if not stripped:
        raise ScenarioFileError([_("The file has no scenarios.")])
    if name.lower().endswith(".jsonl"):
        return records_from_jsonl(text)
    if name.lower().endswith((".csv", ".tsv")) or stripped[0] not in "[{":
        return records_from_csv(text)
    if stripped[0] in "[" or (stripped[0] == "{" and not _is_json_lines(text)):
        return records_from_json(text)
    return records_from_jsonl(text)


def _is_json_lines(text: str) -> bool:
    """A file whose every non-empty line is a JSON object of its own."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        # one line: a JSON Lines record has a "code" key, the released format has codes as keys
        try:
            obj = json_parse(text)
        except json.JSONDecodeError:
            return False
        return isinstance(obj, dict) and any(field_key(k) in ("code", "id") for k in obj)
    try:
        return all(isinstance(json_parse(line), dict) for line in lines)
    except json.JSONDecodeError:
        return False
