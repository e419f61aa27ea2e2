"""Reads for offline workbooks: which workbooks exist (one per rater and scoring group)."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.core.paginator import Page, Paginator
from django.db.models import CharField, Count, F, Q, QuerySet, Value
from django.db.models.functions import Coalesce, Concat, NullIf
from django.utils.crypto import salted_hmac

from scoring.models import Assignment, RaterProfile, SheetStatus


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


# what a file name keeps of a rater's label or a scenario's code
_SAFE = re.compile(r"[^A-Za-z0-9_-]")
_FILE_TAIL = re.compile(r"(_\d+)?(\.xlsx)?$", re.IGNORECASE)


def _group_rank(group_id: int) -> str:
    # A stable order among one rater's groups of one scenario that reveals nothing
    # about them (not creation order, which might follow the conditions).
    return salted_hmac("teamllm-web.workbook-order", str(group_id)).hexdigest()


def _unit_rows(*, rater=None, study=None, search: str = "") -> QuerySet:
    """One row per (rater, scoring group) with active assignments (probes too), with the rater's
    label and the scenario's code, in the list's order; the database groups and counts.
    ``search`` is matched in the label, the code and the two joined as a file name joins them."""
    rows = Assignment.rater_work.filter(archived_at__isnull=True, group__isnull=False)
    if rater is not None:
        rows = rows.filter(rater=rater)
    if study is not None:
        rows = rows.filter(group__study=study)
    rows = rows.annotate(
        label=Coalesce(NullIf("rater__rater_profile__rater_code", Value("")), "rater__username"),
        scenario_code=F("group__scenario__code"),
    )
    # a file name searched for finds its workbook: its ".xlsx" and its "_2" are not in the database
    search = _FILE_TAIL.sub("", search)
    if search:
        rows = rows.annotate(
            joined=Concat("label", Value("_"), "scenario_code", output_field=CharField())
        ).filter(
            Q(label__icontains=search) | Q(scenario_code__icontains=search) | Q(joined__icontains=search)
        )
    return (
        rows.values("rater_id", "group_id", "label", "scenario_code")
        .annotate(n=Count("id"), done=Count("id", filter=Q(sheet__status=SheetStatus.SUBMITTED)))
        .order_by("label", "scenario_code", "group_id")
    )


def _sibling_ranks(rows: list[dict]) -> dict[int, dict[str, list[int]]]:
    """For each rater and scenario code of ``rows``, every group of the rater with that code in
    any study, in file-name order: a workbook's name is the same on every list and download."""
    keys = {(r["rater_id"], r["scenario_code"]) for r in rows}
    siblings = (
        Assignment.rater_work.filter(
            archived_at__isnull=True,
            group__isnull=False,
            rater_id__in={rater_id for rater_id, _code in keys},
            group__scenario__code__in={code for _rater_id, code in keys},
        )
        .values_list("rater_id", "group__scenario__code", "group_id")
        .distinct()
        .order_by()
    )
    ranks: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for rater_id, code, group_id in siblings:
        if (rater_id, code) in keys:
            ranks[rater_id][code].append(group_id)
    for by_code in ranks.values():
        for group_ids in by_code.values():
            group_ids.sort(key=_group_rank)
    return ranks


def _units(rows: list[dict]) -> list[WorkbookUnit]:
    ranks = _sibling_ranks(rows)
    units = []
    for row in rows:
        label, scenario = row["label"], row["scenario_code"]
        index = ranks[row["rater_id"]][scenario].index(row["group_id"])
        suffix = "" if index == 0 else f"_{index + 1}"
        units.append(
            WorkbookUnit(
                rater_id=row["rater_id"],
                group_id=row["group_id"],
                rater_label=label,
                scenario_code=scenario,
                filename=f"{_SAFE.sub('_', label)}_{_SAFE.sub('_', scenario)}{suffix}.xlsx",
                n_assigned=row["n"],
                n_open=row["n"] - row["done"],
            )
        )
    return units


def workbook_units_get(*, rater=None, study=None) -> list[WorkbookUnit]:
    """Every (rater, scoring group) with active assignments, with its workbook's file name, in
    file-name order (a rater's own list: the order of their groups says nothing about them)."""
    units = _units(list(_unit_rows(rater=rater, study=study)))
    return sorted(units, key=lambda u: (u.rater_label, u.scenario_code, u.filename))


def workbook_units_page(*, study=None, search: str = "", page: str | int | None = 1, per_page: int) -> Page:
    """One page of the admin's workbook list, paged by the database (a 10x study has 1,200), in
    its order: by rater, scenario and scoring group (the admin may see which group came first)."""
    shown = Paginator(_unit_rows(study=study, search=search), per_page).get_page(page)
    shown.object_list = _units(list(shown.object_list))
    return shown
