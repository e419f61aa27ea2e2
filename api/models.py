"""Personal access tokens of the HTTP API (``/api/v1/``).

Only a digest of a token is stored (SHA-256 of a 256-bit random secret: a slow hash adds
nothing to a secret that cannot be guessed); the token itself is shown once, when it is made.
``prefix`` (its first characters) lets its owner tell tokens apart on the tokens page."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from studies.models import Study


class ApiToken(models.Model):
    class Scope(models.TextChoices):
        READ = "read", _("Read only")
        WRITE = "write", _("Read and write")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(_("name"), max_length=100)
    prefix = models.CharField(max_length=16)
    digest = models.CharField(max_length=64, unique=True)
    scope = models.CharField(_("scope"), max_length=10, choices=Scope.choices, default=Scope.READ)
    # a token may be limited to one study: every other study is then "not found"
    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, null=True, blank=True, related_name="+", verbose_name=_("study")
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(_("expires"))
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_expired(self) -> bool:
        return self.expires_at <= timezone.now()

    @property
    def is_live(self) -> bool:
        return self.revoked_at is None and not self.is_expired
