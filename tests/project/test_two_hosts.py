"""More than one host: two web servers and two workers, as docs/operators.md ("More than one
host") runs them, sharing one PostgreSQL and one Redis.

The compose services run on this machine (``tests.stack``): the one-shot ``migrate``, then on
each of two "hosts" (``host-a``, ``host-b``: their own ``HOSTNAME``, port and Prometheus
directory) a ``web`` (gunicorn, production settings) and a ``worker`` (Celery, its node named
after its host). A session made on one host works on the other and ends on both; the API's
rate limit is one budget whichever host answers; two raters score on different hosts and the
outbox has each agreement task sent once; ``/metrics`` on each host gives the same product
figures (read from the database) and its own requests; a generation run whose worker is killed
on one host is finished by the worker of the other, no turn lost or repeated. Every host
reaches PostgreSQL through one PgBouncer in transaction pooling, as docs/operators.md advises
once the connections outgrow the server.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from tests.project.test_production_smoke import ADMIN_PASSWORD, RATER_PASSWORD, SEED, _agreement, _changes
from tests.stack import (
    BIN,
    PGBOUNCER,
    ROOT,
    SERVICES,
    Browser,
    Stack,
    free_port,
    pg_admin_url,
    pgbouncer_config,
    via_pgbouncer,
    wait_for,
)

pytestmark = pytest.mark.smoke

APP_HOST = yaml.safe_load((ROOT / "docker-compose.app-host.yml").read_text())["services"]

HOSTS = ("host-a", "host-b")
METRICS_TOKEN = "two-hosts-metrics-token-0123456789"  # noqa: S105
API_LIMIT = 6
# what the operator sets for this test: the stub reachable without a key, short engine
# deadlines (a dead worker's run is found in seconds, not a minute), a small API budget
SETTINGS = {
    "LLM_KEYLESS_HOSTS": "127.0.0.1",
    "GENERATION_HEARTBEAT_SECONDS": "1",
    "GENERATION_STALE_SECONDS": "6",
    "WORKER_BEAT_SECONDS": "1",
    "API_RATE_LIMIT_PER_MINUTE": str(API_LIMIT),
    "METRICS_TOKEN": METRICS_TOKEN,
    "WEB_CONCURRENCY": "2",
    "WORKER_CONCURRENCY": "4",
}
# after the smoke test's seed: the stub endpoint chosen by the study, a researcher's API token
SEED_MORE = """
from api.services.tokens import token_create
from core.accounts.roles import RESEARCHER
from studies.services.setup import endpoint_ensure_stub
researcher = get_user_model().objects.create_user(username="researcher", password="%(password)s")
researcher.groups.set([groups[RESEARCHER]])
study.endpoints.add(endpoint_ensure_stub())
print(json.dumps({"token": token_create(user=researcher, name="notebook", scope="read", days=1).plain}))
"""


class Hosts:
    def __init__(self, stack: Stack, stub_port: int, pooler_port: int):
        self.stack = stack
        self.ports = {host: free_port() for host in HOSTS}
        self.pooler_port = pooler_port
        self.settings = {**SETTINGS, "LLM_STUB_URL": f"http://127.0.0.1:{stub_port}/v1"}

    def env(self, service: str, host: str) -> dict[str, str]:
        """A host's service environment: host a is the first host (docker-compose.yml, its
        ``DATABASE_URL`` pointed at PgBouncer), host b an extra one (docker-compose.app-host.yml,
        the first host's addresses in its ``.env``); both with the settings docs/operators.md
        gives for transaction pooling."""
        env = {**self.stack.env(service, services=self.services(host)), **self.settings, "HOSTNAME": host}
        if host == HOSTS[0]:
            env["DATABASE_URL"] = via_pgbouncer(env["DATABASE_URL"], self.pooler_port)
        if service == "web":  # each host its own directory (prometheus_client's multiprocess mode)
            env["PROMETHEUS_MULTIPROC_DIR"] = str(self.stack.tmp / f"metrics-{host}")
        return env | {"DB_CONN_MAX_AGE": "0", "DB_DISABLE_SERVER_SIDE_CURSORS": "1"}

    def services(self, host: str) -> dict:
        return SERVICES if host == HOSTS[0] else APP_HOST

    def web_start(self, host: str) -> None:
        argv = self.stack.command("web", self.ports[host], services=self.services(host))
        self.stack.start(f"web-{host}", argv, self.env("web", host))

    def worker_start(self, host: str) -> None:
        # a container's own hostname names its node
        argv = [*self.stack.command("worker", services=self.services(host)), "-n", f"celery@{host}"]
        self.stack.start(f"worker-{host}", argv, self.env("worker", host))

    def browser(self, host: str) -> Browser:
        return Browser(self.stack, self.ports[host])

    def healthy(self, host: str) -> bool:
        try:
            return self.browser(host).request("GET", "/healthz", timeout=5).status == 200
        except OSError:
            return False


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    try:
        import psycopg

        psycopg.connect(pg_admin_url(), connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        pytest.skip(f"no PostgreSQL server for the two-host test: {exc}")
    assert PGBOUNCER.exists(), "PgBouncer is not installed (scripts/test.sh installs it)"
    stack = Stack(tmp_path_factory.mktemp("two-hosts"))
    stub_port, pooler_port = free_port(), free_port()
    stack.start(
        "llm-stub",
        [str(BIN / "python"), "-m", "devtools.llm_stub", "--port", str(stub_port), "--latency-ms", "300"],
        {"PATH": str(BIN), "HOME": str(stack.tmp)},
    )
    config = pgbouncer_config(
        Path(tempfile.mkdtemp(prefix="pgbouncer-")), pooler_port, pg_admin_url(), "teamllm"
    )
    stack.start("pgbouncer", [str(PGBOUNCER), "-u", "postgres", str(config)], {"PATH": "/usr/bin:/bin"})
    both = Hosts(stack, stub_port, pooler_port)
    # host b's .env: the first host's addresses (here PgBouncer's and the private Redis's)
    stack.dotenv |= {
        "DATABASE_HOST": "127.0.0.1",
        "DATABASE_PORT": str(pooler_port),
        "DATABASE_NAME": stack.db_name,
        "REDIS_HOST": "127.0.0.1",
        "REDIS_PORT": str(stack.redis_port),
    }
    try:
        stack.redis_start()
        stack.database_create()
        stack.run("migrate", stack.command("migrate"), extra_env=both.settings, timeout=300)
        for host in HOSTS:
            both.web_start(host)
            both.worker_start(host)
        seeded = stack.run(
            "web",
            [
                str(BIN / "python"),
                "manage.py",
                "shell",
                "-c",
                (SEED + SEED_MORE) % {"password": RATER_PASSWORD},
            ],
            extra_env={
                **both.settings,
                "DJANGO_SUPERUSER_USERNAME": "admin",
                "DJANGO_SUPERUSER_PASSWORD": ADMIN_PASSWORD,
                "DJANGO_SUPERUSER_EMAIL": "admin@example.org",
            },
        )
        lines = [json.loads(line) for line in seeded.stdout.strip().splitlines()[-2:]]
        stack.seed = {**lines[0], **lines[1]}
        for host in HOSTS:
            wait_for(lambda host=host: both.healthy(host), 60, f"web on {host} never answered", stack)
        yield both
    finally:
        for name in [
            *(f"{kind}-{host}" for kind in ("web", "worker") for host in HOSTS),
            "llm-stub",
            "redis",
        ]:
            stack.stop(name)
        stack.database_drop()


def test_both_workers_beat_and_status_sees_them_from_either_host(hosts):
    beating = wait_for(
        lambda: (rows := hosts.stack.sql("SELECT hostname FROM core_workerbeat")) and len(rows) >= 2 and rows,
        60,
        "the two workers never beat",
        hosts.stack,
    )
    assert {row[0] for row in beating} >= {f"celery@{host}" for host in HOSTS}
    for host in HOSTS:
        admin = hosts.browser(host)
        admin.login("admin", ADMIN_PASSWORD)
        status = admin.request("GET", "/status/")
        assert status.status == 200, status.text[:500]
        workers = status.json()["workers"]
        assert workers["ok"] is True and set(workers["workers"]) >= {f"celery@{host}" for host in HOSTS}


def test_a_session_made_on_one_host_works_on_the_other_and_ends_on_both(hosts):
    on_a = hosts.browser("host-a")
    on_a.login("rater1", RATER_PASSWORD)
    on_b = hosts.browser("host-b")
    on_b.cookies = dict(on_a.cookies)  # the load balancer sends the next request to host b
    queue = on_b.request("GET", "/scoring/")
    assert queue.status == 200 and "rater1" in queue.text
    logged_out = on_b.request("POST", "/accounts/logout/")
    assert logged_out.status == 302
    again = on_a.request("GET", "/scoring/")
    assert again.status == 302 and "/accounts/login/" in again.header("Location")


def test_the_api_budget_is_one_whichever_host_answers(hosts):
    token = hosts.stack.seed["token"]
    headers = {"Authorization": f"Bearer {token}"}
    statuses = [
        hosts.browser(HOSTS[i % 2]).request("GET", "/api/v1/studies", headers=headers).status
        for i in range(API_LIMIT + 2)
    ]
    assert statuses[:API_LIMIT] == [200] * API_LIMIT, statuses
    assert statuses[API_LIMIT:] == [429, 429], statuses  # refused on both hosts


def test_raters_on_two_hosts_score_and_each_agreement_task_is_sent_once(hosts):
    codes = hosts.stack.seed["codes"]
    for slot, (username, host) in enumerate((("rater1", "host-a"), ("rater2", "host-b"))):
        rater = hosts.browser(host)
        rater.login(username, RATER_PASSWORD)
        reply = rater.score_and_submit(codes[f"A05_FS10/{username}"], _changes(slot))
        assert reply.status == 200, (reply.status, reply.text[:1000])
    pcc = wait_for(lambda: _agreement(hosts.stack, "A05_FS10"), 60, "no agreement computed", hosts.stack)
    assert round(pcc, 3) == 0.863  # as on one host (the smoke test)
    wait_for(
        lambda: hosts.stack.sql("SELECT count(*) FROM core_taskoutbox WHERE sent_at IS NULL") == [(0,)],
        30,
        "the outbox was never emptied",
        hosts.stack,
    )
    attempts = hosts.stack.sql("SELECT task_name, attempts FROM core_taskoutbox")
    assert attempts and all(count == 1 for _name, count in attempts), attempts


def _scrape(hosts: Hosts, host: str) -> dict[tuple[str, frozenset], float]:
    reply = hosts.browser(host).request(
        "GET", "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
    )
    assert reply.status == 200, reply.text[:500]
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(reply.text)
        for sample in family.samples
    }


def _requests(samples: dict) -> float:
    """Every request that reached Django (/healthz answers before the per-view counters)."""
    return sum(
        v for (name, _labels), v in samples.items() if name == "django_http_requests_before_middlewares_total"
    )


def test_metrics_give_the_same_product_figures_and_each_hosts_own_requests(hosts):
    # a sheet to count, whichever of the module's tests ran before on this process's hosts
    rater = hosts.browser("host-a")
    rater.login("rater1", RATER_PASSWORD)
    opened = rater.request("GET", f"/scoring/{hosts.stack.seed['codes']['A05_FS10/rater1']}/")
    assert opened.status == 200, opened.text[:500]
    before = {host: _scrape(hosts, host) for host in HOSTS}
    for _ in range(8):
        assert hosts.browser("host-a").request("GET", "/healthz").status == 200
    after = {host: _scrape(hosts, host) for host in HOSTS}
    # the requests of host a's two gunicorn processes, added up there; host b saw only its scrapes
    assert _requests(after["host-a"]) - _requests(before["host-a"]) >= 8
    assert _requests(after["host-b"]) - _requests(before["host-b"]) < 8
    product = {
        host: {k: v for k, v in after[host].items() if k[0].startswith("teamllm_sheet")} for host in HOSTS
    }
    assert product["host-a"] and product["host-a"] == product["host-b"]


def _run_state(hosts: Hosts):
    rows = hosts.stack.sql(
        "SELECT id, status, attempts FROM generation_generationrun ORDER BY id DESC LIMIT 1"
    )
    return rows[0] if rows else None


def test_a_run_whose_worker_is_killed_on_one_host_finishes_on_the_other(hosts):
    stack = hosts.stack
    stack.stop("worker-host-b")  # the run starts on host a
    generate = subprocess.Popen(  # noqa: S603
        [str(BIN / "python"), "manage.py", "generate", "--study", "Smoke study", "--model", "stub",
         "--condition", "A", "--scenario", "FS10"],
        cwd=ROOT, env={**hosts.env("web", "host-a")}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    output, _ = generate.communicate(timeout=120)
    assert generate.returncode == 0, output
    run_id = wait_for(lambda: (row := _run_state(hosts)) and row[0], 30, "no run", stack)
    turns = "SELECT count(*) FROM generation_turn WHERE run_id = %s"
    wait_for(lambda: stack.sql(turns, run_id)[0][0] >= 4, 90, "the run never started on host a", stack)
    hosts.worker_start("host-b")
    time.sleep(2)  # host b's worker is up and sweeping while host a's still holds the run
    stack.stop("worker-host-a", sig=9)  # killed mid-run: no goodbye, its lease left behind
    killed_at = stack.sql(turns, run_id)[0][0]
    assert killed_at < 34
    done = wait_for(
        lambda: (row := _run_state(hosts)) and row[1] not in ("queued", "running") and row,
        180,
        "the run never finished on host b",
        stack,
    )
    hosts.worker_start("host-a")  # back for the tests after this one
    assert done[1] == "succeeded", done
    assert done[2] == 2  # started on host a, resumed once on host b
    seqs = [
        row[0] for row in stack.sql("SELECT seq FROM generation_turn WHERE run_id = %s ORDER BY seq", run_id)
    ]
    assert seqs == list(range(34))  # no turn lost, none repeated
