"""The /status/ page's parts, facts and notes in the reader's language (the JSON keeps its
keys and English texts)."""

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .health import NO_BROKER, NO_OUTBOX, NOT_MEASURED, SOURCE_HEARTBEAT

STATUS_LABELS = {
    # parts
    "database": _("Database"),
    "broker": _("Broker"),
    "workers": _("Workers"),
    "queue": _("Queue"),
    "stuck_runs": _("Stuck runs"),
    "dispatches": _("Tasks waiting for the broker"),
    # facts
    "vendor": _("Database system"),
    "latency_ms": _("Latency (ms)"),
    "transport": _("Transport"),
    "error": _("Error"),
    "checked_at": _("Checked at"),
    "cached": _("From the cache"),
    "source": _("Source"),
    "messages": _("Messages waiting"),
    "note": _("Note"),
    "stale_heartbeat": _("Heartbeat stale"),
    "no_first_heartbeat": _("No first heartbeat"),
    "paused_by_outage": _("Paused by an outage"),
    "failed_no_worker": _("Failed: no worker"),
    "run_ids": _("Run IDs"),
    "judge_task_ids": _("Judge task IDs"),
    "queued": _("Queued"),
    "oldest_queued_seconds": _("Oldest queued (s)"),
    "pending": _("Pending"),
    "oldest_seconds": _("Oldest (s)"),
    "with_errors": _("With errors"),
}


def status_label(key: str) -> str:
    return str(STATUS_LABELS.get(key, key))


# the texts a fact's value may hold (health.py's)
STATUS_TEXTS = {
    NO_OUTBOX: _("no outbox: tasks are sent to the broker on commit"),
    NO_BROKER: _("no broker"),
    SOURCE_HEARTBEAT: _("the workers' heartbeats in the database"),
}


def status_value(value):
    """A fact's value as the page shows it: the report's texts and yes/no in the reader's
    language; names, numbers and times as they are."""
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if not isinstance(value, str):
        return value
    if value.startswith(NOT_MEASURED):
        return gettext("not measured on %(transport)s") % {"transport": value.removeprefix(NOT_MEASURED)}
    return str(STATUS_TEXTS.get(value, value))
