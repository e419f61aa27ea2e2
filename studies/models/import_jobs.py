"""An import of many responses, run by a worker (hostile pass 9, finding F7: 6,000 records took
about 170 s in the request, past a proxy's 60 s). The admin's page polls its progress."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ResponseImportJob(models.Model):
    """A response file waiting for, or being read by, a worker. All or nothing, as an import in the
    request: ``problems`` lists every problem of a refused file (nothing was imported), ``summary``
    and ``warnings`` what an imported one did, in the admin's language. ``content`` (the file's text)
    is emptied once the job has finished."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="import_jobs")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    content = models.TextField(blank=True)
    create_missing = models.BooleanField(default=False)
    source = models.CharField(max_length=100, blank=True)  # where it came from, for the audit trail
    language = models.CharField(max_length=10, default="en")  # the admin's, for the report
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    summary = models.TextField(blank=True)
    warnings = models.JSONField(default=list, blank=True)
    # what the API's caller gets of a done import: created, unchanged, held (with why), created_objects
    result = models.JSONField(default=dict, blank=True)
    problems = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)  # what failed that is not the file's fault
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("response import job")

    def __str__(self) -> str:
        return f"response import {self.pk} ({self.status})"
