"""The results workbook's progress moves while it builds: one step per sheet and per
submitted sheet of the raw table, each stored (and committed) on the job as it happens."""

import json

import psycopg
import pytest
from django.db import connection
from openpyxl import load_workbook

from core.accounts.roles import RESEARCHER
from core.models import TaskOutbox
from research.models import ExportJob
from research.selectors.research import results_get
from research.workbook import results_workbook_write
from studies.rubric import load_rubric
from tests.factories import UserFactory
from tests.research import test_results_workbook_write as workbook_tests
from tests.workers import wait_for

scored = workbook_tests.scored  # the fixture: A05_FS10 scored by H01 and H02 (data_A.json)


@pytest.mark.django_db
def test_workbook_tells_every_step_in_order_ending_at_the_total(scored, tmp_path):
    path = tmp_path / "results.xlsx"
    calls: list[tuple[int, int, str]] = []
    results_workbook_write(results_get(study=scored.study), path, progress=lambda *call: calls.append(call))
    wb = load_workbook(path, read_only=True)
    sheets = wb.sheetnames
    raw_sheets = (wb["Raw scores"].max_row - 1) // len(load_rubric().dimensions)
    assert raw_sheets == 2 and len(sheets) >= 10
    total = len(sheets) + raw_sheets
    assert [done for done, _, _ in calls] == list(range(total + 1))
    assert {t for _, t, _ in calls} == {total}
    # each sheet as it starts, then each submitted sheet of the raw table, then the end
    assert [step for _, _, step in calls] == [*sheets, *["Raw scores"] * raw_sheets, ""]

    calls.clear()
    results_workbook_write(
        results_get(study=scored.study), path, include_raw=False, progress=lambda *call: calls.append(call)
    )
    assert calls == [(i, len(sheets) - 1, name) for i, name in enumerate(sheets[:-1])] + [
        (len(sheets) - 1, len(sheets) - 1, "")
    ]


@pytest.mark.django_db
def test_the_job_fragment_shows_the_step(client):
    researcher = UserFactory(username="res-p", role=RESEARCHER)
    client.force_login(researcher)
    job = ExportJob.objects.create(
        kind="results",
        params={},
        status="running",
        progress=3,
        total=9,
        step="Table 1 (A)",
        created_by=researcher,
    )
    page = client.get(f"/research/exports/{job.pk}/").content.decode()
    assert "3 / 9 — Table 1 (A)" in page and "pct-33" in page
    ExportJob.objects.filter(pk=job.pk).update(progress=0, total=0, step="")
    assert "Computing the results" in client.get(f"/research/exports/{job.pk}/").content.decode()


# Test set-up in the test database only: every committed update of a job is announced
# with the id of the transaction that made it (NOTIFY is delivered at commit).
TRIGGER = """
CREATE OR REPLACE FUNCTION test_exportjob_announce() RETURNS trigger AS $$ BEGIN
  PERFORM pg_notify('test_exportjob', json_build_object('status', NEW.status, 'done', NEW.progress,
    'total', NEW.total, 'step', NEW.step, 'txid', txid_current())::text);
  RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER test_exportjob_announce AFTER UPDATE ON research_exportjob
  FOR EACH ROW EXECUTE FUNCTION test_exportjob_announce();
"""


@pytest.fixture
def announced(transactional_db):
    """The committed updates of export jobs, in commit order, as the worker makes them."""
    with connection.cursor() as cursor:
        cursor.execute(TRIGGER)
    listener = psycopg.connect(**connection.get_connection_params(), autocommit=True)
    listener.execute("LISTEN test_exportjob")
    yield listener
    listener.close()
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER test_exportjob_announce ON research_exportjob")
        cursor.execute("DROP FUNCTION test_exportjob_announce()")


@pytest.mark.worker
@pytest.mark.postgres  # a PL/pgSQL trigger announces each commit through LISTEN/NOTIFY
def test_worker_commits_each_step_as_it_goes(celery_worker, announced, scored, client):
    client.force_login(UserFactory(username="res-q", role=RESEARCHER))
    assert client.post("/research/exports/", {"kind": "results", "study": scored.study_id}).status_code == 200
    seen = []
    for note in announced.notifies(timeout=120):
        seen.append(json.loads(note.payload))
        if seen[-1]["status"] in ("done", "failed"):
            break
    job = ExportJob.objects.get()
    assert job.status == "done", (job.error, celery_worker.log_path.read_text()[-2000:])
    steps = [(n["done"], n["total"], n["step"]) for n in seen if n["status"] == "running" and n["total"]]
    total = job.total
    assert steps[0] == (0, total, "About") and steps[-1] == (total, total, "")
    dones = [done for done, _, _ in steps]
    assert dones == sorted(dones) and any(0 < done < total for done in dones)  # never back, moving
    assert {step for _, _, step in steps} >= {"Table 1 (A)", "Raw scores"}
    # each update its own committed transaction: the polling page saw every one as it happened
    assert len({n["txid"] for n in seen}) == len(seen)
    assert steps == [(e["done"], e["total"], e["step"]) for e in job.progress_log]
    job.file.delete(save=False)  # the worker wrote to the shared storage (var/media): leave nothing
    # the worker records the task as done after its last notice: let it finish before the
    # test's tables are emptied (an UPDATE racing the TRUNCATE deadlocks)
    wait_for(lambda: not TaskOutbox.objects.filter(done_at__isnull=True).exists(), timeout=30)
