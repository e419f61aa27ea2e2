"""The long tables for analysts (item-level scores and generation turns) as CSV and xlsx,
built as export jobs and read back with pandas and csv; and the generation cost per run and
condition from the same stored turns."""

import csv
import io
import json
from datetime import timedelta

import pandas as pd
import pytest
from django.utils import timezone

from core.accounts.roles import RESEARCHER
from generation.models import GenerationRun, Turn
from research.cost import cost_by_condition
from research.models import ExportJob
from research.selectors.generation import run_costs_get
from research.selectors.long_tables import ITEM_HEADER
from research.services.exports import export_job_run
from studies.models import Response
from tests.factories import UserFactory
from tests.research import test_results_workbook_write as workbook_tests

pytestmark = pytest.mark.django_db
scored = workbook_tests.scored  # the fixture: A05_FS10 scored by H01 and H02 (data_A.json)


def _export(kind, study, settings, tmp_path) -> bytes:
    settings.MEDIA_ROOT = tmp_path
    job = export_job_run(job_id=ExportJob.objects.create(kind=kind, params={"study_id": study.pk}).pk)
    assert job.status == "done", job.error
    with job.file.open("rb") as handle:
        return handle.read()


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_item_level_long_table_reads_back_without_reshaping(scored, data_a, settings, tmp_path, fmt):
    content = _export(f"items_{fmt}", scored.study, settings, tmp_path)
    frame = pd.read_csv(io.BytesIO(content)) if fmt == "csv" else pd.read_excel(io.BytesIO(content))
    assert list(frame.columns) == list(ITEM_HEADER)
    # per sheet: 8 + 8 idea items, 5 criteria, 23 dimensions, 6 step totals
    assert frame.groupby("rater").size().to_dict() == {"H01": 50, "H02": 50}
    dims = frame[frame.row_type == "dimension"]
    assert dims.groupby("rater")["score"].sum().to_dict() == {"H01": 116, "H02": 117}
    assert set(frame.research_id) == {"A05_FS10"} and set(frame.sheet_status) == {"submitted"}
    items = frame[(frame.row_type == "item") & (frame.step == 1) & (frame.rater == "H01")].sort_values("item")
    expected = [item.get("Category", "") for item in data_a[0][3]["Step-1"] if "Content" in item]
    assert items.category.fillna("").tolist() == expected
    assert items.elaboration.tolist()[0] == data_a[0][3]["Step-1"][0]["Elaboration"]


def test_item_table_as_plain_csv(scored, settings, tmp_path):
    rows = list(csv.DictReader(io.StringIO(_export("items_csv", scored.study, settings, tmp_path).decode())))
    step2 = [r for r in rows if r["rater"] == "H02" and r["row_type"] == "step" and r["step"] == "2"]
    assert [r["score"] for r in step2] == ["22"]
    assert all(r["study"] == scored.study.name and r["rubric_version"] for r in rows)


@pytest.fixture
def runs(demo):
    response = Response.objects.get(research_id="A05_FS10")
    start = timezone.now() - timedelta(minutes=3)
    done = GenerationRun.objects.create(
        study=response.study, scenario=response.scenario, endpoint=response.model,
        condition=response.condition, status="succeeded", response=response,
        started_at=start, finished_at=start + timedelta(seconds=170), active_seconds=90,
    )  # fmt: skip  # 80 s of it waiting for a lost task: not counted
    failed = GenerationRun.objects.create(
        study=response.study, scenario=response.scenario, endpoint=response.model,
        condition=response.condition, status="failed", started_at=start,
    )  # fmt: skip
    messages = [{"role": "system", "content": "=SUM(A1)"}, {"role": "user", "content": "第一步"}]
    for seq, (run, tokens_in, tokens_out, attempts, error) in enumerate(
        [(done, 100, 40, 1, ""), (done, 150, 60, 3, ""), (failed, 80, 0, 5, "HTTP 429: rate limited")]
    ):
        Turn.objects.create(
            run=run, seq=seq, step=1, phase="initiation", role="Co-Ordinator", messages=messages,
            request_params={"temperature": 0.5}, reply="" if error else f"answer {seq}",
            prompt_tokens=tokens_in, completion_tokens=tokens_out, latency_ms=1500, attempts=attempts,
            error=error,
        )  # fmt: skip
    return response, done, failed


def test_generation_cost_per_run_and_condition(runs):
    response, done, failed = runs
    costs = {c.run_id: c for c in run_costs_get(study=response.study)}
    ok = costs[done.pk]
    assert (ok.calls, ok.prompt_tokens, ok.completion_tokens, ok.failures, ok.retries) == (2, 250, 100, 0, 2)
    assert ok.wall_seconds == 90 and ok.latency_seconds == 3 and ok.research_id == "A05_FS10"
    bad = costs[failed.pk]
    assert (bad.calls, bad.failures, bad.retries, bad.wall_seconds) == (0, 1, 4, None)
    (mean,) = cost_by_condition(list(costs.values()))
    assert (mean.runs, mean.succeeded, mean.calls, mean.failures, mean.retries) == (2, 1, 1, 1, 6)
    assert mean.prompt_tokens == (250 + 80) / 2 and mean.wall_seconds == 90


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_generation_turns_long_table(runs, settings, tmp_path, fmt):
    response, done, failed = runs
    content = _export(f"turns_{fmt}", response.study, settings, tmp_path)
    frame = pd.read_csv(io.BytesIO(content)) if fmt == "csv" else pd.read_excel(io.BytesIO(content))
    assert len(frame) == 3 and frame.prompt_tokens.sum() == 330
    assert frame.run_id.tolist() == [done.pk, done.pk, failed.pk]
    assert json.loads(frame.messages[0])[0]["content"] == "=SUM(A1)"  # literal text, never a formula
    assert frame.error.fillna("").tolist() == ["", "", "HTTP 429: rate limited"]


def test_researchers_start_long_exports_and_raters_cannot(demo, client):
    study = Response.objects.get(research_id="A05_FS10").study
    client.force_login(UserFactory(username="res-long", role=RESEARCHER))
    started = client.post("/research/exports/", {"kind": "items_xlsx", "study": study.pk})
    assert started.status_code == 200 and ExportJob.objects.get().kind == "items_xlsx"
    assert client.post("/research/exports/", {"kind": "nope", "study": study.pk}).status_code == 400


def test_research_page_and_workbook_show_the_generation_cost(runs, client, tmp_path):
    from openpyxl import load_workbook

    from research.selectors.research import results_get
    from research.workbook import results_workbook_write

    response, done, failed = runs
    client.force_login(UserFactory(username="res-cost", role=RESEARCHER))
    html = client.get("/research/", {"study": response.study.pk}).content.decode()
    cost = html[html.index('id="cost"') :]
    cost = cost[: cost.index("</section>")]
    assert '<td>A05_FS10</td><td>Succeeded</td><td class="num">2</td><td class="num">250</td>' in cost
    # the run's status in the page's language (hostile pass 25: the raw key "succeeded" in Chinese)
    zh = client.get(
        "/research/", {"study": response.study.pk}, HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert "<td>A05_FS10</td><td>成功</td>" in zh[zh.index('id="cost"') :]
    path = tmp_path / "results.xlsx"
    results_workbook_write(results_get(study=response.study, with_diversity=False), path)
    rows = [list(r) for r in load_workbook(path)["Generation cost"].iter_rows(values_only=True)]
    assert rows[1][2:4] == [2, 1] and rows[1][8:10] == [1, 6]  # runs, succeeded; failures, retries
