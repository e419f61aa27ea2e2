"""The three roles of the product, as Django groups, and checks on them."""

from __future__ import annotations

from django.contrib.auth.decorators import user_passes_test
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied

ADMIN = "Admin"
RATER = "Rater"
RESEARCHER = "Researcher"
ALL_ROLES = (ADMIN, RATER, RESEARCHER)
# Not a role: marks the accounts seed_demo created (published password), which may log
# in only while DEMO_MODE is on (teamllm_web.auth).
DEMO_GROUP = "Demo"


def user_roles(user: AbstractBaseUser | AnonymousUser) -> set[str]:
    if not user.is_authenticated:
        return set()
    cached = getattr(user, "_teamllm_roles", None)
    if cached is None:
        cached = set(user.groups.values_list("name", flat=True))
        if user.is_superuser:
            cached.add(ADMIN)
        user._teamllm_roles = cached
    return cached


def is_demo_user(user) -> bool:
    return DEMO_GROUP in user_roles(user)


def is_admin(user) -> bool:
    return ADMIN in user_roles(user)


def is_rater(user) -> bool:
    return RATER in user_roles(user)


def is_researcher(user) -> bool:
    return RESEARCHER in user_roles(user)


def is_admin_or_researcher(user) -> bool:
    return bool(user_roles(user) & {ADMIN, RESEARCHER})


def _require(check):
    def test(user):
        if not user.is_authenticated:
            return False
        if not check(user):
            raise PermissionDenied
        return True

    return user_passes_test(test)


admin_required = _require(is_admin)
rater_required = _require(is_rater)
researcher_required = _require(is_admin_or_researcher)
