"""The review gate's words: why a response is held, for the held responses page, the
import reports and the audit trail (``Response.hold_reasons`` stores the codes)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from studies.blind_text import BLIND_TEXT
from studies.models import TaskKind
from studies.parsing import EMPTY_TEXT, ParsedResponse, ParseWarning

# Not a parse warning: the study holds every generated response for release.
NEEDS_RELEASE = "needs_release"


def hold_reasons_for(
    *, parsed: ParsedResponse, generated: bool, needs_release: bool, blind_names: dict[int, list[str]]
) -> list[dict]:
    """Why a new response is held (empty: it goes to raters at once). Parse warnings and
    text that names the study's roles, strategies, conditions or models (``blind_names``:
    step -> the names, from ``studies.blind_text.blind_terms_found``) hold generated and
    imported responses alike; the study's "responses need release" setting holds every
    generated one."""
    reasons = [w.as_dict() for w in parsed.warnings]
    reasons += blind_text_reasons(blind_names)
    if generated and needs_release:
        reasons.append(ParseWarning(NEEDS_RELEASE, 0).as_dict())
    return reasons


def blind_text_reasons(blind_names: dict[int, list[str]]) -> list[dict]:
    return [{"code": BLIND_TEXT, "step": step, "terms": names} for step, names in sorted(blind_names.items())]


def pair_text_name(step: int) -> str:
    """A pair's text by its stored step: its first answer is Text A, its second Text B."""
    return _("Text A") if step == 1 else _("Text B")


def response_text_name(step: int, *, task: str) -> str:
    """A response's text by its stored step, as the study's raters see it: a pair's Text A or B,
    a single-text response's one text, a CGPST answer's step."""
    if task == TaskKind.PAIR:
        return pair_text_name(step)
    if task == TaskKind.TEXT:
        return _("The text")
    return _("Step %(n)s") % {"n": step}


def hold_reason_text(reason: dict, *, task: str = TaskKind.CGPST) -> str:
    """One reason in the reader's language; ``task``: the study's task kind. A single-text
    response's one text is stored as its Step 1 (no step is named then); a pair's texts as
    Steps 1 and 2 (named Text A and Text B)."""
    code, step, other = reason.get("code"), reason.get("step"), reason.get("other")
    if code == BLIND_TEXT:
        names = ", ".join(f"“{name}”" for name in reason.get("terms") or [])
        if task == TaskKind.TEXT:
            return _(
                "The text names %(names)s of the study's roles, strategies, conditions or models: "
                "raters could tell what produced it."
            ) % {"names": names}
        if task == TaskKind.PAIR:
            return _(
                "%(text)s names %(names)s of the study's roles, strategies, conditions or models: "
                "raters could tell what produced it."
            ) % {"text": pair_text_name(step if isinstance(step, int) else 1), "names": names}
        return _(
            "Step %(step)s names %(names)s of the study's roles, strategies, conditions or models: "
            "raters could tell what produced it."
        ) % {"step": step, "names": names}
    texts = {
        "empty_step": _("Step %(step)s is empty."),
        EMPTY_TEXT: _("The response's text is empty."),
        "no_items": _("Step %(step)s has no numbered items."),
        "no_grid": _("Step %(step)s has no scoring grid (no header row followed by rows of numbers)."),
        "repeated_step": _("Step %(step)s says the same as Step %(other)s."),
        NEEDS_RELEASE: _("The study holds every generated response until it is released."),
    }
    if code not in texts:
        return str(code)
    return texts[code] % {"step": step, "other": other}


def held_response_text(research_id: str, reasons: list[dict], *, task: str = TaskKind.CGPST) -> str:
    """A held response and why, for an import report: "A05_FS10 (Step 1 is empty.)"."""
    why = " ".join(hold_reason_text(r, task=task) for r in reasons)
    return f"{research_id} ({why})"


def redaction_text(*, names: list[str], steps: list[int], task: str = TaskKind.CGPST) -> str:
    """What a redaction replaced, in the reader's language (``task``: the study's task kind;
    in a single-text response's one text, in a pair's Text A or Text B)."""
    quoted = ", ".join(f"“{name}”" for name in names)
    if task == TaskKind.TEXT:
        return _("%(names)s redacted in the text.") % {"names": quoted}
    if task == TaskKind.PAIR:
        return _("%(names)s redacted in %(texts)s.") % {
            "names": quoted,
            "texts": ", ".join(pair_text_name(step) for step in steps),
        }
    return _("%(names)s redacted in Step %(steps)s.") % {
        "names": quoted,
        "steps": ", ".join(str(step) for step in steps),
    }


def review_event_text(*, action: str, changes: dict, task: str = TaskKind.CGPST) -> str:
    """The review gate's audit events in the reader's language, for a response's history
    (empty for any other event); ``task``: the study's task kind."""
    if not isinstance(changes, dict):
        return ""
    if action == "response.held":
        return " ".join(
            hold_reason_text(r, task=task) for r in changes.get("reasons") or [] if isinstance(r, dict)
        )
    if action == "response.redacted":
        return redaction_text(
            names=list(changes.get("names") or []),
            steps=list(changes.get("steps") or []),
            task=task,
        )
    return ""
