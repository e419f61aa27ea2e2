"""Research conditions, changed through the product's pages (audited): the parameters are
checked as a run would resolve them, and the strategy is fixed once responses exist."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils.translation import gettext as _

from generation.strategies import STRATEGIES, ParameterError, resolve_params
from studies.models import Condition
from studies.services.audit import AuditedEdit, audited_save, audited_update

if TYPE_CHECKING:
    from django.contrib.auth.models import User

CONDITION_FIELDS = ("letter", "name", "strategy", "parameters", "description")
# the letter is fixed once the condition exists: research IDs carry it
CONDITION_EDIT = AuditedEdit(
    model=Condition, action="condition.update", fields=CONDITION_FIELDS, editable=CONDITION_FIELDS[1:]
)


class ConditionError(Exception):
    """A change the condition cannot take; the message is for the admin."""


def condition_parameters_check(*, strategy: str, parameters: Any) -> None:
    """Raises ConditionError unless ``parameters`` are overrides the strategy accepts."""
    if strategy not in STRATEGIES:
        raise ConditionError(_("Unknown strategy."))
    if not isinstance(parameters, dict):
        raise ConditionError(_("The parameters must be a JSON object."))
    try:
        # a study's own members stand in for TeamFusion's profiles at run time
        members = [{"name": "A", "preferences": "-"}, {"name": "B", "preferences": "-"}]
        resolve_params(
            strategy=strategy, overrides=parameters, profiles=members if strategy == "teamfusion" else None
        )
    except ParameterError as exc:
        raise ConditionError(_("The parameters do not fit the strategy: %(error)s") % {"error": exc}) from exc


def condition_create(*, actor: User | None, values: dict[str, Any]) -> Condition:
    """A new condition. Raises ConditionError or ValidationError."""
    condition = Condition(**{field: values[field] for field in CONDITION_FIELDS if field in values})
    condition_parameters_check(strategy=condition.strategy, parameters=condition.parameters)
    condition.full_clean()
    with transaction.atomic():
        audited_save(instance=condition, actor=actor, action="condition.create", fields=CONDITION_FIELDS)
    return condition


def condition_update(*, condition_id: int, actor: User | None, values: dict[str, Any]) -> Condition:
    """Change a condition's name, description, parameters and (while no response has
    it) its strategy; its letter is fixed (research IDs carry it). Records
    ``{field: [old, new]}``. Raises ConditionError or ValidationError."""

    def check(condition: Condition, before: dict[str, Any]) -> None:
        if condition.strategy != before["strategy"] and condition.responses.exists():
            raise ConditionError(
                _("The strategy is fixed: this condition already has responses. Create a new condition.")
            )
        condition_parameters_check(strategy=condition.strategy, parameters=condition.parameters)
        condition.full_clean()

    return audited_update(edit=CONDITION_EDIT, pk=condition_id, actor=actor, values=values, check=check)
