"""Landing pages of the three roles."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from core.accounts.roles import admin_required, rater_required
from scoring.models import ResponseFlag, ScoreSheet
from scoring.selectors import rater_queue, rater_queue_left
from scoring.selectors.qualification import raters_blocked
from studies.models import Response, Scenario, Study
from studies.selectors import responses_held

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest


@admin_required
def admin_home(request: HttpRequest) -> HttpResponse:
    studies = Study.objects.annotate(n_responses=Count("responses")).order_by("name")
    context = {
        "studies": studies,
        "n_scenarios": Scenario.objects.count(),
        "n_responses": Response.objects.count(),
        "n_submitted": ScoreSheet.objects.filter(status="submitted").count(),
        "n_open_flags": ResponseFlag.objects.filter(resolution="").count(),
        "n_held": responses_held().count(),
    }
    return render(request, "scoring/admin_home.html", context)


@rater_required
def queue(request: AuthenticatedHttpRequest) -> HttpResponse:
    items = rater_queue(user=request.user, language=get_language())
    # labels and URLs built once, not per row (a rater may have hundreds of sheets)
    badges = {
        "submitted": format_html('<span class="badge badge-ok">{}</span>', _("Submitted")),
        "draft": format_html('<span class="badge badge-warn">{}</span>', _("Draft")),
        "not_started": format_html('<span class="badge">{}</span>', _("Not started")),
        "reopened": format_html('<span class="badge badge-bad">{}</span>', _("Reopened")),
    }
    actions = {
        "submitted": _("View"),
        "draft": _("Continue"),
        "reopened": _("Continue"),
        "not_started": _("Start"),
    }
    url_template = reverse("scoring:sheet", args=["CODE"])
    for item in items:
        item["url"] = url_template.replace("CODE", item["blind_code"])
        item["badge"] = badges[item["status"]]
        item["action"] = actions[item["status"]]
    done = sum(1 for i in items if i["status"] == "submitted")
    context = {
        "items": items,
        "done": done,
        "started": sum(1 for i in items if i["status"] in ("draft", "reopened")),
        "labels": {"calibration": _("Calibration")},
        "total": len(items),
        "percent": round(100 * done / len(items)) if items else 0,
        "left": rater_queue_left(user=request.user, queue=items),
        # what to do next when the queue is empty: the training of the studies that wait for it
        "training_needed": (
            [] if items else raters_blocked(raters=[request.user], study=None).get(request.user.pk or 0, [])
        ),
    }
    return render(request, "scoring/queue.html", context)
