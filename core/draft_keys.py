"""The key a rater's browser seals unsent sheet changes with (``static/js/sheet.js``). Only pages
of that user's own session carry it (sent with ``Cache-Control: no-store``): after a logout, another
user of a shared browser finds the drafts in localStorage but cannot read them (hostile pass 9,
finding F4). Derived, not stored: the same user gets the same key on every login, so a draft left
by a failed save is restored when they come back."""

from __future__ import annotations

import base64
import hashlib
import hmac

from django.conf import settings

_PURPOSE = b"teamllm.sheet-draft-key.v1:"


def draft_key(*, user_id: int) -> str:
    """32 bytes for tweetnacl's secretbox, base64."""
    digest = hmac.new(settings.SECRET_KEY.encode(), _PURPOSE + str(user_id).encode(), hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


_NAMING = b"teamllm.storage-name.v1:"


def storage_name(*, user_id: int, of: str) -> str:
    """The name a rater's browser keeps something of theirs under (``of``: "sheet:12",
    "scenario:3"), opaque: the keys of localStorage name no account, sheet or scenario to whoever
    uses the browser next (hostile pass 15); the same on every visit, so a draft is found again."""
    message = _NAMING + f"{user_id}:{of}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()[:24]
