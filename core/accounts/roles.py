"""The three roles of the product, as Django groups, and checks on them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar, cast

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import user_passes_test
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Model
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete
from django.http import HttpResponseBase
from django.utils.translation import gettext_lazy

ADMIN = "Admin"
RATER = "Rater"
RESEARCHER = "Researcher"
ALL_ROLES = (ADMIN, RATER, RESEARCHER)
# The roles as pages name them (the group names stay English: they are identifiers).
ROLE_LABELS = {
    ADMIN: gettext_lazy("Admin"),
    RATER: gettext_lazy("Rater"),
    RESEARCHER: gettext_lazy("Researcher"),
}
# Not a role: marks the accounts seed_demo created (published password), which may log
# in only while DEMO_MODE is on (teamllm_web.auth).
DEMO_GROUP = "Demo"


# The groups the product checks; a user's other groups (if any) play no part in it.
KNOWN_GROUPS = (*ALL_ROLES, DEMO_GROUP)


# How long a user's roles stay in the cache; every change of group membership, of a
# group or of the user deletes them before (``roles_signals_connect``). The cache is shared
# (Redis) wherever several web processes run; without Redis it is the process's own memory,
# right for ``make run``'s single web process.
ROLES_CACHE_SECONDS = 60 * 60


def _roles_key(user_id: object) -> str:
    return f"user-roles:{user_id}"


def user_roles(user: AbstractBaseUser | AnonymousUser) -> set[str]:
    """The user's roles (their known groups; a superuser is also an admin): kept on the
    user for the request and in the cache between requests, so that a request's role
    checks cost no query once the roles are cached."""
    if not user.is_authenticated:
        return set()
    cached: set[str] | None = getattr(user, "_teamllm_roles", None)
    if cached is None:
        names = cache.get(_roles_key(user.pk))
        if names is None:
            names = sorted(
                Group.objects.filter(user=user.pk, name__in=KNOWN_GROUPS).values_list("name", flat=True)
            )
            cache.set(_roles_key(user.pk), names, ROLES_CACHE_SECONDS)
        cached = set(names)
        if getattr(user, "is_superuser", False):
            cached.add(ADMIN)
        setattr(user, "_teamllm_roles", cached)  # noqa: B010 (a per-request attribute of Django's user)
    return cached


def user_roles_forget(user_ids: Iterable[object]) -> None:
    """Drop the cached roles of these users, now and again when the transaction commits (a
    request that read the old groups meanwhile cannot leave them in the cache)."""
    keys = [_roles_key(pk) for pk in user_ids]
    if not keys:
        return
    cache.delete_many(keys)
    transaction.on_commit(lambda: cache.delete_many(keys))


def _memberships_changed(
    sender: type[Model],
    instance: Model,
    action: str,
    reverse: bool,
    pk_set: set[int] | None,
    **kwargs: object,
) -> None:
    """``m2m_changed`` of ``User.groups``, from either side (``user.groups.add(...)`` or
    ``group.user_set.add(...)``)."""
    if action not in ("post_add", "post_remove", "pre_clear", "post_clear"):
        return
    if not reverse:  # instance is a user
        user_roles_forget([instance.pk])
    elif action == "pre_clear":  # instance is a group that loses all its users: who they are
        user_roles_forget(cast(Group, instance).user_set.values_list("pk", flat=True))
    elif pk_set:
        user_roles_forget(pk_set)


def _user_changed(sender: type[Model], instance: Model, **kwargs: object) -> None:
    user_roles_forget([instance.pk])


def _group_changed(sender: type[Group], instance: Group, **kwargs: object) -> None:
    """A group renamed or deleted changes the roles of its members."""
    user_roles_forget(instance.user_set.values_list("pk", flat=True))


def roles_signals_connect() -> None:
    """Connect the receivers that keep the cached roles true (from ``core.receivers``, imported when the app is ready)."""
    user_model = get_user_model()
    m2m_changed.connect(_memberships_changed, sender=user_model.groups.through, dispatch_uid="roles-m2m")
    post_save.connect(_user_changed, sender=user_model, dispatch_uid="roles-user-save")
    post_delete.connect(_user_changed, sender=user_model, dispatch_uid="roles-user-delete")
    post_save.connect(_group_changed, sender=Group, dispatch_uid="roles-group-save")
    pre_delete.connect(_group_changed, sender=Group, dispatch_uid="roles-group-delete")


def is_demo_user(user: AbstractBaseUser | AnonymousUser) -> bool:
    return DEMO_GROUP in user_roles(user)


# Roles that see unblinded data (who scored what, the partner's comments, the agreement
# of a pair): never on an account that is also a rater (double-blind scoring).
UNBLINDED_ROLES = frozenset({ADMIN, RESEARCHER})


def roles_conflict(roles: set[str] | frozenset[str]) -> bool:
    """True for a set of role groups that puts the rater role and an unblinded role on
    one account: the product refuses to grant it (a second account is the way)."""
    return RATER in roles and bool(roles & UNBLINDED_ROLES)


def user_roles_conflict(user: AbstractBaseUser | AnonymousUser) -> bool:
    """The account holds the rater role and an unblinded one (data from before the rule,
    or a superuser in the Rater group): it may use only the rater's pages."""
    return roles_conflict(user_roles(user))


def is_admin(user: AbstractBaseUser | AnonymousUser) -> bool:
    roles = user_roles(user)
    return ADMIN in roles and RATER not in roles


def is_rater(user: AbstractBaseUser | AnonymousUser) -> bool:
    return RATER in user_roles(user)


def is_researcher(user: AbstractBaseUser | AnonymousUser) -> bool:
    roles = user_roles(user)
    return RESEARCHER in roles and RATER not in roles


def is_admin_or_researcher(user: AbstractBaseUser | AnonymousUser) -> bool:
    roles = user_roles(user)
    return bool(roles & UNBLINDED_ROLES) and RATER not in roles


_View = TypeVar("_View", bound=Callable[..., HttpResponseBase])


def _require(check: Callable[[AbstractBaseUser | AnonymousUser], bool]) -> Callable[[_View], _View]:
    def test(user: AbstractBaseUser | AnonymousUser) -> bool:
        if not user.is_authenticated:
            return False
        if not check(user):
            raise PermissionDenied
        return True

    return user_passes_test(test)


admin_required = _require(is_admin)
rater_required = _require(is_rater)
researcher_required = _require(is_admin_or_researcher)
