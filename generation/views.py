"""Generation pages (admins only): launch batches, follow their runs live, read transcripts."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.forms import BaseForm
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseStopPolling

from core.accounts.roles import admin_required
from core.llm.egress import egress_allowed_hosts, endpoint_egress_problem
from core.llm.keys import api_key_env_allowed
from generation.forms import (
    BatchFilterForm,
    BatchForm,
    ConditionFilterForm,
    ConditionForm,
    EndpointFilterForm,
    EndpointForm,
    MemberProfileForm,
)
from generation.models import BatchStatus, GenerationBatch, GenerationRun, PreferenceProfile, Turn
from generation.selectors import (
    BatchProgress,
    batch_held_count,
    batch_progress,
    batch_responses_without_pair,
    batches_listed,
    conditions_overview,
    endpoints_overview,
    run_fusion_measures,
    run_progress,
    run_transcript,
)
from generation.services.batches import (
    BatchError,
    batch_cancel,
    batch_retry_failed,
    run_cancel,
    run_retry,
)
from generation.services.conditions import ConditionError, condition_create, condition_update
from generation.services.endpoints import (
    EndpointError,
    endpoint_create,
    endpoint_delete,
    endpoint_set_active,
    endpoint_test_connection,
    endpoint_update,
)
from generation.services.profiles import ProfileError, member_profile_delete, member_profile_save
from generation.setting_labels import SETTING_LABELS
from generation.strategies import strategy_settings
from generation.tasks import run_advance_send
from studies.models import Condition, ModelEndpoint, Study
from studies.params import id_param
from studies.selectors import study_from_param
from studies.views import study_choices_refresh

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest

T = TypeVar("T")


@admin_required
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    studies = list(Study.objects.filter(is_active=True)[:2])
    initial = {"study": studies[0]} if len(studies) == 1 else {}
    form = BatchForm(request.POST or None, initial=initial, study=study_from_param(request.GET.get("study")))
    if (choices := study_choices_refresh(request, form, "generation/home.html")) is not None:
        return choices
    if request.method == "POST" and form.is_valid():
        try:
            launch = form.launch(actor=request.user, enqueue=run_advance_send)
        except BatchError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request,
                ngettext("%(n)d run queued.", "%(n)d runs queued.", len(launch.runs))
                % {"n": len(launch.runs)},
            )
            for reason in launch.skipped:
                messages.warning(request, _("Skipped %(reason)s") % {"reason": reason})
            return redirect("generation:batch_detail", batch_id=launch.batch.pk)
    filter_form = BatchFilterForm(request.GET, auto_id="filter_%s")
    context = {
        "form": form,
        "filter_form": filter_form,
        "page": batches_listed(filters=filter_form.chosen(), page=request.GET.get("page")),
        "page_query": filter_form.kept_query(),
        "studies": Study.objects.filter(is_active=True),
    }
    return render(request, "generation/home.html", context)


def batch_page(
    request: AuthenticatedHttpRequest,
    *,
    batch,
    progress: BatchProgress,
    polling: bool,
    namespace: str,
    template: str,
    partial: str,
    retry_label: str,
    **extra,
) -> HttpResponse:
    """The page of any batch of the LLM batch engine (generation, judge): the whole page,
    or under htmx polling its live part, with a 286 that stops the polling once the
    batch has ended (the last fragment is still swapped in). ``namespace`` names the
    app whose ``batch_cancel`` and ``batch_retry`` URLs the shared actions post to."""
    context = {
        "batch": batch,
        "progress": progress,
        "polling": polling,
        "cancel_url": reverse(f"{namespace}:batch_cancel", args=[batch.pk]),
        "retry_url": reverse(f"{namespace}:batch_retry", args=[batch.pk]),
        "retry_label": retry_label,
        "progress_label": _("Calls done in this batch"),
        **extra,
    }
    if request.htmx:
        response = render(request, f"{template}#{partial}", context)
        if not polling:
            response = HttpResponseStopPolling(response.content)
        return response
    return render(request, template, context)


@admin_required
def batch_detail(request: AuthenticatedHttpRequest, batch_id: int) -> HttpResponse:
    batch = get_object_or_404(GenerationBatch.objects.select_related("study"), pk=batch_id)
    progress = batch_progress(batch)
    return batch_page(
        request,
        batch=batch,
        progress=progress,
        # a batch is marked finished just after its last run ends: poll until both say so
        polling=progress.active or batch.status == BatchStatus.RUNNING,
        namespace="generation",
        template="generation/batch.html",
        partial="runs",
        retry_label=_("Retry failed and cancelled runs"),
        held=batch_held_count(batch),
        unpaired_note=_unpaired_note(batch_responses_without_pair(batch=batch)),
    )


def _unpaired_note(unpaired: list[str]) -> str:
    """What the page says of generated responses no pair scores ("" when every one has a pair)."""
    if not unpaired:
        return ""
    return ngettext(
        "%(n)d new response has no rater pair (its scenario and condition have none): "
        "%(ids)s. Assign a pair on the study's page.",
        "%(n)d new responses have no rater pair (their scenario and condition have none): "
        "%(ids)s. Assign a pair on the study's page.",
        len(unpaired),
    ) % {"n": len(unpaired), "ids": ", ".join(unpaired[:20])}


def batch_acted(
    request: AuthenticatedHttpRequest, *, namespace: str, batch_id: int, message: str
) -> HttpResponse:
    """After cancelling or retrying any engine batch: say what happened, back to its page."""
    messages.info(request, message)
    return redirect(f"{namespace}:batch_detail", batch_id=batch_id)


@admin_required
@require_POST
def batch_cancel_view(request: AuthenticatedHttpRequest, batch_id: int) -> HttpResponse:
    count = batch_cancel(batch_id=get_object_or_404(GenerationBatch, pk=batch_id).pk, actor=request.user)
    message = ngettext("%(n)d run cancelled.", "%(n)d runs cancelled.", count) % {"n": count}
    return batch_acted(request, namespace="generation", batch_id=batch_id, message=message)


@admin_required
@require_POST
def batch_retry_view(request: AuthenticatedHttpRequest, batch_id: int) -> HttpResponse:
    count = batch_retry_failed(
        batch_id=get_object_or_404(GenerationBatch, pk=batch_id).pk,
        enqueue=run_advance_send,
        actor=request.user,
    )
    message = ngettext(
        "%(n)d run resumed from its last completed turn.",
        "%(n)d runs resumed from their last completed turn.",
        count,
    ) % {"n": count}
    return batch_acted(request, namespace="generation", batch_id=batch_id, message=message)


@admin_required
def run_detail(request: AuthenticatedHttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(
        GenerationRun.objects.select_related(
            "batch", "study", "scenario", "endpoint", "condition", "response"
        ),
        pk=run_id,
    )
    context = {
        "run": run,
        "progress": run_progress(run),
        "steps": run_transcript(run),
        "measures": run_fusion_measures(run),
    }
    return render(request, "generation/run.html", context)


@admin_required
def members(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """A study's TeamFusion team: its member profiles, and a form to add or edit one."""
    study = get_object_or_404(Study, pk=study_id)
    profile = None
    edit = request.GET.get("edit", "").strip()
    if edit:
        profile = get_object_or_404(PreferenceProfile, pk=id_param(edit) or 0, study=study)
        initial = {
            "name": profile.name,
            "preferences": profile.preferences,
            "order": profile.order,
            "is_active": profile.is_active,
        }
    else:
        initial = {"order": study.member_profiles.count() + 1, "is_active": True}
    form = MemberProfileForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            member_profile_save(
                study=study,
                profile_id=profile.pk if profile else None,
                actor=request.user,
                **form.cleaned_data,
            )
        except ProfileError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, _("Member profile saved."))
            return redirect("generation:members", study_id=study.pk)
    context = {"study": study, "profiles": study.member_profiles.all(), "form": form, "editing": profile}
    return render(request, "generation/members.html", context, status=400 if form.errors else 200)


@admin_required
@require_POST
def member_delete(request: AuthenticatedHttpRequest, study_id: int, profile_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    if member_profile_delete(study=study, profile_id=profile_id, actor=request.user):
        messages.info(request, _("Member profile deleted; runs already created keep it."))
    return redirect("generation:members", study_id=study.pk)


def _back(request: AuthenticatedHttpRequest, run: GenerationRun) -> HttpResponse:
    """Back to the batch page when the action was taken there, else to the run."""
    if request.POST.get("back") == "batch" and run.batch_id:
        return redirect("generation:batch_detail", batch_id=run.batch_id)
    return redirect("generation:run_detail", run_id=run.pk)


@admin_required
def turn_messages(request: AuthenticatedHttpRequest, run_id: int, seq: int) -> HttpResponse:
    # the run by its own key first: an id beyond the database's range is then a 404 on SQLite too
    # (a foreign key's lookup reached the driver: OverflowError, a 500)
    run = get_object_or_404(GenerationRun, pk=run_id)
    turn = get_object_or_404(Turn, run=run, seq=seq)
    return render(request, "generation/run.html#turn_messages", {"turn": turn})


@admin_required
@require_POST
def run_cancel_view(request: AuthenticatedHttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(GenerationRun, pk=run_id)
    if run_cancel(run_id=run.pk, actor=request.user):
        messages.info(request, _("Run cancelled; a call already in flight is still kept."))
    else:
        messages.warning(request, _("This run was not queued or running."))
    return _back(request, run)


@admin_required
@require_POST
def run_retry_view(request: AuthenticatedHttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(GenerationRun, pk=run_id)
    if run_retry(run_id=run.pk, enqueue=run_advance_send, actor=request.user):
        messages.info(request, _("Run resumed from its last completed turn."))
    else:
        messages.warning(request, _("This run has already succeeded."))
    return _back(request, run)


# --- model endpoints and conditions (the product's way to change them, audited) ------


@admin_required
def endpoints(request: AuthenticatedHttpRequest) -> HttpResponse:
    filter_form = EndpointFilterForm(request.GET, auto_id="filter_%s")
    shown = endpoints_overview(**filter_form.endpoint_filters(), page=request.GET.get("page"))
    rows = []
    for e in shown.object_list:
        allowed = _key_allowed(e)
        rows.append((e, allowed, _egress(e, allowed)))
    context = {
        "rows": rows,
        "prefix": settings.LLM_KEY_ENV_PREFIX,
        "filter_form": filter_form,
        "page": shown,
        "page_query": filter_form.kept_query(),
    }
    return render(request, "generation/endpoints.html", context)


@admin_required
def endpoint_new(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = EndpointForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            endpoint = endpoint_create(actor=request.user, values=form.cleaned_data)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, _("Endpoint %(name)s created.") % {"name": endpoint.name})
            return redirect("generation:endpoint", endpoint_id=endpoint.pk)
    return render(request, "generation/endpoint.html", {"form": form, "endpoint": None})


def _posted_save(request: AuthenticatedHttpRequest, form: BaseForm, save: Callable[..., T]) -> T | None:
    """What ``save(values=...)`` (a service) returns for a posted, valid form (a saved row);
    None when the form was not posted or not valid, or when the service refused (its message
    is then on the form)."""
    if request.method != "POST" or not form.is_valid():
        return None
    try:
        return save(values=form.cleaned_data)
    except (EndpointError, ConditionError, ValidationError) as exc:
        form.add_error(None, exc.messages if isinstance(exc, ValidationError) else str(exc))
        return None


def _key_allowed(endpoint: ModelEndpoint) -> bool:
    return api_key_env_allowed(endpoint.api_key_env)


def _egress(endpoint: ModelEndpoint, key_allowed: bool) -> str:
    """Why the operator's hosts refuse the endpoint's calls ("" when they do not), for a key
    whose name is allowed (the page says otherwise why the others are refused)."""
    return endpoint_egress_problem(endpoint) if key_allowed else ""


def _endpoint_page(
    request: AuthenticatedHttpRequest, endpoint: ModelEndpoint, form, check=None
) -> HttpResponse:
    key_allowed = _key_allowed(endpoint)
    egress_setting, egress_hosts = egress_allowed_hosts(endpoint.api_key_env if key_allowed else "")
    context = {
        "form": form,
        "endpoint": endpoint,
        "key_allowed": key_allowed,
        "egress_problem": _egress(endpoint, key_allowed),
        "egress_setting": egress_setting,
        "egress_hosts": egress_hosts,
        "prefix": settings.LLM_KEY_ENV_PREFIX,
        "n_responses": endpoint.responses.count(),
        "deletable": not (endpoint.responses.exists() or endpoint.runs.exists() or endpoint.judges.exists()),
        "check": check,
    }
    return render(request, "generation/endpoint.html", context)


@admin_required
def endpoint_edit(request: AuthenticatedHttpRequest, endpoint_id: int) -> HttpResponse:
    endpoint = get_object_or_404(ModelEndpoint, pk=endpoint_id)
    form = EndpointForm(request.POST or None, instance=ModelEndpoint.objects.get(pk=endpoint.pk))
    if _posted_save(request, form, partial(endpoint_update, endpoint_id=endpoint.pk, actor=request.user)):
        messages.success(request, _("Endpoint saved."))
        return redirect("generation:endpoint", endpoint_id=endpoint.pk)
    return _endpoint_page(request, endpoint, form)


@admin_required
@require_POST
def endpoint_active(request: AuthenticatedHttpRequest, endpoint_id: int) -> HttpResponse:
    endpoint = get_object_or_404(ModelEndpoint, pk=endpoint_id)
    active = request.POST.get("active") == "1"
    endpoint_set_active(endpoint_id=endpoint.pk, actor=request.user, active=active)
    if active:
        messages.success(request, _("Endpoint reactivated."))
    else:
        messages.info(request, _("Endpoint deactivated: new batches cannot choose it; its responses stay."))
    return redirect("generation:endpoint", endpoint_id=endpoint.pk)


@admin_required
@require_POST
def endpoint_delete_view(request: AuthenticatedHttpRequest, endpoint_id: int) -> HttpResponse:
    endpoint = get_object_or_404(ModelEndpoint, pk=endpoint_id)
    try:
        endpoint_delete(endpoint_id=endpoint.pk, actor=request.user)
    except EndpointError as exc:
        messages.error(request, str(exc))
        return redirect("generation:endpoint", endpoint_id=endpoint.pk)
    messages.success(request, _("Endpoint %(name)s deleted.") % {"name": endpoint.name})
    return redirect("generation:endpoints")


@admin_required
@require_POST
def endpoint_test(request: AuthenticatedHttpRequest, endpoint_id: int) -> HttpResponse:
    endpoint = get_object_or_404(ModelEndpoint, pk=endpoint_id)
    check = endpoint_test_connection(endpoint=endpoint, actor=request.user)
    if request.htmx:
        return render(request, "generation/endpoint.html#check", {"check": check, "endpoint": endpoint})
    return _endpoint_page(request, endpoint, EndpointForm(instance=endpoint), check)


@admin_required
def conditions(request: AuthenticatedHttpRequest) -> HttpResponse:
    filter_form = ConditionFilterForm(request.GET, auto_id="filter_%s")
    shown = conditions_overview(search=filter_form.chosen().get("q") or "", page=request.GET.get("page"))
    context = {"page": shown, "filter_form": filter_form, "page_query": filter_form.kept_query()}
    return render(request, "generation/conditions.html", context)


@admin_required
def condition_new(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = ConditionForm(request.POST or None)
    condition = _posted_save(request, form, partial(condition_create, actor=request.user))
    if condition is not None:
        messages.success(request, _("Condition %(letter)s created.") % {"letter": condition.letter})
        return redirect("generation:conditions")
    return render(request, "generation/condition.html", {"form": form, "condition": None})


@admin_required
def condition_edit(request: AuthenticatedHttpRequest, condition_id: int) -> HttpResponse:
    condition = get_object_or_404(Condition, pk=condition_id)
    has_responses = condition.responses.exists()
    form = ConditionForm(
        request.POST or None,
        instance=Condition.objects.get(pk=condition.pk),
        fixed_strategy=has_responses,
    )
    if _posted_save(request, form, partial(condition_update, condition_id=condition.pk, actor=request.user)):
        messages.success(request, _("Condition saved."))
        return redirect("generation:conditions")
    context = {
        "form": form,
        "condition": condition,
        "has_responses": has_responses,
        "strategy_settings": [
            {**row, "label": SETTING_LABELS.get(row["key"], row["key"])}
            for row in strategy_settings(condition.strategy)
        ],
    }
    return render(request, "generation/condition.html", context)
