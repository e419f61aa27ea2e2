"""The trainee's pages: the training set, the blind scoring form, and the feedback.

Everything is addressed by blind code and resolves only to the requester's own
training assignment. The feedback shows the reference values, never the research
ID, model, condition or whose sheets made the reference.
"""

from __future__ import annotations

from functools import wraps
from typing import TYPE_CHECKING

from django.contrib import messages
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from core.accounts.roles import rater_required
from scoring.models import Assignment, AssignmentRole, ScoreSheet
from scoring.services.sheets import sheet_open
from scoring.views.sheet_context import sheet_page_context
from scoring.views.workspace import sheet_active_time_for, sheet_save_for, sheet_submit_for
from studies.models import Study
from training.selectors.training import rater_training_home, training_feedback_get
from training.services.qualification import training_retry
from training.services.training_set import TrainingError, training_enroll

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest


def _lang(request: AuthenticatedHttpRequest) -> str:
    return getattr(request, "LANGUAGE_CODE", None) or get_language() or "en"


def _own(request: AuthenticatedHttpRequest, blind_code: str) -> Assignment | None:
    return (
        Assignment.objects.select_related("response__scenario", "response__study", "sheet")
        .filter(
            rater=request.user,
            blind_code=blind_code,
            role=AssignmentRole.TRAINING,
            archived_at__isnull=True,
        )
        .first()
    )


def _not_training(request: AuthenticatedHttpRequest, blind_code: str) -> HttpResponse:
    """A live code (or any other) on the training pages: a clear refusal, nothing opened."""
    return render(request, "training/not_training.html", {"code": blind_code}, status=404)


def _training_assignment(*, json: bool = False):
    """The view gets the requester's own active training assignment of the code; any other
    code is refused (a page, or a JSON 404 for the save and submit endpoints)."""

    def decorate(view):
        @wraps(view)
        def wrapper(request: AuthenticatedHttpRequest, blind_code: str) -> HttpResponse:
            assignment = _own(request, blind_code)
            if assignment is not None:
                return view(request, assignment, blind_code)
            if json:
                return JsonResponse({"ok": False, "error": "not_found"}, status=404)
            return _not_training(request, blind_code)

        return wrapper

    return decorate


def _training_view(require_method, *, json: bool = False):
    """A page or endpoint of one training sheet: never cached, for the method
    ``require_method`` admits (``require_GET``, ``require_POST``), for raters, and
    given the requester's own training assignment of the code (``_training_assignment``)."""

    def decorate(view):
        return never_cache(require_method(rater_required(_training_assignment(json=json)(view))))

    return decorate


def _sheet(assignment: Assignment) -> ScoreSheet | None:
    return getattr(assignment, "sheet", None)


@never_cache
@require_GET
@rater_required
def training_home(request: AuthenticatedHttpRequest) -> HttpResponse:
    return render(request, "training/home.html", {"studies": rater_training_home(user=request.user)})


@require_POST
@rater_required
def training_start(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id, is_active=True)
    training_enroll(rater=request.user, study=study)
    # straight to the first training sheet still to score; the list when none is left
    for entry in rater_training_home(user=request.user):
        if entry["study"].pk == study.pk:
            for item in entry["items"]:
                if item["status"] != "submitted":
                    return redirect("training:sheet", blind_code=item["code"])
    return redirect("training:home")


@_training_view(require_GET)
def training_sheet(
    request: AuthenticatedHttpRequest, assignment: Assignment, blind_code: str
) -> HttpResponse:
    sheet = _sheet(assignment)
    if sheet is not None and sheet.is_submitted:
        return redirect("training:feedback", blind_code=blind_code)
    sheet = sheet or sheet_open(assignment=assignment, actor=request.user)
    context = sheet_page_context(sheet=sheet, assignment=assignment, lang=_lang(request))
    context["script"].update(
        save_url=reverse("training:save", args=[blind_code]),
        submit_url=reverse("training:submit", args=[blind_code]),
        time_url=reverse("training:time", args=[blind_code]),
    )
    context["training"] = True
    return render(request, "scoring/sheet.html", context)


@_training_view(require_POST, json=True)
def training_save(request: AuthenticatedHttpRequest, assignment: Assignment, blind_code: str) -> HttpResponse:
    return sheet_save_for(request, assignment)


@_training_view(require_POST, json=True)
def training_time(request: AuthenticatedHttpRequest, assignment: Assignment, blind_code: str) -> HttpResponse:
    return sheet_active_time_for(request, assignment)


@_training_view(require_POST, json=True)
def training_submit(
    request: AuthenticatedHttpRequest, assignment: Assignment, blind_code: str
) -> HttpResponse:
    return sheet_submit_for(request, assignment, redirect=reverse("training:feedback", args=[blind_code]))


@_training_view(require_GET)
def training_feedback(
    request: AuthenticatedHttpRequest, assignment: Assignment, blind_code: str
) -> HttpResponse:
    sheet = _sheet(assignment)
    if sheet is None or not sheet.is_submitted:
        return redirect("training:sheet", blind_code=blind_code)
    context = training_feedback_get(assignment=assignment, lang=_lang(request))
    context.update(code=blind_code, theme=assignment.response.scenario.theme_for(_lang(request)))
    return render(request, "training/feedback.html", context)


@require_POST
@rater_required
@_training_assignment()
def training_again(
    request: AuthenticatedHttpRequest, assignment: Assignment, blind_code: str
) -> HttpResponse:
    try:
        fresh = training_retry(assignment=assignment, actor=request.user)
    except TrainingError as exc:
        messages.error(request, exc.message)
        return redirect("training:home")
    return redirect("training:sheet", blind_code=fresh.blind_code)  # each attempt has its own code
