"""Invitations: who invited whom to which study, and when the invitee set a password.

The one-time links themselves are not stored: they are Django password-reset style
tokens (``onboarding.tokens``), valid until the invitee sets a password or they expire."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from studies.models import Study


class Invitation(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations")
    study = models.ForeignKey(Study, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_link_at = models.DateTimeField(_("last link issued"))
    emailed_at = models.DateTimeField(null=True, blank=True)
    accepted_at = models.DateTimeField(_("password set"), null=True, blank=True)
    # When the account was deactivated: every link issued before stops working, and stays
    # dead after a reactivation (a new link is issued then).
    revoked_at = models.DateTimeField(_("links revoked"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "pk"]
        verbose_name = _("invitation")

    def __str__(self) -> str:
        return f"{self.user} ({'accepted' if self.accepted_at else 'pending'})"
