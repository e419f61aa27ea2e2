"""Who may score a study's live responses, as the assignment pages show it: the rule is the
live-work gate (``scoring.gates``) that training sets."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model

from core.accounts.roles import RATER
from scoring.gates import live_work_gate
from studies.models import Study

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def raters_not_qualified(*, study: Study, raters: Iterable[User]) -> list[User]:
    """The raters among ``raters`` that the study's assignment pages must not offer."""
    return live_work_gate().raters_not_qualified(study=study, raters=raters)


def raters_trained_on(*, response_ids: Iterable[int]) -> dict[int, set[int]]:
    """Per live response, the raters who had a training copy of it (archived or not: they
    have seen its reference), who must never score the original."""
    return live_work_gate().raters_trained_on(response_ids=response_ids)


def unqualified_by_study() -> list[tuple[Study, list[str]]]:
    """For the assignment pages: per gated study, the raters it will not give live work to
    yet (usernames)."""
    gate = live_work_gate()
    studies = gate.studies_gated()
    if not studies:
        return []
    raters = list(
        get_user_model().objects.filter(groups__name=RATER, is_active=True).order_by("username").distinct()
    )
    out = []
    for study in studies:
        if names := [u.get_username() for u in gate.raters_not_qualified(study=study, raters=raters)]:
            out.append((study, names))
    return out


def raters_blocked(*, raters: Iterable[User], study: Study | None) -> dict[int, list[str]]:
    """For the rater dropdowns: per rater id, the names of the studies (``study``, or every
    gated study) that give them no live work until they qualify."""
    raters = list(raters)
    gate = live_work_gate()
    studies = [study] if study is not None else gate.studies_gated()
    out: dict[int, list[str]] = {}
    for one in studies:
        for user in gate.raters_not_qualified(study=one, raters=raters):
            out.setdefault(user.pk, []).append(one.name)
    return out
