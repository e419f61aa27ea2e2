"""The error of every all-or-nothing file import: it carries every problem found, each
naming its place (line, row or record, and field), so a file is fixed in one pass. And the
one rule by which the imports match a file's field names to theirs."""

from __future__ import annotations

import re

from django.utils.translation import gettext as _


class FileProblems(Exception):
    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


def problem_text(where: str, field_name: str, message: str) -> str:
    """One problem of an import file, in the user's language: its place (line, row or
    record), its field, what is wrong."""
    return _("%(where)s, field '%(field)s': %(message)s") % {
        "where": where,
        "field": field_name,
        "message": message,
    }


def field_key(name: str) -> str:
    """A header cell or key as the imports look it up among their aliases: trimmed, lower
    case, runs of spaces and dashes as one underscore ("Rater ID" and "rater-id": "rater_id")."""
    return re.sub(r"[\s-]+", "_", name.strip().lower())
