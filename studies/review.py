"""The review gate's words: why a response is held, for the held responses page, the
import reports and the audit trail (``Response.hold_reasons`` stores the codes)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from studies.blind_text import BLIND_TEXT
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


def hold_reason_text(reason: dict, *, text_task: bool = False) -> str:
    """One reason in the reader's language; ``text_task``: of a single-text response, whose
    one text is stored as its Step 1 (no step is named then)."""
    code, step, other = reason.get("code"), reason.get("step"), reason.get("other")
    if code == BLIND_TEXT:
        names = ", ".join(f"“{name}”" for name in reason.get("terms") or [])
        if text_task:
            return _(
                "The text names %(names)s of the study's roles, strategies, conditions or models: "
                "raters could tell what produced it."
            ) % {"names": names}
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


def held_response_text(research_id: str, reasons: list[dict], *, text_task: bool = False) -> str:
    """A held response and why, for an import report: "A05_FS10 (Step 1 is empty.)"."""
    why = " ".join(hold_reason_text(r, text_task=text_task) for r in reasons)
    return f"{research_id} ({why})"


def redaction_text(*, names: list[str], steps: list[int], text_task: bool = False) -> str:
    """What a redaction replaced, in the reader's language (``text_task``: in a single-text
    response's one text)."""
    quoted = ", ".join(f"“{name}”" for name in names)
    if text_task:
        return _("%(names)s redacted in the text.") % {"names": quoted}
    return _("%(names)s redacted in Step %(steps)s.") % {
        "names": quoted,
        "steps": ", ".join(str(step) for step in steps),
    }


def review_event_text(*, action: str, changes: dict, text_task: bool = False) -> str:
    """The review gate's audit events in the reader's language, for a response's history
    (empty for any other event); ``text_task``: of a single-text response."""
    if not isinstance(changes, dict):
        return ""
    if action == "response.held":
        return " ".join(
            hold_reason_text(r, text_task=text_task)
            for r in changes.get("reasons") or []
            if isinstance(r, dict)
        )
    if action == "response.redacted":
        return redaction_text(
            names=list(changes.get("names") or []),
            steps=list(changes.get("steps") or []),
            text_task=text_task,
        )
    return ""
