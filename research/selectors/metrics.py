"""Research's figures for the metrics endpoint (read at scrape time)."""

from __future__ import annotations

from django.db.models import Count, DurationField, ExpressionWrapper, F, Sum

from research.models import ExportJob


def export_durations() -> dict[tuple[str, str], tuple[int, float]]:
    """Finished export jobs by (kind, status): how many and their seconds from being
    requested to finished (queue wait included). Jobs are deleted after
    ``EXPORT_RETENTION_DAYS``, so these totals may go down then (a counter reset)."""
    took = ExpressionWrapper(F("finished_at") - F("created_at"), output_field=DurationField())
    rows = (
        ExportJob.objects.filter(finished_at__isnull=False)
        .values("kind", "status")
        .annotate(n=Count("id"), took=Sum(took))
        .order_by("kind", "status")
    )
    return {
        (row["kind"], row["status"]): (row["n"], row["took"].total_seconds() if row["took"] else 0.0)
        for row in rows
    }


def export_jobs_active() -> int:
    """Export jobs queued or running now."""
    return ExportJob.objects.filter(status__in=[ExportJob.Status.QUEUED, ExportJob.Status.RUNNING]).count()
