"""One-time set-password links: Django's password-reset token machinery with its own salt.

A token is signed over the user's password hash and last login, so it stops working as
soon as the invitee has set a password, and over the time the account's last link was
issued (``Invitation.last_link_at``), so a new link revokes the previous one, and over the
time its links were revoked (``Invitation.revoked_at``: the account was deactivated), so no
link issued before a deactivation works again after a reactivation; it expires after
``PASSWORD_RESET_TIMEOUT`` (``INVITATION_LINK_DAYS``). An inactive account's link never
works (``onboarding.views``)."""

from __future__ import annotations

from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.db.models import Max
from django.utils.crypto import constant_time_compare
from django.utils.http import base36_to_int

from onboarding.models import Invitation

VALID = "valid"
EXPIRED = "expired"
INVALID = "invalid"


class InvitationTokenGenerator(PasswordResetTokenGenerator):
    key_salt = "onboarding.tokens.InvitationTokenGenerator"

    def _make_hash_value(self, user, timestamp: int) -> str:
        links = Invitation.objects.filter(user_id=user.pk).aggregate(
            issued=Max("last_link_at"), revoked=Max("revoked_at")
        )
        issued = links["issued"].isoformat() if links["issued"] is not None else ""
        revoked = f"revoked {links['revoked'].isoformat()}" if links["revoked"] is not None else ""
        return f"{super()._make_hash_value(user, timestamp)}{issued}{revoked}"

    def state(self, user, token: str) -> str:
        """``valid``, ``expired`` (signed for this user but too old) or ``invalid``."""
        if self.check_token(user, token):
            return VALID
        try:
            ts = base36_to_int(token.split("-", 1)[0])
        except ValueError:
            return INVALID
        for secret in [self.secret, *self.secret_fallbacks]:
            if constant_time_compare(self._make_token_with_timestamp(user, ts, secret), token):
                return EXPIRED
        return INVALID


invitation_tokens = InvitationTokenGenerator()
