"""The /status/ page's parts and facts in the reader's language (the JSON keeps its keys)."""

from django.utils.translation import gettext_lazy as _

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
