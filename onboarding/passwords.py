"""Password validators of this project: the passwords it has published itself, the
username inside a password, and zxcvbn's estimate of how guessable a password is, with
what would pass."""

from __future__ import annotations

import re
import unicodedata

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django_zxcvbn_password_validator import ZxcvbnPasswordValidator

# The demo accounts' password is in the README (demo.services.DEMO_PASSWORD): seed_demo
# sets it directly, in demo mode only; nobody may choose it for a real account.
PUBLISHED_PASSWORDS = frozenset({"demo-pass-2026"})
# Examples anyone has read: this product's own (``GuessablePasswordValidator.what_passes``) and the
# best known of all (xkcd 936), compared by their letters and digits whatever the case or separators
# (hostile pass 19: "Lantern Orbit Mango Tide" passed)
EXAMPLE_PASSWORDS = frozenset({"lanternorbitmangotide", "correcthorsebatterystaple", "tr0ub4dor3"})


# digits and signs read as the letters they stand for ("d3m0-p4ss"); 1 is i or l
_AS_LETTERS = (str.maketrans("013457@$", "oieastas"), str.maketrans("013457@$", "oleastas"))


def _published_in(password: str) -> bool:
    """Whether the password holds the words of a published one, in any order, backwards, or
    written with digits for letters (hostile pass 26: "2026-pass-demo-zzz", "ssap-omed-6202-xyz"
    and "d3m0-p4ss-2026-qz" passed every check)."""
    folded = _comparable(password).casefold()
    readings = {re.sub(r"[^a-z]", "", folded.translate(table)) for table in _AS_LETTERS}
    for published in PUBLISHED_PASSWORDS:
        words = re.findall(r"[a-z]+", published)
        for text in readings | {reading[::-1] for reading in readings}:
            if all(word in text for word in words):
                return True
    return False


def _comparable(password: str) -> str:
    """The password as the checks read it: NFKC-folded, so that fullwidth or stylised letters
    (ａａａａ…, 𝐚𝐛𝐜𝐝…) are the repeats and sequences they look like (hostile pass 15)."""
    return unicodedata.normalize("NFKC", password)


class PublishedPasswordValidator:
    """Refuses a password that is, or contains, one published in this project's
    documentation (``demo-pass-2026!`` is no better than the demo's password)."""

    def validate(self, password: str, user=None) -> None:
        # with its digits changed too: "demo-pass-2027" is the same published password
        stems = {published.rstrip("0123456789") for published in PUBLISHED_PASSWORDS}
        if any(stem in _comparable(password).lower() for stem in PUBLISHED_PASSWORDS | stems) or (
            _published_in(password)
        ):
            raise ValidationError(
                _("This password is published in the documentation (the demo's password)."),
                code="password_published",
            )
        letters = "".join(char for char in _comparable(password).casefold() if char.isalnum())
        if any(example in letters for example in EXAMPLE_PASSWORDS):
            raise ValidationError(
                _("This password is a published example: choose words of your own."),
                code="password_published",
            )

    def get_help_text(self) -> str:
        return _("Your password cannot be the demo's published password.")


class UsernameInPasswordValidator:
    """Refuses a password that contains the account's username (``res2res2res2`` for
    res2): Django's similarity check compares the whole strings and lets it through."""

    def validate(self, password: str, user=None) -> None:
        username = (user.get_username() if user is not None else "").lower()
        if len(username) >= 3 and username in _comparable(password).lower():
            raise ValidationError(
                _("The password cannot contain the username."), code="password_has_username"
            )

    def get_help_text(self) -> str:
        return _("Your password cannot contain your username.")


OWN_LETTERS_MIN = 6  # letters a password needs beyond the product's names and years
_YEARS = re.compile(r"(?:19|20)\d\d")


def _own_words(user) -> list[str]:
    """The words of the account's own details (username, names, email), three letters or more:
    "alice.smith@example.org" gives alice, smith, example."""
    if user is None:
        return []
    details = [
        user.get_username(),
        *(getattr(user, f, "") or "" for f in ("first_name", "last_name", "email")),
    ]
    return [word for text in details for word in re.findall(r"[^\W\d_]{3,}", str(text).casefold())]


# digits and signs written for letters ("M3iling-Zh0u", "@lice"; hostile pass 21), a 1 as an i and as an l
_AS_LETTERS = (str.maketrans("@4310$57", "aaeiosst"), str.maketrans("@4310$57", "aaelosst"))


def _beyond_product_words(password: str, user=None) -> str:
    """The letters of ``password`` left once the product's own names (PASSWORD_EXTRA_DICTIONARY),
    the account's own details, years, digits and signs are taken out; read as written and with
    digits and signs read as the letters they stand for, the fewest left."""
    words = sorted(
        [*(w.casefold() for w in settings.PASSWORD_EXTRA_DICTIONARY), *_own_words(user)],
        key=len,
        reverse=True,
    )
    plain = _YEARS.sub("", password.casefold())  # years out before digits are read as letters
    left = []
    for rest in (plain, *(plain.translate(table) for table in _AS_LETTERS)):
        for word in words:
            rest = rest.replace(word, "")
        left.append("".join(char for char in rest if char.isalpha()))
    return min(left, key=len)


class GuessablePasswordValidator(ZxcvbnPasswordValidator):
    """zxcvbn's strength estimate (``django-zxcvbn-password-validator``: repeats, sequences,
    keyboard patterns, dictionary words and the product's own names, at least
    ``PASSWORD_MINIMAL_STRENGTH`` of 0-4), and a sentence that says what would pass: its own
    advice names what is wrong, not what is enough."""

    def validate(self, password: str, user=None) -> None:
        try:
            super().validate(_comparable(password), user)
        except ValidationError as exc:
            raise ValidationError([*exc.messages, self.what_passes()], code="password_guessable") from None
        if len(_beyond_product_words(_comparable(password), user)) < OWN_LETTERS_MIN:
            # zxcvbn scores each of several product words as a guess of its own: "cgpst-teamllm-
            # 2026" scored 4 (hostile pass 16), and so did the account's own name and a year,
            # "alice.smith.2026" (hostile pass 20), though an attacker tries both early
            raise ValidationError(
                [
                    _("This password is made of your own name, this site's names, years and signs."),
                    self.what_passes(),
                ],
                code="password_guessable",
            )

    def get_help_text(self) -> str:
        return _(
            "Your password cannot be easy to guess (repeats, sequences, keyboard rows, common words): "
            "three or four unrelated words pass."
        )

    @staticmethod
    def what_passes() -> str:
        return _(
            "What passes: three or four unrelated words with something between them, such as "
            "“lantern-orbit-mango-tide”, or a longer password without repeats, sequences "
            "(abcd, 1234) or keyboard rows (qwerty)."
        )
