"""Keeps invitation tokens out of the server's log.

Django logs every 4xx answer with its path ("Bad Request: /accounts/invite/<uid>/<token>/"),
and a 429 from the link throttle may answer a link that still works. This filter, on the
log handlers (settings.LOGGING), replaces the token of any invitation path in a record."""

from __future__ import annotations

import logging
import re

INVITATION_TOKEN = re.compile(r"(/accounts/invite/[^/\s\"']+/)(?!set-password/)[^/\s\"']+")
REDACTED = r"\1[token]"


def redact_invitation_tokens(text: str) -> str:
    return INVITATION_TOKEN.sub(REDACTED, text)


def _clean(value):
    return redact_invitation_tokens(value) if isinstance(value, str) else value


class InvitationTokenFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact_invitation_tokens(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_clean(arg) for arg in record.args)
        elif isinstance(record.args, dict):
            record.args = {key: _clean(value) for key, value in record.args.items()}
        return True
