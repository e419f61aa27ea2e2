"""Applying a judge's scoring plan (``judging.selectors.planning``): the responses it chose go to
one rater pair, audited. The plan is made again from the data as they are now and must be the one
the admin reviewed: otherwise nothing is assigned and the admin reviews the new one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _

from judging.models import Judge
from judging.selectors.planning import scoring_plan_get
from scoring.services.arrival import AssignmentError
from scoring.services.assignments import responses_assign_pair
from studies.models import Response, Study

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def scoring_plan_apply(
    *,
    study: Study,
    judge: Judge,
    budget: int,
    reviewed: Sequence[int],
    rater_a: User,
    rater_b: User,
    actor: User | None,
) -> int:
    """Give the plan's responses to the pair; ``reviewed``: the response ids the admin saw.
    Raises AssignmentError (nothing assigned). Returns the number of assignments made."""
    plan = scoring_plan_get(study=study, judge=judge, budget=budget)
    if not plan.response_ids:
        raise AssignmentError(_("The plan chooses no response: every response the judge scored has a pair."))
    if sorted(plan.response_ids) != sorted(reviewed):
        raise AssignmentError(
            _("The plan has changed since it was shown (new scores or assignments): review the new plan.")
        )
    responses = list(Response.objects.filter(pk__in=plan.response_ids).order_by("research_id"))
    return responses_assign_pair(
        study=study,
        responses=responses,
        rater_a=rater_a,
        rater_b=rater_b,
        actor=actor,
        reason=f"scoring plan of LLM judge {judge.name}: {len(responses)} responses to narrow its intervals",
    )
