"""Production smoke test: the docker-compose stack, run on this machine without Docker.

It reads ``docker-compose.yml`` and runs each app service's own command with that service's
environment (the Dockerfile's ENV, then ``.env.example`` as the documented ``.env``, then the
service's ``environment:``), with the hostnames ``postgres``/``redis`` pointed at this machine:
a fresh PostgreSQL database (the ``postgres`` service's user and password) and a private
``redis-server`` on a free port (so it can be killed and restarted without touching the
Redis other test sessions share). Then: the one-shot ``migrate``, ``web`` (gunicorn, production
settings) on a free port and ``worker`` (Celery); the health checks exactly as compose runs
them; logins through the HTTPS proxy headers; a full sheet scored and submitted by both raters
through the JSON endpoints and the agreement computed by the worker; an export built by the
worker and downloaded; and the broker killed and restarted mid-submit.

Every process is cleaned up, also when a step fails.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import os
import re
from pathlib import Path

import psycopg
import pytest

from scoring.score_files import data_a_changes
from studies.rubric import load_rubric
from tests.stack import BIN, ROOT, Browser, Stack, pg_admin_url, wait_for

pytestmark = pytest.mark.smoke

ADMIN_PASSWORD = "smoke-admin-Pw-2026"  # noqa: S105
RATER_PASSWORD = "smoke-rater-Pw-2026"  # noqa: S105
TEXTS = [[f"texts.{k}", "copied"] for k in ("condition_phrase", "stem", "kvp", "purpose")]
# --- the stack ----------------------------------------------------------------------------

SEED = """
import json
from django.contrib.auth import get_user_model
from django.core.management import call_command
from scoring.models import Assignment, RaterProfile
from scoring.services.assignments import group_assign_pair
from studies.models import Condition, Response, Study
from core.accounts.roles import RATER
from studies.response_files import records_from_data_a
from studies.services.responses import responses_import
from studies.services.roles import role_groups_ensure

call_command("createsuperuser", interactive=False)
call_command("setup_defaults")
call_command("import_responses", "studies/data/data_A.json", study="Smoke study", create_missing=True)
groups = role_groups_ensure()
raters = []
for username, code in (("rater1", "H01"), ("rater2", "H02")):
    user = get_user_model().objects.create_user(username=username, password="%(password)s")
    user.groups.set([groups[RATER]])
    RaterProfile.objects.update_or_create(user=user, defaults={"rater_code": code})
    raters.append(user)
study = Study.objects.get(name="Smoke study")
record = records_from_data_a(json.load(open("studies/data/data_A.json", encoding="utf-8")))[0]
record.research_id, record.condition = "B05_FS10", "B"   # the same texts under condition B
responses_import(records=[record], study=study)
a05 = Response.objects.get(study=study, research_id="A05_FS10")
group_assign_pair(
    study=study, scenario=a05.scenario, conditions=Condition.objects.filter(letter__in=["A", "B"]),
    rater_a=raters[0], rater_b=raters[1],
)
print(json.dumps({
    "study": study.pk,
    # each rater's own code of each response (their assignment's)
    "codes": {
        f"{a.response.research_id}/{a.rater.username}": a.blind_code
        for a in Assignment.objects.filter(response__study=study).select_related("response", "rater")
    },
}))
"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    if not Path("/usr/bin/redis-server").exists() and not any(
        (Path(p) / "redis-server").exists() for p in os.environ.get("PATH", "").split(os.pathsep)
    ):
        pytest.skip("redis-server is not installed")
    try:
        psycopg.connect(pg_admin_url(), connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        pytest.skip(f"no PostgreSQL server for the smoke test: {exc}")
    stack = Stack(tmp_path_factory.mktemp("smoke"))
    try:
        stack.redis_start()
        stack.database_create()
        # the one-shot migrate service must succeed before web and worker start
        stack.run("migrate", stack.command("migrate"), timeout=300)
        # web and worker start as soon as migrate has finished (compose's depends_on)
        stack.start("web", stack.command("web"), stack.env("web"))
        stack.start("worker", stack.command("worker"), stack.env("worker"))
        # meanwhile the README's first steps (one process: each Django start costs seconds):
        # createsuperuser, setup_defaults, import_responses, then raters and their pair
        seeded = stack.run(
            "web",
            [str(BIN / "python"), "manage.py", "shell", "-c", SEED % {"password": RATER_PASSWORD}],
            extra_env={
                "DJANGO_SUPERUSER_USERNAME": "admin",
                "DJANGO_SUPERUSER_PASSWORD": ADMIN_PASSWORD,
                "DJANGO_SUPERUSER_EMAIL": "admin@example.org",
            },
        )
        stack.seed = json.loads(seeded.stdout.strip().splitlines()[-1])
        wait_for(lambda: stack.healthcheck("web").returncode == 0, 60, "web never became healthy", stack)
        yield stack
    finally:
        for name in ("web", "worker", "redis"):
            stack.stop(name)
        with contextlib.suppress(Exception):
            stack.database_drop()


@pytest.fixture(scope="module")
def admin(stack) -> Browser:
    browser = Browser(stack)
    browser.login("admin", ADMIN_PASSWORD)
    return browser


def _changes(slot: int) -> list:
    data = json.loads((ROOT / "studies" / "data" / "data_A.json").read_text(encoding="utf-8"))
    return [list(c) for c in data_a_changes(data[0][3 + slot], load_rubric())] + TEXTS


def _agreement(stack: Stack, research_id: str):
    rows = stack.sql(
        "SELECT a.pcc FROM calibration_responseagreement a JOIN studies_response r ON r.id = a.response_id "
        "WHERE r.research_id = %s AND a.pcc IS NOT NULL",
        research_id,
    )
    return rows[0][0] if rows else None


# --- the checks ------------------------------------------------------------------------------


def test_health_checks_pass_exactly_as_compose_runs_them(stack):
    redis_check = stack.healthcheck("redis")
    assert redis_check.returncode == 0, redis_check.stdout + redis_check.stderr
    web = stack.healthcheck("web")
    assert web.returncode == 0, web.stdout + web.stderr
    worker = wait_for(
        lambda: (r := stack.healthcheck("worker")).returncode == 0 and r,
        45,
        "the worker's compose health check never passed",
        stack,
    )
    assert "pong" in worker.stdout
    # the liveness body reveals nothing, whatever the Host
    conn = http.client.HTTPConnection("127.0.0.1", stack.web_port, timeout=10)
    conn.request("GET", "/healthz", headers={"Host": "127.0.0.1"})
    reply = conn.getresponse()
    assert (reply.status, reply.read()) == (200, b"ok\n")
    conn.close()


def test_production_settings_redirect_http_and_set_secure_cookies(stack, admin):
    plain = http.client.HTTPConnection("127.0.0.1", stack.web_port, timeout=10)
    plain.request("GET", "/accounts/login/", headers={"Host": stack.host})
    reply = plain.getresponse()
    assert reply.status == 301 and reply.getheader("Location").startswith(f"https://{stack.host}/")
    plain.close()
    session = next(line for line in admin.set_cookie_lines if line.startswith("sessionid="))
    assert "Secure" in session and "HttpOnly" in session
    home = admin.request("GET", "/manage/")
    assert home.status == 200 and "Strict-Transport-Security" in dict(home.headers)


def test_status_is_ready_for_the_admin_and_refused_to_anonymous(stack, admin):
    anonymous = Browser(stack).request("GET", "/status/")
    assert anonymous.status == 404
    reply = wait_for(
        lambda: (r := admin.request("GET", "/status/")).status == 200 and r,
        30,
        "/status/ never said ready",
        stack,
    )
    body = reply.json()
    assert body["database"]["ok"] and body["broker"]["ok"] and body["workers"]["ok"]
    assert body["workers"]["workers"] == [f"celery@{stack.hostname}"]
    assert isinstance(body["queue"]["messages"], int)


def test_both_raters_score_and_submit_a_full_sheet_and_the_worker_computes_the_agreement(stack):
    for slot, username in enumerate(("rater1", "rater2")):
        code = stack.seed["codes"][f"A05_FS10/{username}"]
        rater = Browser(stack)
        rater.login(username, RATER_PASSWORD)
        assert code in rater.request("GET", "/scoring/").text  # in the rater's queue
        reply = rater.score_and_submit(code, _changes(slot))
        assert reply.status == 200, (reply.status, reply.text[:1000])
        assert isinstance(reply.json()["overall"], int | float)
    statuses = stack.sql(
        "SELECT s.status FROM scoring_scoresheet s JOIN scoring_assignment a ON a.id = s.assignment_id "
        "JOIN studies_response r ON r.id = a.response_id WHERE r.research_id = 'A05_FS10'"
    )
    assert sorted(statuses) == [("submitted",), ("submitted",)]
    pcc = wait_for(lambda: _agreement(stack, "A05_FS10"), 30, "no agreement computed", stack)
    assert round(pcc, 3) == 0.863


def test_an_export_is_built_by_the_worker_and_downloaded(stack, admin):
    started = admin.request(
        "POST", "/research/exports/", form={"kind": "results", "study": stack.seed["study"]}
    )
    assert started.status == 200, (started.status, started.text[:1000])
    job = int(re.search(r'id="export-job-(\d+)"', started.text).group(1))
    download = wait_for(
        lambda: (r := admin.request("GET", f"/research/exports/{job}/download")).status == 200 and r,
        60,
        "the export was never ready to download",
        stack,
    )
    assert "attachment" in download.header("Content-Disposition")
    assert download.body[:2] == b"PK"
    from openpyxl import load_workbook

    assert load_workbook(io.BytesIO(download.body), read_only=True).sheetnames


def test_while_the_broker_is_down_liveness_stays_green_and_status_says_why(stack, admin):
    stack.redis_kill()
    web = stack.healthcheck("web")
    assert web.returncode == 0, web.stdout + web.stderr
    status = admin.request("GET", "/status/")
    assert status.status == 503
    assert status.json()["broker"]["ok"] is False


# ===================================================================================================
# BROKER KILLED AND RESTARTED MID-SUBMIT: the transactional outbox keeps the agreement task
# of each submit in the database until the broker answers again.
# ===================================================================================================
def test_broker_killed_and_restarted_mid_submit(stack):
    codes = stack.seed["codes"]
    rater1, rater2 = Browser(stack), Browser(stack)
    try:
        rater1.login("rater1", RATER_PASSWORD)
        rater2.login("rater2", RATER_PASSWORD)
        stack.redis_kill()  # (already down after the previous test when run in order)
        first = rater1.score_and_submit(codes["B05_FS10/rater1"], _changes(0))
        second = rater2.score_and_submit(codes["B05_FS10/rater2"], _changes(1))
    finally:
        stack.redis_start()
    submitted = stack.sql(
        "SELECT count(*) FROM scoring_scoresheet s JOIN scoring_assignment a ON a.id = s.assignment_id "
        "JOIN studies_response r ON r.id = a.response_id "
        "WHERE r.research_id = 'B05_FS10' AND s.status = 'submitted'"
    )
    assert submitted == [(2,)]  # both sheets are stored whatever the broker did
    assert first.status == 200, (first.status, first.text[:500])
    assert second.status == 200, (second.status, second.text[:500])
    pcc = wait_for(lambda: _agreement(stack, "B05_FS10"), 30, "agreement never computed", stack)
    assert round(pcc, 3) == 0.863


def test_the_stack_is_ready_again_once_the_broker_is_back(stack, admin):
    if not stack.redis_ping():
        stack.redis_start()
    wait_for(
        lambda: admin.request("GET", "/status/").status == 200,
        45,
        "not ready after the broker restart",
        stack,
    )
    worker = stack.healthcheck("worker")
    assert worker.returncode == 0, worker.stdout + worker.stderr
