"""Which export jobs a person may see: their own, and every one for an admin."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.accounts.roles import is_admin
from research.models import KIND_WORKBOOKS, KINDS, ExportJob

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def export_job_visible(*, job_id: int, user: User) -> ExportJob | None:
    """The job, when ``user`` started it or is an admin (offline workbooks: admins only);
    None for anyone else, as for a job that does not exist (nothing says it does)."""
    job = ExportJob.objects.filter(pk=job_id, kind__in=KINDS).first()
    if job is None:
        return None
    admin = is_admin(user)
    if (job.kind == KIND_WORKBOOKS or job.created_by_id != user.pk) and not admin:
        return None
    return job
