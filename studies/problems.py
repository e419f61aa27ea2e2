"""The error of every all-or-nothing file import: it carries every problem found, each
naming its place (line, row or record, and field), so a file is fixed in one pass."""

from __future__ import annotations


class FileProblems(Exception):
    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems
