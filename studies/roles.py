"""The three roles of the product, as Django groups, and checks on them."""

from __future__ import annotations

from django.contrib.auth.decorators import user_passes_test
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef

ADMIN = "Admin"
RATER = "Rater"
RESEARCHER = "Researcher"
ALL_ROLES = (ADMIN, RATER, RESEARCHER)
# Not a role: marks the accounts seed_demo created (published password), which may log
# in only while DEMO_MODE is on (teamllm_web.auth).
DEMO_GROUP = "Demo"


# The groups the product checks; a user's other groups (if any) play no part in it.
KNOWN_GROUPS = (*ALL_ROLES, DEMO_GROUP)


def user_roles_annotations() -> dict[str, Exists]:
    """One EXISTS per known group, to annotate on the user query of every request
    (``teamllm_web.auth.AccountBackend.get_user``) so that the roles cost no query of
    their own; ``user_roles_attach`` turns them into the user's cached roles."""
    return {
        f"_in_group_{n}": Exists(Group.objects.filter(user=OuterRef("pk"), name=name))
        for n, name in enumerate(KNOWN_GROUPS)
    }


def user_roles_attach(user) -> None:
    """Cache the roles read by ``user_roles_annotations`` on the user."""
    roles = {name for n, name in enumerate(KNOWN_GROUPS) if getattr(user, f"_in_group_{n}", False)}
    if user.is_superuser:
        roles.add(ADMIN)
    user._teamllm_roles = roles


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
