"""The study a researcher's pages show: the one the link names (``?study=``), else the
last one used (kept in the session), else the first with final scores, else the first.
Every research page opens on the same named study, and carries it in its links."""

from __future__ import annotations

from collections.abc import Sequence

from django.http import HttpRequest

from studies.models import Study
from studies.params import id_param

SESSION_KEY = "research_study_id"


def study_chosen(request: HttpRequest, *, studies: Sequence[Study] | None = None) -> Study | None:
    """The study to show (among ``studies`` when given): the one asked for, else the one chosen
    last, else the first with final scores by name, else the first made; remembers an explicit
    choice."""
    wanted = id_param(request.GET.get("study"))
    if studies is None and wanted is not None:  # the common case: one query
        study = Study.objects.filter(pk=wanted).first()
        if study is not None:
            _remember(request, study)
            return study
    candidates = list(studies) if studies is not None else list(Study.objects.order_by("name"))
    by_id = {s.pk: s for s in candidates}
    if wanted in by_id:
        _remember(request, by_id[wanted])
        return by_id[wanted]
    remembered = request.session.get(SESSION_KEY)
    if remembered in by_id:
        return by_id[remembered]
    scored = Study.objects.filter(pk__in=by_id, responses__final_score__isnull=False).order_by("name").first()
    # else the first study made (the lab's first, the demo's CGPST study), not the first by name
    return scored or min(candidates, key=lambda study: study.pk, default=None)


def _remember(request: HttpRequest, study: Study) -> None:
    if request.session.get(SESSION_KEY) != study.pk:  # unchanged: no session write
        request.session[SESSION_KEY] = study.pk
