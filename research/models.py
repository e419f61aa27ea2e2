"""Research output jobs."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

# How a job's error starts when its file could not be saved to the storage (ExportJob.storage_failed)
STORAGE_ERROR_PREFIX = "storage: "


def export_upload_to(job: ExportJob, filename: str) -> str:
    """Where an export's file is stored, relative to the storage's root."""
    return f"exports/{job.pk}/{filename}"


KIND_RESULTS = "results"
KIND_WORKBOOKS = "workbooks"
# the long tables for analysts: item-level scores and generation turns, CSV or xlsx
LONG_KINDS = ("items_csv", "items_xlsx", "turns_csv", "turns_xlsx")
# every submitted sheet in the release's Excel layout (research.release_workbooks), zipped
KIND_RELEASE_WORKBOOKS = "release_workbooks"
KINDS = (KIND_RESULTS, KIND_WORKBOOKS, *LONG_KINDS, KIND_RELEASE_WORKBOOKS)


class ExportJob(models.Model):
    """A large export built by a worker; the page polls it and offers the file.

    The file lives in Django's default storage (``STORAGES["default"]``: ``MEDIA_ROOT``
    on local disk unless configured otherwise), so any web host can serve it; expired
    jobs and their files are deleted after ``EXPORT_RETENTION_DAYS``."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    kind = models.CharField(max_length=40)
    params = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    step = models.CharField(max_length=100, blank=True)  # what is being built now (a sheet's name)
    # every stored progress update, oldest first: {"done", "total", "step", "at"}; shows which
    # part of a slow export took the time
    progress_log = models.JSONField(default=list, blank=True)
    file = models.FileField(upload_to=export_upload_to, max_length=300, blank=True)
    file_name = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("export job")

    def __str__(self) -> str:
        return f"{self.kind} ({self.status})"

    @property
    def storage_failed(self) -> bool:
        """Built, but the storage did not take the file (unreachable): the page says so."""
        return self.status == self.Status.FAILED and self.error.startswith(STORAGE_ERROR_PREFIX)


class ResponseDiversity(models.Model):
    """A response's diversity (Steps 1 and 3, both variants: ``research.diversity``), computed by
    a worker when the response arrives or its text changes, so no page or export has to.

    ``values`` is ``{"1": {"released": x, "cleaned": y}, "3": {...}}`` (None where undefined);
    ``stamp`` is ``research.diversity.answers_stamp`` of the Step-1 and Step-3 texts it was
    computed from: a row whose stamp differs from the response's current texts is stale."""

    response = models.OneToOneField(
        "studies.Response", on_delete=models.CASCADE, primary_key=True, related_name="diversity"
    )
    values = models.JSONField()
    stamp = models.CharField(max_length=64)
    computed_at = models.DateTimeField()

    class Meta:
        verbose_name = _("response diversity")
        verbose_name_plural = _("response diversities")

    def __str__(self) -> str:
        return f"diversity of response {self.response_id}"
