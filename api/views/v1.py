"""``/api/v1/``: the read endpoints. Each one calls the selector the matching page calls
(the researchers' results, the agreement dashboard, the long-table export), so the JSON
holds the pages' numbers and obeys their rules: admins and researchers only, never a rater
(see ``api.views.auth``), and a token limited to one study finds no other."""

from __future__ import annotations

from itertools import islice

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import Http404, HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404
from ninja import Field, NinjaAPI, Query, Schema
from ninja.errors import AuthenticationError, HttpError

from api import selectors
from api.jsonable import jsonable
from api.services.tokens import TokenRefused
from api.views.auth import UNAUTHENTICATED, StaffSessionAuth, TokenAuth, docs_access, token_study_id
from api.views.throttles import PersonRateThrottle
from calibration.selectors.agreement import agreement_groups, agreement_responses
from calibration.selectors.consistency import consistency_table
from calibration.selectors.facets import study_facets
from calibration.selectors.responses import ResponseFilters, study_responses_list
from judging.models import Judge
from judging.selectors.estimates import judge_estimates_get
from research.selectors.long_tables import ITEM_HEADER, item_rows_iter
from research.selectors.research import results_cached_get, results_filter_problems
from research.significance import MARKS_BOTH, MARKS_PAPER, default_pair
from studies.models import Response, Study, TaskKind
from studies.rubric import load_rubric
from studies.rubric.cgpst import version_is_cgpst
from studies.rubric.loader import rubric_data
from training.selectors.retest import retest_report

api = NinjaAPI(
    title="teamllm-web API",
    version="1",
    description=(
        "Read a study's set-up, responses, scores and research tables; start exports. "
        "Authenticate with a personal access token (`Authorization: Bearer tlm_...`), made on /api/tokens/."
    ),
    urls_namespace="api-v1",
    auth=[TokenAuth(), StaffSessionAuth(csrf=True)],
    throttle=[PersonRateThrottle()],
    docs_decorator=docs_access,
)

# what /studies/{id}/tables/{name} serves: the research page's tables, by their attribute
TABLES = (
    "table1", "table2", "overall", "step_tests", "blanks", "blank_disagreements", "efficiency",
    "diversity", "cost", "run_costs", "consistency", "records", "preferences",
)  # fmt: skip
CGPST_TABLES = frozenset({"blanks", "blank_disagreements", "efficiency", "diversity"})  # its Steps 1 and 3
PAIR_TABLES = frozenset({"preferences"})  # Bradley-Terry scores of a pairwise study's systems
MAX_ROWS = 100_000
MAX_OFFSET = 10**12  # far beyond any study's rows, far below what islice and the database take


@api.exception_handler(TokenRefused)
def _refused(request: HttpRequest, exc: TokenRefused) -> JsonResponse:
    return JsonResponse({"detail": exc.message}, status=exc.status)


@api.exception_handler(SuspiciousOperation)
def _refused_request(request: HttpRequest, exc: SuspiciousOperation) -> JsonResponse:
    """Too many query or form fields, a body over the upload limit: a JSON answer, no page."""
    if isinstance(exc, RequestDataTooBig):
        return JsonResponse({"detail": "the request body is too large"}, status=413)
    return JsonResponse({"detail": f"the request was refused: {exc}"}, status=400)


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, exc: AuthenticationError) -> JsonResponse:
    return JsonResponse({"detail": UNAUTHENTICATED}, status=401)


def study_for(request: HttpRequest, study_id: int) -> Study:
    """The study, or 404 if it does not exist or the token is limited to another one."""
    limited = token_study_id(request)
    if limited is not None and limited != study_id:
        raise Http404
    return get_object_or_404(Study, pk=study_id)


class ResultsQuery(Schema):
    conditions: list[str] = []
    models: list[str] = []
    a: str = ""
    b: str = ""
    marks: str = MARKS_PAPER


class RowsQuery(Schema):
    offset: int = Field(0, ge=0, le=MAX_OFFSET)
    limit: int = Field(10_000, ge=0, le=MAX_ROWS)


@api.get("/studies", summary="The studies the caller may read")
def studies(request: HttpRequest) -> list[dict]:
    return [
        {
            "id": s.pk,
            "name": s.name,
            "description": s.description,
            "rubric_version": s.rubric_version,
            # what a response is: "cgpst" (six steps) or "text" (one prompt, one text)
            "task_kind": s.task_kind,
            "is_active": s.is_active,
            "agreement_threshold": jsonable(s.agreement_threshold),
            # the second routing criterion, beyond the study (None: that part off)
            "level_ccc_below": jsonable(s.level_ccc_below),
            "level_total_over": jsonable(s.level_total_over),
            "headline_icc": s.headline_icc,
            "final_score_rule": s.final_score_rule,
            "created_at": s.created_at.isoformat(),
        }
        for s in selectors.studies_visible(study_id=token_study_id(request))
    ]


@api.get("/studies/{study_id}/rubric", summary="The study's rubric: its maxima and its whole document")
def rubric(request: HttpRequest, study_id: int) -> dict:
    """What a notebook needs to recompute a PCC: each dimension's maximum in the canonical order
    of the normalised vector, the steps' maxima, and the rubric's JSON document as the sheet uses it."""
    study = study_for(request, study_id)
    parsed = load_rubric(study.rubric_version)
    return {
        "version": parsed.version,
        "max_total": parsed.max_total,
        "steps": [{"number": s.number, "name": s.name.en, "max": s.max} for s in parsed.steps],
        "dimensions": [
            {"key": d.key, "step": d.step, "label": d.label.en, "min": d.min, "max": d.max}
            for d in parsed.dimensions
        ],
        "document": rubric_data(study.rubric_version),
    }


@api.get("/studies/{study_id}/scenarios", summary="A study's scenarios")
def scenarios(request: HttpRequest, study_id: int) -> list[dict]:
    study = study_for(request, study_id)
    return [
        {
            "id": s.pk,
            "code": s.code,
            "theme": s.theme,
            "text": s.text,
            "theme_zh": s.theme_zh,
            "text_zh": s.text_zh,
        }
        for s in selectors.study_scenarios(study=study)
    ]


@api.get("/studies/{study_id}/conditions", summary="A study's conditions (generation strategies)")
def conditions(request: HttpRequest, study_id: int) -> list[dict]:
    study = study_for(request, study_id)
    return [
        {"id": c.pk, "letter": c.letter, "name": c.name, "strategy": c.strategy, "parameters": c.parameters}
        for c in selectors.study_conditions(study=study)
    ]


@api.get("/studies/{study_id}/models", summary="A study's models (endpoints; no keys, no hosts)")
def models(request: HttpRequest, study_id: int) -> list[dict]:
    study = study_for(request, study_id)
    return [
        {"id": m.pk, "model_number": m.model_number, "name": m.name, "model_name": m.model_name}
        for m in selectors.study_models(study=study)
    ]


@api.get(
    "/studies/{study_id}/responses",
    summary="A study's responses with their items and status",
    description=(
        "Each response of a CGPST study (`task_kind` `cgpst` in `/studies`) has its six step texts "
        'in `steps` (`{"1": "...", ..., "6": "..."}`) and its parsed items. A response of a '
        "single-text study (`task_kind` `text`: one prompt, its scenario, and one text) has that "
        "text in `text`, `steps` null and no items. A pairwise study's unit (`task_kind` `pair`) has "
        "`text_a` and `text_b`, and in `pair` the research IDs of the source study's responses they "
        "copy (`a`, `b`); `model` and `condition` are text A's."
    ),
)
def responses(request: HttpRequest, study_id: int, status: str = "") -> list[dict]:
    study = study_for(request, study_id)
    rows = list(study_responses_list(study=study, filters=ResponseFilters(status=status)))
    items = selectors.response_items(response_ids=[r.pk for r in rows])
    task = study.task_kind
    return [_response(r, items[r.pk], task=task) for r in rows]


def _texts(r: Response, task: str) -> dict:
    """A response's texts by its study's task: six steps, one text (its first answer), or a pair's
    two (its first two) with the source responses they copy."""
    if task == TaskKind.TEXT:
        return {"steps": None, "text": r.step1}
    if task == TaskKind.PAIR:
        pair = getattr(r, "pair", None)
        sources = {"a": pair.left.research_id, "b": pair.right.research_id} if pair else None
        return {"steps": None, "text_a": r.step1, "text_b": r.step2, "pair": sources}
    return {"steps": {str(n): getattr(r, f"step{n}") for n in range(1, 7)}}


def _response(r: Response, items, *, task: str) -> dict:
    final = getattr(r, "final_score", None) if hasattr(r, "final_score") else None
    return {
        "id": r.pk,
        "research_id": r.research_id,
        "scenario": r.scenario.code,
        "model": r.model.name,
        "model_number": r.model.model_number,
        "condition": r.condition.letter,
        "source": r.source,
        "status": r.status,
        "held": r.held,
        "primary_assignments": getattr(r, "n_primary", None),
        "primary_submitted": getattr(r, "n_submitted", None),
        "final_overall": jsonable(final.overall) if final else None,
        "items": [{"step": i.step, "position": i.position, "text": i.text} for i in items],
        **_texts(r, task),
    }


@api.get("/studies/{study_id}/agreement", summary="Agreement per response and group, and Table 6")
def agreement(request: HttpRequest, study_id: int) -> dict:
    study = study_for(request, study_id)
    return {
        "responses": jsonable(agreement_responses(study=study)),
        "groups": jsonable(agreement_groups(study=study)),
        "table6": jsonable(consistency_table(study=study)),
    }


@api.get(
    "/studies/{study_id}/facets",
    summary="Beyond the study: G-study, D-study planning table, rater severity and fair scores",
)
def facets(request: HttpRequest, study_id: int) -> dict:
    return jsonable(study_facets(study=study_for(request, study_id)))


@api.get(
    "/studies/{study_id}/judges/{judge_id}/estimates",
    summary="Beyond the study: the judge and the humans together (PPI++ means, self-preference test, calibration)",
)
def judge_estimates(request: HttpRequest, study_id: int, judge_id: int) -> dict:
    study, judge = study_for(request, study_id), get_object_or_404(Judge, pk=judge_id)
    data = jsonable(judge_estimates_get(study=study, judge=judge, pair_rule=default_pair))
    return {**data, "study": study.pk, "judge": {"id": judge.pk, "name": judge.name}}


@api.get(
    "/studies/{study_id}/retest",
    summary="Beyond the study: test-retest probes per rater, intra-rater ICC(3,1) and drift alarms",
)
def retest(request: HttpRequest, study_id: int) -> dict:
    return jsonable(retest_report(study=study_for(request, study_id)))


def _results(study: Study, q: ResultsQuery):
    """The results the query asks for; 422 naming what the study does not have (a condition
    letter or model number with no response is a typo, not an empty table)."""
    a, b = q.a.strip().upper(), q.b.strip().upper()
    pair = (a, b) if a and b and a != b else None
    conditions = [c.strip().upper() for c in q.conditions] or None
    models = [m.strip() for m in q.models] or None
    problems = results_filter_problems(study=study, conditions=conditions, models=models, pair=pair)
    if problems:
        raise HttpError(422, "; ".join(problems))
    return results_cached_get(
        study=study,
        conditions=conditions,
        models=models,
        pair=pair,
        marks=MARKS_BOTH if q.marks == MARKS_BOTH else MARKS_PAPER,
    )


@api.get("/studies/{study_id}/final-scores", summary="Final scores (what the tables are computed from)")
def final_scores(request: HttpRequest, study_id: int, q: Query[ResultsQuery]) -> list:
    results = _results(study_for(request, study_id), q)
    return jsonable(results.records)


@api.get("/studies/{study_id}/tables/{name}", summary="One research table as the research page shows it")
def table(request: HttpRequest, study_id: int, name: str, q: Query[ResultsQuery]) -> dict:
    study = study_for(request, study_id)
    if name not in TABLES:
        raise HttpError(404, f"no table {name[:40]!r}; the tables: {', '.join(TABLES)}")
    if name in CGPST_TABLES and not version_is_cgpst(study.rubric_version):
        raise HttpError(404, f"the table {name!r} is offered for studies on the CGPST rubric only")
    if name in PAIR_TABLES and study.task_kind != TaskKind.PAIR:
        raise HttpError(404, f"the table {name!r} is offered for pairwise studies only")
    results = _results(study, q)
    body = {"study": study.name, "table": name, "data": jsonable(getattr(results, name))}
    if name in PAIR_TABLES:
        body["labels"] = results.preference_labels
    if name in ("table1", "table2"):
        body["columns"] = jsonable(results.columns)
    return body


@api.get(
    "/studies/{study_id}/items",
    summary="The item-level long table (the rows of the item-scores export); researchers and admins only",
)
def items(request: HttpRequest, study_id: int, q: Query[RowsQuery]) -> dict:
    study = study_for(request, study_id)
    rows = islice(item_rows_iter(study=study, offset=q.offset), q.limit)
    return {"columns": list(ITEM_HEADER), "offset": q.offset, "rows": [jsonable(list(r)) for r in rows]}


@api.get("/studies/{study_id}/sheets", summary="Every sheet of the study with its item-level scores")
def sheets(request: HttpRequest, study_id: int) -> list[dict]:
    study = study_for(request, study_id)
    out: dict[tuple, dict] = {}
    for row in item_rows_iter(study=study):
        record = dict(zip(ITEM_HEADER, jsonable(list(row)), strict=True))
        key = (record["research_id"], record["rater"], record["role"])
        sheet = out.setdefault(
            key,
            {
                "research_id": record["research_id"],
                "rater": record["rater"],
                "role": record["role"],
                "status": record["sheet_status"],
                "submitted_at": record["submitted_at"],
                "rows": [],
            },
        )
        sheet["rows"].append(record)
    return list(out.values())
