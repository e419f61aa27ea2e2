"""The judge's scoring plan (beyond the study, issue 39): which responses human pairs score next to
narrow the widest prediction-powered intervals; researchers see it, admins give it to a pair."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from core.accounts.roles import RATER, is_admin, researcher_required
from judging.models import Judge
from judging.selectors.planning import scoring_plan_get
from judging.services.planning import scoring_plan_apply
from scoring.forms import RaterChoiceField
from scoring.services.assignments import AssignmentError
from studies.models import Study
from studies.params import IdChoiceField, id_param

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest

MAX_BUDGET = 1000


class PlanForm(forms.Form):
    study = IdChoiceField(queryset=Study.objects.order_by("name"), label=_("Study"))
    judge = IdChoiceField(queryset=Judge.objects.order_by("name"), label=_("LLM judge"))
    budget = forms.IntegerField(min_value=1, max_value=MAX_BUDGET, initial=20, label=_("Responses to plan"))


def _raters():
    return get_user_model().objects.filter(groups__name=RATER, is_active=True).order_by("username").distinct()


class PlanApplyForm(PlanForm):
    reviewed = forms.CharField(widget=forms.HiddenInput, max_length=20_000)
    rater_a = RaterChoiceField(label=_("First rater"), queryset=_raters())
    rater_b = RaterChoiceField(label=_("Second rater"), queryset=_raters())

    def clean_reviewed(self) -> list[int]:
        ids = [id_param(part) for part in self.cleaned_data["reviewed"].split(",")]
        if not ids or any(i is None for i in ids):
            raise forms.ValidationError(_("The plan shown is not readable: review the plan again."))
        return [i for i in ids if i is not None]


@researcher_required
def research_judge_plan(request: AuthenticatedHttpRequest) -> HttpResponse:
    """GET: the plan for a study, a judge and a number of responses. POST (admins): give the plan's
    responses to a rater pair, if the plan is still the one shown."""
    if request.method == "POST":
        if not is_admin(request.user):
            return HttpResponse(status=403)
        apply_form = PlanApplyForm(request.POST)
        if apply_form.is_valid():
            data = apply_form.cleaned_data
            try:
                made = scoring_plan_apply(
                    study=data["study"], judge=data["judge"], budget=data["budget"], reviewed=data["reviewed"],
                    rater_a=data["rater_a"], rater_b=data["rater_b"], actor=request.user,
                )  # fmt: skip
            except AssignmentError as exc:
                messages.error(request, exc.message)
            else:
                messages.success(
                    request, ngettext("%(n)d assignment made.", "%(n)d assignments made.", made) % {"n": made}
                )
            query = {k: request.POST.get(k, "") for k in ("study", "judge", "budget")}
            return redirect(reverse("research:research_judge_plan") + "?" + urlencode(query))
        form = PlanForm(request.POST)
    else:
        form = PlanForm(request.GET or None)
        apply_form = None
    plan = None
    if form.is_valid():
        data = form.cleaned_data
        plan = scoring_plan_get(study=data["study"], judge=data["judge"], budget=data["budget"])
        if apply_form is None and plan.response_ids and is_admin(request.user):
            initial = {**request.GET.dict(), "reviewed": ",".join(map(str, plan.response_ids))}
            apply_form = PlanApplyForm(initial=initial)
    refused = (form.is_bound and form.errors) or (
        apply_form is not None and apply_form.is_bound and apply_form.errors
    )
    status = 400 if refused else 200
    context = {"form": form, "plan": plan, "apply_form": apply_form}
    return render(request, "research/judge_plan.html", context, status=status)
