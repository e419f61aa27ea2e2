"""A study's own rubric versions: its admin's edits of guidelines and level texts."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from studies.models import Study


class RubricRevision(models.Model):
    """A rubric version made by editing texts of another one for a study. Never changed
    afterwards: sheets keep the version they were opened with, so their texts stay."""

    version = models.CharField(_("rubric version"), max_length=40, unique=True)
    study = models.ForeignKey(Study, on_delete=models.PROTECT, related_name="+")
    based_on = models.CharField(max_length=40)
    data = models.JSONField()
    changes = models.JSONField(default=list, help_text=_("[path, old text, new text] of every edit."))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["study", "created_at", "id"]
        verbose_name = _("rubric revision")

    def __str__(self) -> str:
        return self.version
