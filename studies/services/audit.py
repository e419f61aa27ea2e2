"""The audit trail of changes made through the product's pages and commands."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from django.db import models, transaction

from studies.models import AuditEvent, Study

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

M = TypeVar("M", bound=models.Model)


def audit_target(instance: models.Model) -> str:
    """``"<app_label>.<model_name>:<pk>"``: names the object even after it is deleted."""
    return f"{instance._meta.label_lower}:{instance.pk}"


def audit_values(instance: models.Model, fields: Sequence[str]) -> dict[str, Any]:
    """The named fields' values, copied (JSON fields are edited in place by forms), to
    compare before and after a change with ``audit_changes``."""
    return {field: copy.deepcopy(getattr(instance, field)) for field in fields}


def audit_changes(*, before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[Any]]:
    """``{field: [old, new]}`` for the fields whose value differs."""
    return {key: [before.get(key), value] for key, value in after.items() if before.get(key) != value}


def audit_record(
    *,
    actor: User | AnonymousUser | None,
    action: str,
    target: models.Model | str = "",
    study: Study | None = None,
    changes: dict[str, Any] | None = None,
    reason: str = "",
) -> AuditEvent:
    """Record one change; call it inside the transaction that makes the change, so the
    event exists exactly when the change was committed. ``changes`` must be JSON."""
    if isinstance(target, models.Model):
        target = audit_target(target)
    return AuditEvent.objects.create(
        actor=cast("User | None", actor) if getattr(actor, "is_authenticated", False) else None,
        action=action,
        target=target,
        study=study,
        changes=changes or {},
        reason=reason,
    )


def audited_save(
    *,
    instance: models.Model,
    actor: User | AnonymousUser | None,
    action: str,
    fields: Sequence[str],
    before: dict[str, Any] | None = None,
) -> None:
    """Save ``instance`` and record ``action`` with ``{field: [old, new]}`` of ``fields``.
    ``before`` (``audit_values`` before the change) None: a new row, always saved; else
    nothing is saved or recorded when no field changed. Call it inside the transaction."""
    changes = audit_changes(before=before or {}, after=audit_values(instance, fields))
    if before is None or changes:
        instance.save()
        audit_record(actor=actor, action=action, target=instance, changes=changes)


@dataclass(frozen=True)
class AuditedEdit(Generic[M]):
    """What an edit page may change of a model, and how ``audited_update`` records it."""

    model: type[M]
    action: str  # the event's action, e.g. "condition.update"
    fields: tuple[str, ...]  # recorded as {field: [old, new]}
    editable: tuple[str, ...]  # set from the page's values (of ``fields``)


def audited_update(
    *,
    edit: AuditedEdit[M],
    pk: int,
    actor: User | AnonymousUser | None,
    values: Mapping[str, Any],
    check: Callable[[M, dict[str, Any]], None],
) -> M:
    """Change one row from a page's values: under the row's lock, set the editable fields
    that ``values`` carries (a form leaves out what it does not show), let
    ``check(instance, before)`` refuse by raising (nothing is saved), then ``audited_save``."""
    with transaction.atomic():
        instance = edit.model._default_manager.select_for_update().get(pk=pk)
        before = audit_values(instance, edit.fields)
        for field in edit.editable:
            if field in values:
                setattr(instance, field, values[field])
        check(instance, before)
        audited_save(instance=instance, actor=actor, action=edit.action, fields=edit.fields, before=before)
    return instance
