"""The read endpoints serve the pages' own numbers through the pages' selectors, and keep
their rules: a rater's session reaches nothing (sheets least of all), an admin's or
researcher's session or token reads; the OpenAPI schema and its docs page come from the code."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from api.services.tokens import token_create
from calibration.selectors.agreement import agreement_responses
from calibration.statistics import pcc
from research.selectors.long_tables import ITEM_HEADER, item_rows_iter
from research.selectors.research import results_get
from scoring.models import ScoreSheet
from scoring.selectors import sheet_entries_get
from studies.rubric import load_rubric, normalized_vector, sheet_totals
from tests.research import test_results_workbook_write as workbook_tests

pytestmark = pytest.mark.django_db
scored = workbook_tests.scored


def _client(username: str) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    return client


@pytest.mark.parametrize("username", ["rater1", "rater2", "calibrator"])
def test_a_raters_session_reaches_no_endpoint(scored, username):
    client = _client(username)
    study = scored.study.pk
    for path in ("studies", f"studies/{study}/sheets", f"studies/{study}/items", f"studies/{study}/responses",
                 f"studies/{study}/agreement", f"studies/{study}/tables/table1", f"studies/{study}/rubric"):  # fmt: skip
        reply = client.get(f"/api/v1/{path}")
        assert reply.status_code == 403 and "raters have no access" in reply.json()["detail"], path
    assert client.get("/api/v1/docs").status_code == 403
    assert client.get("/api/v1/openapi.json").status_code == 403
    assert client.get("/api/tokens/").status_code == 403


@pytest.mark.parametrize("username", ["researcher", "admin"])
def test_sheets_and_items_are_the_long_tables_rows(scored, username):
    client = _client(username)
    study = scored.study
    rows = [list(r) for r in item_rows_iter(study=study)]
    items = client.get(f"/api/v1/studies/{study.pk}/items").json()
    assert items["columns"] == list(ITEM_HEADER) and len(items["rows"]) == len(rows) == 100
    assert [r[ITEM_HEADER.index("score")] for r in items["rows"]] == [
        r[ITEM_HEADER.index("score")] for r in rows
    ]
    page = client.get(f"/api/v1/studies/{study.pk}/items", {"offset": 10, "limit": 5}).json()
    assert page["rows"] == items["rows"][10:15]
    sheets = client.get(f"/api/v1/studies/{study.pk}/sheets").json()
    assert {(s["rater"], s["status"], len(s["rows"])) for s in sheets} == {
        ("H01", "submitted", 50),
        ("H02", "submitted", 50),
    }


def test_tables_final_scores_and_agreement_hold_the_pages_numbers(scored):
    token = token_create(
        user=get_user_model().objects.get(username="researcher"), name="t", scope="read", days=1
    )
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token.plain}")
    study = scored.study
    results = results_get(study=study)
    body = client.get(f"/api/v1/studies/{study.pk}/tables/table1").json()
    assert [c["key"] for c in body["columns"]] == [c.key for c in results.columns]
    assert [r["values"] for t in body["data"] for r in t["rows"]] == [
        r.values for t in results.table1 for r in t.rows
    ]
    total = body["data"][0]["rows"][0]["values"][-1]
    assert total == pytest.approx(float(scored.final_score.overall))
    finals = client.get(f"/api/v1/studies/{study.pk}/final-scores").json()
    assert [(f["research_id"], f["overall"]) for f in finals] == [
        ("A05_FS10", float(scored.final_score.overall))
    ]
    agreement = client.get(f"/api/v1/studies/{study.pk}/agreement").json()
    expected = agreement_responses(study=study)
    assert [r["pcc"] for r in agreement["responses"]] == [r["pcc"] for r in expected]
    assert agreement["responses"][0]["pcc"] is not None and "rows" in agreement["table6"]
    for name in (
        "table2",
        "overall",
        "step_tests",
        "blanks",
        "efficiency",
        "diversity",
        "cost",
        "consistency",
    ):
        assert client.get(f"/api/v1/studies/{study.pk}/tables/{name}").status_code == 200, name
    unknown = client.get(f"/api/v1/studies/{study.pk}/tables/secret_settings")
    assert unknown.status_code == 404 and "table1, table2, overall" in unknown.json()["detail"]


@pytest.mark.parametrize(
    ("query", "named"),
    [("a=A&b=Z", "condition Z"), ("conditions=Q", "condition Q"), ("models=99", "model 99")],
)
def test_a_condition_or_model_the_study_lacks_is_an_error_not_an_empty_table(scored, query, named):
    """Issue 42: tables/overall?a=A&b=Z answered an empty table."""
    client = _client("researcher")
    study = scored.study
    for path in ("tables/overall", "final-scores"):
        reply = client.get(f"/api/v1/studies/{study.pk}/{path}?{query}")
        assert reply.status_code == 422, (path, reply.content)
        detail = reply.json()["detail"]
        assert named in detail and "(it has: " in detail
    letter = study.responses.first().condition.letter
    good = client.get(f"/api/v1/studies/{study.pk}/tables/overall?conditions={letter.lower()}")
    assert good.status_code == 200  # a letter in either case


def test_responses_carry_their_items_and_status(scored):
    client = _client("researcher")
    scored.refresh_from_db()  # the recompute finalised it
    [response] = client.get(f"/api/v1/studies/{scored.study.pk}/responses").json()
    assert response["research_id"] == "A05_FS10" and response["status"] == scored.status
    assert response["primary_submitted"] == 2
    assert [(i["step"], i["position"]) for i in response["items"]] == list(
        scored.items.order_by("step", "position").values_list("step", "position")
    )
    models = client.get(f"/api/v1/studies/{scored.study.pk}/models").json()
    assert models and all(set(m) == {"id", "model_number", "name", "model_name"} for m in models)  # no keys


def test_the_openapi_schema_and_docs_page_come_from_the_code(demo):
    client = _client("researcher")
    schema = client.get("/api/v1/openapi.json").json()
    assert schema["info"]["version"] == "1"
    assert {"/api/v1/studies", "/api/v1/studies/{study_id}/items", "/api/v1/exports"} <= set(schema["paths"])
    docs = client.get("/api/v1/docs")
    assert docs.status_code == 200 and b"swagger-ui" in docs.content and b"cdn" not in docs.content.lower()
    assert Client().get("/api/v1/docs").status_code == 302  # anonymous: to the login page


def test_the_rubric_gives_a_notebook_what_a_pcc_needs(scored):
    """Issue 42: the API did not serve the rubric's maxima a notebook needs to recompute a PCC."""
    client = _client("researcher")
    study = scored.study
    body = client.get(f"/api/v1/studies/{study.pk}/rubric").json()
    rubric = load_rubric(study.rubric_version)
    assert body["version"] == rubric.version and body["max_total"] == 186
    assert sum(s["max"] for s in body["steps"]) == body["max_total"]
    assert [d["key"] for d in body["dimensions"]] == list(rubric.dimension_keys)
    assert body["document"]["steps"][0]["number"] == 1
    # the PCC of the pair from the API's sheets and maxima is the agreement page's
    maxima = {d["key"]: d["max"] for d in body["dimensions"]}
    vectors = []
    for sheet in client.get(f"/api/v1/studies/{study.pk}/sheets").json():
        if sheet["status"] != "submitted":
            continue
        totals = {r["dimension"]: r["score"] for r in sheet["rows"] if r["row_type"] == "dimension"}
        vectors.append([totals[k] / maxima[k] for k in maxima])
    sheets = ScoreSheet.objects.filter(assignment__response__study=study, status="submitted")
    expected = [
        normalized_vector(sheet_totals(sheet_entries_get(sheet=s, rubric=rubric), rubric), rubric)
        for s in sheets
    ]
    assert sorted(vectors) == sorted(expected)
    assert pcc(*vectors).r == pytest.approx(pcc(*expected).r)
