"""Reading an invitation CSV (pure: no database).

Columns (header row, any order, case-insensitive): username, name, email, language,
roles, and optionally rater_code. Commas, semicolons (Excel in many locales) or tabs
separate the fields; a UTF-8 byte-order mark is ignored. Every problem is collected
with its line number, so the file is refused with all of them at once.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass

from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils.translation import gettext as _

from scoring.models import RATER_CODE
from studies.problems import FileProblems, field_key

COLUMN_ALIASES = {
    "username": "username",
    "user": "username",
    "login": "username",
    "name": "name",
    "full_name": "name",
    "email": "email",
    "e_mail": "email",
    "mail": "email",
    "language": "language",
    "ui_language": "language",
    "lang": "language",
    "roles": "roles",
    "role": "roles",
    "rater_code": "rater_code",
    "rater_id": "rater_code",
    "code": "rater_code",
}
REQUIRED_COLUMNS = ("username", "name", "email", "language", "roles")
LANGUAGES = {
    "en": "en",
    "english": "en",
    "zh": "zh-hans",
    "zh-hans": "zh-hans",
    "zh_hans": "zh-hans",
    "zh-cn": "zh-hans",
    "zh_cn": "zh-hans",
    "chinese": "zh-hans",
    "简体中文": "zh-hans",
    "中文": "zh-hans",
}
# "calibrator" is a rater who may calibrate.
ROLES = ("rater", "calibrator", "researcher", "admin")
ROLE_SEPARATORS = re.compile(r"[|+/,;\s]+")
MAX_ROWS = 1000
MAX_BYTES = 1024 * 1024
username_validator = UnicodeUsernameValidator()
EMAIL_MAX_LENGTH = 254  # django.contrib.auth's User.email


@dataclass(frozen=True)
class Invitee:
    line: int
    username: str
    name: str
    email: str
    language: str  # "en", "zh-hans", or "" for the site's default
    roles: frozenset[str]
    rater_code: str = ""

    @property
    def is_rater(self) -> bool:
        return bool(self.roles & {"rater", "calibrator"})


class InviteFileError(FileProblems):
    """The CSV cannot be used; ``problems`` lists every reason with its line."""


def line_problem(line: int, field_name: str, message: str) -> str:
    return _("line %(line)s, %(field)s: %(message)s") % {
        "line": line,
        "field": field_name,
        "message": message,
    }


def _column(name: str) -> str | None:
    return COLUMN_ALIASES.get(field_key(name))


def _decode(content: bytes) -> str:
    if len(content) > MAX_BYTES:
        raise InviteFileError([_("The file is larger than 1 MB.")])
    try:
        text = content.decode("utf-8-sig")  # Excel's "CSV UTF-8" starts with a BOM
    except UnicodeDecodeError as exc:
        raise InviteFileError(
            [_('The file is not UTF-8 text: in Excel, save it as "CSV UTF-8 (comma delimited)".')]
        ) from exc
    if "\x00" in text:
        raise InviteFileError([_("The file contains NUL characters: it is not a CSV text file.")])
    return text


def _delimiter(header_line: str) -> str:
    # the separator the header uses most: Excel writes ";" where "," is the decimal comma
    counts = {sep: header_line.count(sep) for sep in (",", ";", "\t")}
    return max(counts, key=lambda sep: counts[sep]) if any(counts.values()) else ","


def _looks_like_email(value: str) -> bool:
    return "@" in value and " " not in value.strip()


def invitees_read(content: bytes) -> tuple[list[Invitee], list[str]]:
    """The people of a CSV whose lines are good, and the problems of the others (an unreadable
    file or header raises InviteFileError at once: no line can be read)."""
    text = _decode(content)
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise InviteFileError([_("The file is empty: the first line must name the columns.")])
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(lines[0]))
    try:  # at most MAX_BYTES: read whole, so that a broken row is one clear problem, not a 500
        rows = [(reader.line_num, row) for row in reader]
    except csv.Error as exc:
        raise InviteFileError(
            [
                line_problem(
                    reader.line_num,
                    _("row"),
                    _("not readable as CSV (a value longer than 128 KB, or a quote never closed)"),
                )
            ]
        ) from exc
    header = rows[0][1]
    columns = [_column(cell) for cell in header]
    problems = [
        line_problem(
            1, cell or "?", _("unknown column (expected username, name, email, language, roles, rater_code)")
        )
        for cell, name in zip(header, columns, strict=True)
        if name is None and cell.strip()
    ]
    for name in REQUIRED_COLUMNS:
        if name not in columns:
            problems.append(line_problem(1, name, _("column missing")))
    for name in sorted({c for c in columns if c is not None and columns.count(c) > 1}):
        # which of the two would count is not for the file to leave open (hostile pass 12)
        problems.append(line_problem(1, name, _("column given twice")))
    if problems:
        raise InviteFileError(problems)
    invitees: list[Invitee] = []
    first_seen: dict[tuple[str, str], int] = {}
    for line, row in rows[1:]:
        if not any(cell.strip() for cell in row):
            continue
        if len(invitees) >= MAX_ROWS:
            problems.append(_("More than %(n)s people in one file.") % {"n": MAX_ROWS})
            break
        if len(row) > len(header) and any(cell.strip() for cell in row[len(header) :]):
            problems.append(
                line_problem(line, _("row"), _("more fields than columns (a separator inside a value?)"))
            )
            continue
        values = {name: (row[i].strip() if i < len(row) else "") for i, name in enumerate(columns) if name}
        if "username" in values:
            # NFKC, as Django's own forms read a username (AbstractBaseUser.normalize_username): a
            # full-width "ｕｘ9" was stored as typed, and the login form, which folds it, never found it
            values["username"] = unicodedata.normalize("NFKC", values["username"])
        for key in ("username", "email", "rater_code"):
            value = values.get(key, "").lower()
            first = first_seen.setdefault((key, value), line) if value else line
            if first != line:
                problems.append(
                    line_problem(
                        line,
                        key,
                        _("%(value)s is already on line %(first)s") % {"value": values[key], "first": first},
                    )
                )
        invitee = _invitee(line, values, problems)
        if invitee is not None:
            invitees.append(invitee)
    if not problems and not invitees:
        problems.append(_("The file names nobody to invite."))
    return invitees, problems


def invitees_from_csv(content: bytes) -> list[Invitee]:
    """The people a CSV invites; InviteFileError lists every problem of the file."""
    invitees, problems = invitees_read(content)
    if problems:
        raise InviteFileError(problems)
    return invitees


def _invitee(line: int, values: dict[str, str], problems: list[str]) -> Invitee | None:
    found = len(problems)
    username = values.get("username", "")
    if not username:
        problems.append(line_problem(line, "username", _("missing")))
    else:
        try:
            username_validator(username)
        except ValidationError:
            problems.append(line_problem(line, "username", _("letters, digits and @/./+/-/_ only")))
        if len(username) > 150:
            problems.append(line_problem(line, "username", _("longer than 150 characters")))
    email = values.get("email", "")
    try:
        validate_email(email)
        if len(email) > EMAIL_MAX_LENGTH:  # the account's column (a 500 on PostgreSQL before)
            problems.append(
                line_problem(line, "email", _("longer than %(n)d characters") % {"n": EMAIL_MAX_LENGTH})
            )
    except ValidationError:
        misplaced = [
            name
            for name in ("name", "language", "roles", "rater_code")
            if _looks_like_email(values.get(name, ""))
        ]
        hint = (
            _("not an email address; column %(col)s holds one: are the columns shifted?")
            % {"col": misplaced[0]}
            if misplaced
            else _("not an email address")
        )
        problems.append(line_problem(line, "email", f"{email!r}: {hint}" if email else hint))
    name = values.get("name", "")
    if len(name) > 150:
        problems.append(line_problem(line, "name", _("longer than 150 characters")))
    raw_language = values.get("language", "")
    language: str | None = LANGUAGES.get(raw_language.lower()) if raw_language else ""
    if language is None:
        problems.append(
            line_problem(line, "language", _("%(value)r is not en or zh-hans") % {"value": raw_language})
        )
    roles = {r.lower() for r in ROLE_SEPARATORS.split(values.get("roles", "")) if r}
    unknown = sorted(roles - set(ROLES))
    if unknown:
        problems.append(
            line_problem(
                line,
                "roles",
                _("unknown role(s) %(roles)s (known: %(known)s)")
                % {"roles": ", ".join(unknown), "known": ", ".join(ROLES)},
            )
        )
    elif not roles:
        problems.append(
            line_problem(line, "roles", _("at least one role: %(known)s") % {"known": ", ".join(ROLES)})
        )
    code = values.get("rater_code", "")
    if code and not RATER_CODE.match(code):
        problems.append(
            line_problem(line, "rater_code", _("letters, digits and dashes, at most 16 (e.g. H01)"))
        )
    if code and not roles & {"rater", "calibrator"}:
        problems.append(line_problem(line, "rater_code", _("only raters have a rater code")))
    if len(problems) > found:
        return None
    return Invitee(line, username, name, email, language or "", frozenset(roles), code)
