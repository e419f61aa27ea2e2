"""Admin pages: assign rater pairs, balanced automatic assignment, the workload
board, a scenario group's detail (reassign, archive) and reopening sheets."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from core.accounts.roles import admin_required
from scoring.forms import (
    AutoAssignForm,
    PairAssignForm,
    PlanApplyForm,
    ReasonForm,
    ReassignForm,
    SheetCorrectForm,
    WorkloadFilterForm,
)
from scoring.models import Assignment, ScoreSheet, ScoringGroup
from scoring.selectors import group_detail
from scoring.selectors.qualification import unqualified_by_study
from scoring.selectors.workload import workload_board
from scoring.services.assignments import (
    AssignmentError,
    assignment_archive,
    group_archive,
    group_assign_pair,
    group_reassign,
    plan_apply,
    plan_for_study,
    study_sync_assignments,
)
from scoring.services.sheets import SheetError, SheetIncomplete, sheet_correct, sheet_reopen
from studies.models import Condition, Scenario, Study
from studies.params import id_param
from studies.selectors import responses_held, responses_held_count
from studies.views import study_choices_refresh

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest


def _say_held(request: HttpRequest, held: int, study: Study | None = None) -> None:
    """Tell the admin that responses held for review were left out (the review gate)."""
    if held:
        url = reverse("studies:held_responses") + (f"?study={study.pk}" if study else "")
        messages.warning(
            request,
            format_html(
                '{} <a href="{}">{}</a>',
                ngettext(
                    "%(n)d response held for review was not assigned: it is assigned when released.",
                    "%(n)d responses held for review were not assigned: each is assigned when released.",
                    held,
                )
                % {"n": held},
                url,
                _("Responses held for review"),
            ),
        )


def _study_from(request: HttpRequest) -> Study | None:
    study_id = id_param(request.GET.get("study"))
    return None if study_id is None else Study.objects.filter(pk=study_id).first()


@admin_required
@require_http_methods(["GET", "POST"])
def assignments_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Assign a pair to a scenario under one or more conditions; the list of active groups."""
    form = PairAssignForm(request.POST or None, study=_study_from(request))
    if (choices := study_choices_refresh(request, form, "scoring/assignments.html")) is not None:
        return choices
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            # the form's fields are the service's parameters
            groups = group_assign_pair(actor=request.user, **data)
        except AssignmentError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(
                request,
                ngettext(
                    "Pair assigned to %(n)s scenario group.",
                    "Pair assigned to %(n)s scenario groups.",
                    len(groups),
                )
                % {"n": len(groups)},
            )
            held = responses_held_count(
                study=data["study"], scenario=data["scenario"], conditions=data["conditions"]
            )
            _say_held(request, held, data["study"])
            return redirect(f"{reverse('scoring:assignments')}?study={data['study'].pk}")
    context = {"form": form, **_board_context(request), "unqualified": unqualified_by_study()}
    return render(request, "scoring/assignments.html", context)


@admin_required
@require_http_methods(["GET", "POST"])
def auto_assign(request: HttpRequest) -> HttpResponse:
    """Step 1: choose raters and scenario groups and see the plan; step 2: apply it."""
    form = AutoAssignForm(request.POST or None, study=_study_from(request))
    if (choices := study_choices_refresh(request, form, "scoring/auto_assign.html")) is not None:
        return choices
    plan = None
    plan_rows: list[dict] = []
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            plan = plan_for_study(**data)  # the form's fields are the service's parameters
        except AssignmentError as exc:
            form.add_error(None, exc.message)
        else:
            users = {u.pk: u for u in data["raters"]}
            scenarios = Scenario.objects.in_bulk([p.scenario_id for p in plan.groups])
            conditions = Condition.objects.in_bulk([p.condition_id for p in plan.groups])
            plan_rows = [
                {
                    "scenario": scenarios[p.scenario_id],
                    "condition": conditions[p.condition_id],
                    "responses": p.responses,
                    "rater_a": users[p.rater_a_id],
                    "rater_b": users[p.rater_b_id],
                }
                for p in plan.groups
            ]
            loads = [
                {"user": users[r], "before": plan.load_before[r], "after": plan.load_after[r]}
                for r in plan.load_after
            ]
            encoded = " ".join(
                f"{p.scenario_id}:{p.condition_id}:{p.responses}:{p.rater_a_id}:{p.rater_b_id}"
                for p in plan.groups
            )
            apply_form = PlanApplyForm(initial={"study": data["study"].pk, "plan": encoded})
            return render(
                request,
                "scoring/auto_assign.html",
                {
                    "form": form,
                    "plan": plan,
                    "plan_rows": plan_rows,
                    "loads": loads,
                    "apply_form": apply_form,
                    "plan_study": data["study"],
                },
            )
    return render(
        request,
        "scoring/auto_assign.html",
        {"form": form, "plan": None, "unqualified": unqualified_by_study()},
    )


@admin_required
@require_POST
def auto_assign_apply(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = PlanApplyForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("The plan could not be read; make a new plan."))
        return redirect("scoring:auto_assign")
    try:
        groups = plan_apply(
            study=form.cleaned_data["study"], plan=form.cleaned_data["plan"], actor=request.user
        )
    except AssignmentError as exc:
        messages.error(request, exc.message)
        return redirect("scoring:auto_assign")
    messages.success(
        request,
        ngettext(
            "Plan applied: %(n)s scenario group assigned.",
            "Plan applied: %(n)s scenario groups assigned.",
            len(groups),
        )
        % {"n": len(groups)},
    )
    study = form.cleaned_data["study"]
    held = sum(
        responses_held_count(study=study, scenario=g.scenario, conditions=[g.condition]) for g in groups
    )
    _say_held(request, held, study)
    return redirect("scoring:workload")


@admin_required
def workload(request: HttpRequest) -> HttpResponse:
    return render(request, "scoring/workload.html", _board_context(request))


def _board_context(request: HttpRequest) -> dict:
    """The workload board as the query string filters and pages it, and what its links keep."""
    filter_form = WorkloadFilterForm(request.GET, auto_id="filter_%s")
    study, filters = filter_form.workload_filters()
    kept = [(key, request.GET[key][:150]) for key in filter_form.fields if request.GET.get(key)]
    return {
        "filter_form": filter_form,
        "board": workload_board(study=study, filters=filters, page=request.GET.get("page")),
        "study": study,
        "page_query": urlencode(kept),
    }


@admin_required
@require_POST
def sync_assignments(request: AuthenticatedHttpRequest) -> HttpResponse:
    created = sum(study_sync_assignments(study=s, actor=request.user) for s in Study.objects.all())
    messages.success(
        request,
        ngettext(
            "%(n)s new assignment created for responses added later.",
            "%(n)s new assignments created for responses added later.",
            created,
        )
        % {"n": created},
    )
    _say_held(request, responses_held().count())
    return redirect("scoring:assignments")


@admin_required
@require_http_methods(["GET", "POST"])
def group_page(request: AuthenticatedHttpRequest, group_id: int) -> HttpResponse:
    group = get_object_or_404(
        ScoringGroup.objects.select_related("study", "scenario", "condition", "rater_a", "rater_b"),
        pk=group_id,
    )
    reassign_form = ReassignForm(
        request.POST if request.POST.get("action") == "reassign" else None,
        initial={"rater_a": group.rater_a_id, "rater_b": group.rater_b_id},
        study=group.study,
    )
    archive_form = ReasonForm(request.POST if request.POST.get("action") == "archive" else None)
    if request.method == "POST":
        try:
            if request.POST.get("action") == "reassign" and reassign_form.is_valid():
                data = reassign_form.cleaned_data
                new = group_reassign(
                    group=group, rater_a=data["rater_a"], rater_b=data["rater_b"], actor=request.user,
                    reason=data["reason"],
                )  # fmt: skip
                messages.success(request, _("The group has a new pair; replaced assignments are archived."))
                return redirect("scoring:group", group_id=new.pk)
            if request.POST.get("action") == "archive" and archive_form.is_valid():
                group_archive(group=group, actor=request.user, reason=archive_form.cleaned_data["reason"])
                messages.success(request, _("The pair was removed; its assignments and sheets are archived."))
                return redirect("scoring:assignments")
        except AssignmentError as exc:
            messages.error(request, exc.message)
    context = {
        "group": group,
        "rows": group_detail(group=group),
        "reassign_form": reassign_form,
        "archive_form": archive_form,
        "reason_form": ReasonForm(),
    }
    return render(request, "scoring/group.html", context)


@admin_required
@require_POST
def assignment_archive_view(request: AuthenticatedHttpRequest, assignment_id: int) -> HttpResponse:
    assignment = get_object_or_404(Assignment, pk=assignment_id)
    form = ReasonForm(request.POST)
    if form.is_valid():
        try:
            assignment_archive(assignment=assignment, actor=request.user, reason=form.cleaned_data["reason"])
        except AssignmentError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("Assignment archived; its sheet is kept."))
    else:
        messages.error(request, _("Give a reason."))
    if assignment.group_id:
        return redirect("scoring:group", group_id=assignment.group_id)
    return redirect("scoring:workload")


SHEET_EVENTS_PER_PAGE = 100


@admin_required
@require_http_methods(["GET", "POST"])
def sheet_admin(request: AuthenticatedHttpRequest, sheet_id: int) -> HttpResponse:
    """A sheet's totals and audit trail; reopening a submitted sheet with a reason, or
    correcting one of its entries with a reason (it stays submitted)."""
    sheet = get_object_or_404(
        ScoreSheet.objects.select_related("assignment__rater", "assignment__response", "assignment__group"),
        pk=sheet_id,
    )
    action = request.POST.get("action", "reopen") if request.method == "POST" else ""
    form = ReasonForm(request.POST if action == "reopen" else None)
    correct_form = SheetCorrectForm(  # prefixed: its reason field is not the reopen form's (ids, labels)
        request.POST if action == "correct" else None,
        initial={"expected_version": sheet.version},
        prefix="correct",
    )
    if action == "reopen" and form.is_valid():
        try:
            sheet_reopen(sheet_id=sheet.pk, actor=request.user, reason=form.cleaned_data["reason"])
        except SheetError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("The sheet is open again for its rater."))
            return redirect("scoring:sheet_admin", sheet_id=sheet.pk)
    if action == "correct" and correct_form.is_valid():
        data = correct_form.cleaned_data
        try:
            sheet_correct(
                sheet_id=sheet.pk,
                actor=request.user,
                changes=[(data["path"], data["value"])],
                reason=data["reason"],
                expected_version=data["expected_version"],
            )
        except SheetIncomplete:
            correct_form.add_error(None, _("A submitted sheet must stay complete; give a value."))
        except SheetError as exc:
            correct_form.add_error(None, exc.message)
        else:
            messages.success(request, _("The entry was corrected; agreement and final scores follow."))
            return redirect("scoring:sheet_admin", sheet_id=sheet.pk)
    # newest first, a page at a time: every event stays reachable however many a sheet has
    events = Paginator(sheet.events.select_related("actor").order_by("-id"), SHEET_EVENTS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    context = {"sheet": sheet, "form": form, "correct_form": correct_form, "events": events}
    return render(request, "scoring/sheet_admin.html", context)
