"""What a rubric's checks on the text find, as raters read it: above the scoring page's sheet and
in a row of the offline workbook's sheet. Hints only: they score nothing and hold nothing back."""

from __future__ import annotations

from django.utils.translation import gettext as _

from studies.models import TASK_TEXTS, Response
from studies.review import response_text_name
from studies.rubric import Rubric
from studies.rubric.checks import FOUND, MISSING, TOO_LONG, TOO_SHORT, CheckFinding, text_checks_run


def check_finding_text(finding: CheckFinding, *, task: str) -> str:
    """What a rubric's text check found, in the active language, after the rubric's own message:
    "Text A: 512 words; at most 400."."""
    where = response_text_name(finding.text, task=task)
    quoted = ", ".join(f"“{phrase}”" for phrase in finding.phrases)
    units = {"words": _("words"), "characters": _("characters")}
    detail = {
        TOO_SHORT: _("%(counted)s %(unit)s; at least %(bound)s."),
        TOO_LONG: _("%(counted)s %(unit)s; at most %(bound)s."),
        FOUND: _("has %(phrases)s."),
        MISSING: _("lacks %(phrases)s."),
    }[finding.what] % {
        "counted": finding.counted,
        "unit": units.get(finding.unit, finding.unit),
        "bound": finding.bound,
        "phrases": quoted,
    }
    return _("%(where)s: %(detail)s") % {"where": where, "detail": detail}


def response_check_hints(*, rubric: Rubric, response: Response, lang: str) -> list[tuple[str, str]]:
    """What the rubric's text checks find in the texts the rater reads: (the rubric's message in
    ``lang``, what was found in the active language) each."""
    if not rubric.checks:
        return []
    task = response.study.task_kind
    texts = response.shown_answers[: TASK_TEXTS[task]]
    return [
        (finding.message.text(lang), check_finding_text(finding, task=task))
        for finding in text_checks_run(rubric.checks, texts)
    ]
