"""Reads for offline workbooks: which workbooks exist (one per rater and scoring group)."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Count, Q
from django.utils.crypto import salted_hmac

from scoring.models import Assignment, RaterProfile, ScoringGroup, SheetStatus


def rater_label(user) -> str:
    """The rater's study ID (H01), else the username: used in file names and on sheets."""
    profile = RaterProfile.objects.filter(user=user).only("rater_code").first()
    return profile.rater_code if profile and profile.rater_code else user.get_username()


def rater_by_label(label: str):
    profile = RaterProfile.objects.filter(rater_code=label).select_related("user").first()
    if profile:
        return profile.user
    return get_user_model().objects.filter(username=label).first()


@dataclass(frozen=True)
class WorkbookUnit:
    rater_id: int
    group_id: int
    rater_label: str
    scenario_code: str
    filename: str
    n_assigned: int
    n_open: int

    @property
    def key(self) -> str:
        """An opaque URL key for the rater's pages: the group id would hint at creation order,
        and a key of the group alone would be the same for both raters of a pair."""
        return salted_hmac("teamllm-web.workbook-key", f"{self.rater_id}:{self.group_id}").hexdigest()[:20]


def _group_rank(group_id: int) -> str:
    # A stable order among one rater's groups of one scenario that reveals nothing
    # about them (not creation order, which might follow the conditions).
    return salted_hmac("teamllm-web.workbook-order", str(group_id)).hexdigest()


def workbook_units_get(*, rater=None, study=None) -> list[WorkbookUnit]:
    """Every (rater, scoring group) with active assignments, with its workbook's file name."""
    rows = Assignment.rater_work.filter(archived_at__isnull=True, group__isnull=False)  # probes too
    if rater is not None:
        rows = rows.filter(rater=rater)
    if study is not None:
        rows = rows.filter(group__study=study)
    counts = (
        rows.values("rater_id", "group_id")
        .annotate(n=Count("id"), done=Count("id", filter=Q(sheet__status=SheetStatus.SUBMITTED)))
        .order_by()
    )
    groups = {
        g.pk: g
        for g in ScoringGroup.objects.filter(pk__in={c["group_id"] for c in counts}).select_related(
            "scenario"
        )
    }
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in={c["rater_id"] for c in counts})}
    codes = dict(
        RaterProfile.objects.filter(user_id__in=users, rater_code__isnull=False).values_list(
            "user_id", "rater_code"
        )
    )
    by_name: dict[tuple[int, str], list[dict]] = defaultdict(list)
    for c in counts:
        by_name[(c["rater_id"], groups[c["group_id"]].scenario.code)].append(c)
    units = []
    for (rater_id, scenario), items in by_name.items():
        label = codes.get(rater_id) or users[rater_id].get_username()
        safe = re.sub(r"[^A-Za-z0-9_-]", "_", label)
        for index, c in enumerate(sorted(items, key=lambda c: _group_rank(c["group_id"])), start=1):
            suffix = "" if index == 1 else f"_{index}"
            units.append(
                WorkbookUnit(
                    rater_id=rater_id,
                    group_id=c["group_id"],
                    rater_label=label,
                    scenario_code=scenario,
                    filename=f"{safe}_{re.sub(r'[^A-Za-z0-9_-]', '_', scenario)}{suffix}.xlsx",
                    n_assigned=c["n"],
                    n_open=c["n"] - c["done"],
                )
            )
    return sorted(units, key=lambda u: (u.rater_label, u.scenario_code, u.filename))
