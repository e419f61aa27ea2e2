"""A password validator for the passwords this project has published itself."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

# The demo accounts' password is in the README (demo.services.DEMO_PASSWORD): seed_demo
# sets it directly, in demo mode only; nobody may choose it for a real account.
PUBLISHED_PASSWORDS = frozenset({"demo-pass-2026"})


class PublishedPasswordValidator:
    """Refuses a password that is published in this project's documentation."""

    def validate(self, password: str, user=None) -> None:
        if password.strip().lower() in PUBLISHED_PASSWORDS:
            raise ValidationError(
                _("This password is published in the documentation (the demo's password)."),
                code="password_published",
            )

    def get_help_text(self) -> str:
        return _("Your password cannot be the demo's published password.")
