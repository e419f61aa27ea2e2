"""/metrics: the token guards it; the product's and django-prometheus's figures are in it."""

import json
import re
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.metrics_scrape import TOKEN, families, scrape, value

pytestmark = pytest.mark.django_db


def test_without_a_configured_token_metrics_are_off(client, settings):
    settings.METRICS_TOKEN = ""
    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer anything")
    assert response.status_code == 404
    assert b"METRICS_TOKEN" in response.content
    assert b"teamllm_" not in response.content


def test_a_missing_or_wrong_token_is_refused_with_a_message(client, settings):
    settings.METRICS_TOKEN = TOKEN
    missing = client.get("/metrics")
    assert missing.status_code == 401 and missing["WWW-Authenticate"].startswith("Bearer")
    assert b"Authorization: Bearer" in missing.content
    for header in (f"Bearer {TOKEN}x", "Bearer wrong", f"Basic {TOKEN}", TOKEN):
        response = client.get("/metrics", HTTP_AUTHORIZATION=header)
        assert response.status_code in (401, 403), header
        assert b"teamllm_" not in response.content and response.content
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403


def test_a_logged_in_admin_without_the_token_is_refused_too(client, settings, demo):
    settings.METRICS_TOKEN = TOKEN
    client.login(username="admin", password="demo-pass-2026")
    assert client.get("/metrics").status_code == 401


def test_the_right_token_shows_product_request_and_database_metrics(client, settings, demo):
    settings.METRICS_TOKEN = TOKEN
    samples = scrape(client)
    names = families(client)
    # django-prometheus: this process's requests and database queries
    assert "django_http_requests_before_middlewares" in names
    assert "django_db_execute" in names
    assert value(samples, "teamllm_product_metrics_up") == 1
    # the demo's routed responses and its human sheets
    assert value(samples, "teamllm_assignments_total", role="primary") > 0
    assert value(samples, "teamllm_outbox_pending") >= 0
    for name in (
        "teamllm_llm_calls",
        "teamllm_llm_tokens",
        "teamllm_llm_retries",
        "teamllm_llm_rate_limited",
        "teamllm_llm_wait_seconds",
        "teamllm_sheet_events",
        "teamllm_agreement_recomputes",
        "teamllm_export_duration_seconds",
        "teamllm_engine_job_duration_seconds",
        "teamllm_engine_jobs_stuck",
        "teamllm_engine_jobs_waiting",
        "teamllm_queue_messages",
    ):
        assert name in names, name


def test_when_the_product_figures_fail_the_process_metrics_are_still_served(client, settings, monkeypatch):
    settings.METRICS_TOKEN = TOKEN

    def broken():
        raise RuntimeError("database away")

    monkeypatch.setattr("teamllm_web.metrics.sheet_events_by_kind", broken)
    samples = scrape(client)
    assert value(samples, "teamllm_product_metrics_up") == 0
    assert not any(name.startswith("teamllm_llm_") for name, _ in samples)


def _exported_series(client) -> set[str]:
    """Every series name /metrics can carry: its samples' names and, for families without
    samples yet, the names their type gives them."""
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    names = set()
    for family in text_string_to_metric_families(response.content.decode()):
        names |= {sample.name for sample in family.samples}
        suffixes = {
            "counter": ["_total"],
            "summary": ["_count", "_sum"],
            "histogram": ["_count", "_sum", "_bucket"],
        }.get(family.type, [""])
        names |= {family.name + suffix for suffix in suffixes}
    return names


def test_the_grafana_dashboard_queries_only_exported_metrics(client, settings, demo):
    settings.METRICS_TOKEN = TOKEN
    client.get("/healthz")  # a request through the middleware, for the request metrics
    dashboard = json.loads((Path(settings.BASE_DIR) / "docs" / "grafana-dashboard.json").read_text())
    exprs = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    queried = {name for expr in exprs for name in re.findall(r"\b(?:teamllm|django)_[a-z0-9_]+", expr)}
    assert len(queried) > 20 and any(n.startswith("django_http") for n in queried)
    exported = _exported_series(client)
    assert queried - exported == set()
    # every product metric the docs list is exported, and the dashboard shows each of them
    docs = (Path(settings.BASE_DIR) / "docs" / "operators.md").read_text()
    documented = {_family(n) for n in re.findall(r"`(teamllm_[a-z0-9_]+)`", docs)}
    product = {_family(n) for n in exported if n.startswith("teamllm_")}
    assert documented == product
    assert product <= {_family(n) for n in queried}


def _family(name: str) -> str:
    return re.sub(r"_(total|count|sum|bucket)$", "", name)
