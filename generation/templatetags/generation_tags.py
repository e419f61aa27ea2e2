from __future__ import annotations

from django import template
from django.utils.translation import gettext as _

from core.llm.redaction import redact_credentials
from generation.models import RunStatus

register = template.Library()


@register.filter
def duration(seconds: int | float | None) -> str:
    """12 s, 3 min 05 s, 2 h 10 min; an em dash when unknown."""
    if seconds is None:
        return "—"
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


@register.filter
def step_label(number: int) -> str:
    return _("Warm-up") if number == 0 else _("Step %(number)d") % {"number": number}


@register.filter
def status_badge(status: str) -> str:
    return {
        "succeeded": "badge-ok",
        "failed": "badge-bad",
        "cancelled": "badge-warn",
        "finished": "badge-ok",
    }.get(status, "")


@register.filter
def run_status_label(status: str) -> str:
    """The translated label of a run status key ("queued" -> "Queued")."""
    try:
        return str(RunStatus(status).label)
    except ValueError:
        return status


@register.filter
def lead_phase(phase: str) -> bool:
    """The turns that make a step's answer (or may): shown highlighted."""
    name = phase.split(" ", 1)[0]
    return name in ("consensus", "answer", "synthesis", "final", "judgement")


@register.filter
def redacted(text: str | None) -> str:
    """An LLM error as shown: credential-looking strings hidden, also in errors stored
    before redaction was applied at storage."""
    return redact_credentials(text or "")
