"""Credentials out of every text a provider call produces: the key used (also spelled out
with anything between its characters, reversed, in hex or base64, or any long part of it) and whatever looks like a credential, whoever echoed
it (a provider, a gateway, a proxy). Pure."""

from __future__ import annotations

import base64
import codecs
import html
import re
from collections.abc import Iterable

from core.llm.keys import NO_KEY
from core.text_forms import reader_form

REDACTED = "[redacted]"
_JSON_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_AUTH_WORDS = r"(?:api[ _-]?key|access[ _-]?key|secret(?:[ _-]?key)?|token|credentials?|password|passwd|authorization|auth|bearer|key)"
_CREDENTIAL_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # "Authorization: Bearer <token>", "Basic <...>", "Token <...>"
    (re.compile(r"\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9._~+/=:-]{4,}", re.I), r"\1\2" + REDACTED),
    # provider-style keys: sk-..., sk-proj-..., sk-ant-..., rk-..., pk-...
    (re.compile(r"\b(?:sk|rk|pk)-[A-Za-z0-9_-]{8,}"), REDACTED),
    # AWS access key ids, Google API keys, GitHub / Slack tokens
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), REDACTED),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"), REDACTED),
    (re.compile(r"\b(?:gh[pousr]|github_pat|xox[abpr])_[A-Za-z0-9_-]{10,}"), REDACTED),
    # a password inside a URL: scheme://user:password@host
    (re.compile(r"(://[^/\s:@]*:)[^@\s/]+@"), r"\1" + REDACTED + "@"),
    # query strings and key=value / "key": "value" pairs in auth contexts
    (
        re.compile(
            r"((?:\b|_)(?:api[_-]?key|apikey|key|access[_-]?token|token|secret|password|passwd|auth|"
            r"x-api-key|authorization|signature|sig)[\"']?\s*[=:]\s*[\"']?)(?!(?:Bearer|Basic|Token)\b|\[redacted\])([^\s&\"',;}]{4,})",
            re.I,
        ),
        r"\1" + REDACTED,
    ),
]
# a long token-like string (letters and digits, 16+) soon after a word of authentication
_AUTH_CONTEXT = re.compile(
    rf"(\b{_AUTH_WORDS}\b[^\n]{{0,48}}?)(?<![A-Za-z0-9])([A-Za-z0-9._~+/=-]{{16,}})", re.I
)
# any long random-looking string: upper and lower case letters and digits mixed, 32+
_LONG_TOKEN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9_+/=-]{32,}(?![A-Za-z0-9])")


def _token_like(text: str) -> bool:
    return any(c.isdigit() for c in text) and any(c.isalpha() for c in text)


def _mixed(text: str) -> bool:
    return _token_like(text) and any(c.isupper() for c in text) and any(c.islower() for c in text)


# A secret is found spelled out (its letters and digits with anything between them) from this length.
SPELLED_OUT_MIN = 8


def _folded(text: str) -> tuple[str, list[int]]:
    """The letters and digits of ``text`` as a reader sees them (``core.text_forms``: full-width
    folded, invisible characters dropped, Latin look-alikes made Latin), case-folded, and the
    index in ``text`` each came from."""
    seen, seen_origins = reader_form(text)
    chars: list[str] = []
    origins: list[int] = []
    for index, char in enumerate(seen):
        for folded in char.casefold():
            if folded.isalnum():
                chars.append(folded)
                origins.append(seen_origins[index])
    return "".join(chars), origins


# ... and any run of this many of its letters and digits (a suffix, a middle part: a server
# echoing "...9876543210abcd"); a random key shares no such run with ordinary text.
FRAGMENT_MIN = 8


def redact_spelled_out(text: str, secret: str) -> str:
    """``text`` with ``secret`` redacted wherever its letters and digits, or any run of
    ``FRAGMENT_MIN`` of them, follow each other in order, whatever stands between them (spaces,
    punctuation, line breaks, invisible or full-width characters) and in any case: a server
    echoing the key as ``s k - l i v e ...`` or only its end."""
    needle, _ = _folded(secret)
    if len(needle) < SPELLED_OUT_MIN:
        return text
    haystack, origins = _folded(text)
    width = min(len(needle), FRAGMENT_MIN)
    covered = [False] * len(haystack)
    for offset in range(len(needle) - width + 1):
        window = needle[offset : offset + width]
        start = haystack.find(window)
        while start != -1:
            covered[start : start + width] = [True] * width
            start = haystack.find(window, start + 1)
    spans: list[tuple[int, int]] = []
    for index, hit in enumerate(covered):
        if not hit:
            continue
        first, end = origins[index], origins[index] + 1
        if spans and (index > 0 and covered[index - 1]):
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((first, end))
    for first, end in reversed(spans):
        text = text[:first] + REDACTED + text[end:]
    return text


def secret_spellings(secret: str) -> list[str]:
    """The forms a server may echo a key in: as it is, reversed, every second or third character
    (answers that give the key in turns), ROT13, hex (also reversed, and of UTF-16), base64,
    base32, base85 and its bytes in decimal."""
    raw = secret.encode()
    return [
        secret,
        secret[::-1],
        *(secret[offset::step] for step in (2, 3) for offset in range(step)),
        codecs.encode(secret, "rot13"),
        raw.hex(),
        raw.hex()[::-1],
        raw[::-1].hex(),
        secret.encode("utf-16-be").hex(),
        base64.b64encode(raw).decode().rstrip("="),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        base64.b32encode(raw).decode().rstrip("="),
        base64.b85encode(raw).decode(),
        "".join(str(byte) for byte in raw),
    ]


def redact_credentials(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every credential-looking string replaced by ``[redacted]``: the given
    secrets (the key actually used, also spelled out with anything between its characters),
    ``sk-...``-style keys, ``Bearer <token>``, ``api_key=`` and ``key=`` values, passwords in
    URLs, and long token-like strings in an authentication context or mixing cases and
    digits, whoever echoed them (a provider, a gateway, a proxy). Applied to every LLM error
    before it is stored or shown."""
    if not text:
        return text
    if "&" in text:
        text = html.unescape(text)  # "&#115;&#107;..." is the key to whoever reads it
    if "\\u" in text:  # JSON's "\u0073\u006b...", read as the characters they stand for
        text = _JSON_ESCAPE.sub(
            lambda m: m[0] if 0xD800 <= int(m[1], 16) <= 0xDFFF else chr(int(m[1], 16)), text
        )
    for secret in secrets:
        if secret and secret != NO_KEY and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
            for spelling in secret_spellings(secret):
                text = redact_spelled_out(text, spelling)
    for pattern, replacement in _CREDENTIAL_PATTERNS:
        text = pattern.sub(replacement, text)
    text = _AUTH_CONTEXT.sub(
        lambda m: m[1] + REDACTED if _token_like(m[2]) and m[2] != REDACTED else m[0], text
    )
    return _LONG_TOKEN.sub(lambda m: REDACTED if _mixed(m[0]) else m[0], text)


def redact(text: str, secret: str) -> str:
    return redact_credentials(text, [secret])
