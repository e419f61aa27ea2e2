"""The record of a study: audit events and the earlier versions of scenario and response texts.
Append-only; the services write them in the transaction of the change they record."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class ScenarioTextChange(models.Model):
    """Audit trail of a scenario's texts: every change an import made, with the old
    and new values; ``forced`` marks a change to a scenario that already had scores."""

    scenario = models.ForeignKey("studies.Scenario", on_delete=models.CASCADE, related_name="text_changes")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    field_name = models.CharField(max_length=20)
    old_value = models.TextField(blank=True)
    new_value = models.TextField(blank=True)
    forced = models.BooleanField(default=False)
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["scenario", "at", "pk"]
        verbose_name = _("scenario text change")

    def __str__(self) -> str:
        return f"{self.scenario.code} {self.field_name} {self.at:%Y-%m-%d %H:%M}"


class ResponseTextChange(models.Model):
    """A new version of one step's text, made by an admin on the held responses page (the
    blind-text check: names of roles, strategies or models redacted). Raters only ever see
    the current text; the earlier one stays here for researchers and the record."""

    response = models.ForeignKey("studies.Response", on_delete=models.CASCADE, related_name="text_changes")
    step = models.PositiveSmallIntegerField(_("step"))
    old_text = models.TextField(_("text before"), blank=True)
    new_text = models.TextField(_("text after"), blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    names = models.JSONField(_("names redacted"), default=list, blank=True)

    class Meta:
        ordering = ["response", "at", "pk"]
        verbose_name = _("response text change")

    def __str__(self) -> str:
        return f"{self.response_id} step {self.step} {self.at:%Y-%m-%d %H:%M}"


class AuditEvent(models.Model):
    """Who changed what outside a score sheet (sheets keep their own ``SheetEvent``
    trail): study settings, model endpoints, conditions, accounts and roles,
    invitations. Append-only; written by ``studies.services.audit.audit_record`` inside
    the transaction of the change it records."""

    at = models.DateTimeField(default=timezone.now, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # e.g. "endpoint.create", "study.settings", "account.deactivate"
    action = models.CharField(max_length=60, db_index=True)
    # what was changed, as "<app>.<model>:<pk>" (kept when the object is deleted)
    target = models.CharField(max_length=120, blank=True)
    study = models.ForeignKey(
        "studies.Study", null=True, blank=True, on_delete=models.SET_NULL, related_name="audit_events"
    )
    # {field: [old, new]} for edits; other facts of the action otherwise
    changes = models.JSONField(default=dict, blank=True)
    reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-at", "-pk"]
        verbose_name = _("audit event")

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.target}"
