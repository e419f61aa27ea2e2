"""Judge pages (admins and researchers): judges, launching batches, live batch progress."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from core.accounts.roles import researcher_required
from generation.views import batch_acted, batch_page
from judging.forms import BatchLaunchForm, JudgeBatchFilterForm, JudgeForm, JudgeSettingsForm
from judging.models import Judge, JudgeBatch, JudgeBatchStatus
from judging.selectors.batches import batch_failed_tasks, batch_progress_get, judge_batches_listed
from judging.services.judges import JudgeError, judge_create, judge_update
from judging.services.runs import BatchError, judge_batch_cancel, judge_batch_launch, judge_batch_retry

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest


@researcher_required
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The judges, a form to add one, a form to launch a batch, the recent batches."""
    judge_form = JudgeForm(request.POST if request.POST.get("form") == "judge" else None, prefix="judge")
    launch_form = BatchLaunchForm(
        request.POST if request.POST.get("form") == "batch" else None, prefix="batch"
    )
    if request.method == "POST" and judge_form.is_bound and judge_form.is_valid():
        try:
            judge = judge_create(**judge_form.cleaned_data, actor=request.user)
        except JudgeError as exc:
            judge_form.add_error(None, str(exc))
        else:
            messages.success(request, _("Judge %(name)s created.") % {"name": judge.name})
            return redirect("judging:home")
    if request.method == "POST" and launch_form.is_bound and launch_form.is_valid():
        data = launch_form.cleaned_data
        try:
            batch = judge_batch_launch(
                study=data["study"],
                judge=data["judge"],
                scenario=data["scenario_obj"],
                samples=data["samples"],
                actor=request.user,
            )
        except BatchError as exc:
            launch_form.add_error(None, str(exc))
        else:
            return redirect("judging:batch_detail", batch_id=batch.pk)
    filter_form = JudgeBatchFilterForm(request.GET, auto_id="filter_%s")
    context = {
        "judges": Judge.objects.select_related("endpoint", "user__rater_profile"),
        "filter_form": filter_form,
        "page": judge_batches_listed(filters=filter_form.chosen(), page=request.GET.get("page")),
        "page_query": filter_form.kept_query(),
        "judge_form": judge_form,
        "launch_form": launch_form,
    }
    return render(request, "judging/home.html", context)


@researcher_required
def judge_edit(request: AuthenticatedHttpRequest, judge_id: int) -> HttpResponse:
    """Change a judge's sampling settings, provider family or activity (audited)."""
    judge = get_object_or_404(Judge.objects.select_related("endpoint"), pk=judge_id)
    form = JudgeSettingsForm(request.POST or None, instance=Judge.objects.get(pk=judge.pk))
    if request.method == "POST" and form.is_valid():
        try:
            judge_update(judge=judge, actor=request.user, **form.cleaned_data)
        except JudgeError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, _("Judge %(name)s saved.") % {"name": judge.name})
            return redirect("judging:home")
    status = 400 if form.errors else 200
    return render(request, "judging/judge_edit.html", {"judge": judge, "form": form}, status=status)


@researcher_required
def batch_detail(request: AuthenticatedHttpRequest, batch_id: int) -> HttpResponse:
    batch = get_object_or_404(
        JudgeBatch.objects.select_related("judge__endpoint", "study", "scenario"), pk=batch_id
    )
    return batch_page(
        request,
        batch=batch,
        progress=batch_progress_get(batch=batch),
        polling=batch.status == JudgeBatchStatus.RUNNING,
        namespace="judging",
        template="judging/batch.html",
        partial="live",
        retry_label=_("Retry failed and cancelled tasks"),
        failed=batch_failed_tasks(batch=batch),
    )


@researcher_required
@require_POST
def batch_cancel_view(request: AuthenticatedHttpRequest, batch_id: int) -> HttpResponse:
    count = judge_batch_cancel(batch=get_object_or_404(JudgeBatch, pk=batch_id), actor=request.user)
    message = ngettext("%(n)d task cancelled.", "%(n)d tasks cancelled.", count) % {"n": count}
    return batch_acted(request, namespace="judging", batch_id=batch_id, message=message)


@researcher_required
@require_POST
def batch_retry_view(request: AuthenticatedHttpRequest, batch_id: int) -> HttpResponse:
    count = judge_batch_retry(batch=get_object_or_404(JudgeBatch, pk=batch_id), actor=request.user)
    message = ngettext("%(n)d task queued again.", "%(n)d tasks queued again.", count) % {"n": count}
    return batch_acted(request, namespace="judging", batch_id=batch_id, message=message)
