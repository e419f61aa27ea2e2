"""The three roles of the product, as Django groups, and checks on them."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import user_passes_test
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db.models import Case, IntegerField, OuterRef, Subquery, Sum, Value, When
from django.utils.translation import gettext_lazy

from core.db.bulk import column, table

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


def user_roles_annotations() -> dict[str, Subquery]:
    """The user's known groups as one number (bit n set: member of ``KNOWN_GROUPS[n]``),
    to annotate on the user query of every request (``teamllm_web.auth.AccountBackend.
    get_user``) so that the roles cost no query of their own; ``user_roles_attach`` turns
    it into the user's cached roles. One subquery, not one EXISTS per group: PostgreSQL
    planned four subqueries in ~1.3 ms, on every request."""
    memberships = get_user_model().groups.through.objects.filter(user_id=OuterRef("pk"))
    bits = Sum(
        Case(
            *(When(group__name=name, then=Value(1 << n)) for n, name in enumerate(KNOWN_GROUPS)),
            default=Value(0),
            output_field=IntegerField(),
        )
    )
    mask = memberships.order_by().values("user_id").annotate(mask=bits).values("mask")
    return {"_known_groups_mask": Subquery(mask, output_field=IntegerField())}


def user_roles_mask_sql(user_id: str) -> tuple[str, list[str]]:
    """``user_roles_annotations`` as SQL (and its parameters) for hand-made queries: the
    known-groups mask of the user whose id is the SQL expression ``user_id``; NULL for a
    user in no group, as the annotation."""
    user_model = get_user_model()
    through = user_model.groups.through
    group = user_model._meta.get_field("groups").related_model
    name = f"{table(group)}.{column(group, 'name')}"
    bits = " ".join(f"WHEN {name} = %s THEN {1 << n}" for n in range(len(KNOWN_GROUPS)))
    sql = (
        f"(SELECT SUM(CASE {bits} ELSE 0 END) FROM {table(through)} "  # noqa: S608 (from _meta)
        f"JOIN {table(group)} ON {table(group)}.{column(group, group._meta.pk.name)} = "
        f"{table(through)}.{column(through, 'group')} WHERE {table(through)}.{column(through, 'user')} = {user_id})"
    )
    return sql, list(KNOWN_GROUPS)


def user_roles_attach(user) -> None:
    """Cache the roles read by ``user_roles_annotations`` on the user."""
    mask = getattr(user, "_known_groups_mask", None) or 0
    roles = {name for n, name in enumerate(KNOWN_GROUPS) if mask & (1 << n)}
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


# Roles that see unblinded data (who scored what, the partner's comments, the agreement
# of a pair): never on an account that is also a rater (double-blind scoring).
UNBLINDED_ROLES = frozenset({ADMIN, RESEARCHER})


def roles_conflict(roles: set[str] | frozenset[str]) -> bool:
    """True for a set of role groups that puts the rater role and an unblinded role on
    one account: the product refuses to grant it (a second account is the way)."""
    return RATER in roles and bool(roles & UNBLINDED_ROLES)


def user_roles_conflict(user) -> bool:
    """The account holds the rater role and an unblinded one (data from before the rule,
    or a superuser in the Rater group): it may use only the rater's pages."""
    return roles_conflict(user_roles(user))


def is_admin(user) -> bool:
    roles = user_roles(user)
    return ADMIN in roles and RATER not in roles


def is_rater(user) -> bool:
    return RATER in user_roles(user)


def is_researcher(user) -> bool:
    roles = user_roles(user)
    return RESEARCHER in roles and RATER not in roles


def is_admin_or_researcher(user) -> bool:
    roles = user_roles(user)
    return bool(roles & UNBLINDED_ROLES) and RATER not in roles


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
