"""The Prometheus endpoint's product figures (``/metrics``, see docs/operators.md).

Web and workers are separate processes, possibly on separate hosts: a counter kept in a
worker's memory never reaches the web's ``/metrics``. So the product's figures are read
from the database at scrape time, through each owning app's selectors, by a custom
collector (prometheus_client's Collector API): monotonic totals of stored rows (calls,
tokens, sheet events, assignments) are counters, states (queue, outbox, stuck jobs) are
gauges. django-prometheus adds this web process's requests and database queries.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric, SummaryMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.registry import Collector

from api.selectors import api_requests_counted
from calibration.selectors.metrics import agreement_recomputes_total
from generation.selectors import EngineFigures, generation_figures
from generation.services.recovery import jobs_stuck, jobs_waiting
from judging.selectors.batches import judge_figures
from research.selectors.metrics import export_durations, export_jobs_active
from scoring.selectors.metrics import assignments_by_role, sheet_events_by_kind, sheets_by_status

from .health import pending_dispatches, queue_depth

logger = logging.getLogger(__name__)

PREFIX = "teamllm_"
# The classic text format: every Prometheus version reads it (the names need no escaping).
CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4
CALL_LABELS = ["kind", "endpoint"]


def _llm_families(kinds: list[EngineFigures]) -> Iterator[Metric]:
    calls = CounterMetricFamily(
        PREFIX + "llm_calls",
        "Provider calls that answered (stored turns and judge calls).",
        labels=CALL_LABELS,
    )
    failed = CounterMetricFamily(
        PREFIX + "llm_calls_failed", "Provider calls that failed after their retries.", labels=CALL_LABELS
    )
    retries = CounterMetricFamily(
        PREFIX + "llm_retries", "Provider attempts beyond each call's first.", labels=CALL_LABELS
    )
    limited = CounterMetricFamily(
        PREFIX + "llm_rate_limited", "Provider attempts answered HTTP 429.", labels=CALL_LABELS
    )
    waits = CounterMetricFamily(
        PREFIX + "llm_wait_seconds",
        "Seconds calls waited before their answer: pacing (requests/tokens per minute) and retry backoff.",
        labels=CALL_LABELS,
    )
    tokens = CounterMetricFamily(
        PREFIX + "llm_tokens", "Tokens of the calls that answered.", labels=[*CALL_LABELS, "type"]
    )
    seconds = CounterMetricFamily(
        PREFIX + "llm_call_seconds", "Seconds spent in calls that answered (latency).", labels=CALL_LABELS
    )
    worker = CounterMetricFamily(
        PREFIX + "engine_worker_seconds", "Seconds workers spent on the jobs.", labels=CALL_LABELS
    )
    jobs = GaugeMetricFamily(PREFIX + "engine_jobs", "Engine jobs now, by status.", labels=["kind", "status"])
    took = SummaryMetricFamily(
        PREFIX + "engine_job_duration_seconds",
        "Finished engine jobs: seconds from first start to end (judge durations: kind=judge).",
        labels=["kind", "status"],
    )
    for figures in kinds:
        for row in figures.calls:
            labels = [figures.kind, row.endpoint]
            calls.add_metric(labels, row.calls)
            failed.add_metric(labels, row.failed)
            retries.add_metric(labels, row.retries)
            limited.add_metric(labels, row.rate_limited)
            waits.add_metric(labels, row.wait_seconds)
            tokens.add_metric([*labels, "prompt"], row.prompt_tokens)
            tokens.add_metric([*labels, "completion"], row.completion_tokens)
            seconds.add_metric(labels, row.call_seconds)
        for endpoint, spent in figures.worker_seconds.items():
            worker.add_metric([figures.kind, endpoint], spent)
        for status, count in figures.jobs_by_status.items():
            jobs.add_metric([figures.kind, status], count)
        for status, (count, total) in figures.durations.items():
            took.add_metric([figures.kind, status], count_value=count, sum_value=total)
    yield from (calls, failed, retries, limited, waits, tokens, seconds, worker, jobs, took)


def _stuck_family() -> Metric:
    stuck = GaugeMetricFamily(
        PREFIX + "engine_jobs_stuck",
        "Active engine jobs that are stuck now (stale: the worker died; unstarted: the task was lost).",
        labels=["kind", "reason"],
    )
    for kind, reasons in sorted(jobs_stuck().items()):
        for reason, ids in sorted(reasons.items()):
            stuck.add_metric([kind, reason], len(ids))
    return stuck


def _waiting_family() -> Metric:
    waiting = GaugeMetricFamily(
        PREFIX + "engine_jobs_waiting",
        "Engine jobs waiting for infrastructure (paused: an outage of Redis or the broker; "
        "no_worker: failed while every worker was gone, resumed when one is back).",
        labels=["kind", "reason"],
    )
    for kind, reasons in sorted(jobs_waiting().items()):
        for reason, count in sorted(reasons.items()):
            waiting.add_metric([kind, reason], count)
    return waiting


def _scoring_families() -> Iterator[Metric]:
    events = CounterMetricFamily(
        PREFIX + "sheet_events",
        "Score sheet audit events of human raters: change = a save, submit = a submit.",
        labels=["kind"],
    )
    for kind, count in sheet_events_by_kind().items():
        events.add_metric([kind], count)
    sheets = GaugeMetricFamily(
        PREFIX + "sheets", "Human raters' score sheets now, by status.", labels=["status"]
    )
    for status, count in sheets_by_status().items():
        sheets.add_metric([status], count)
    routed = CounterMetricFamily(
        PREFIX + "assignments", "Responses routed to human raters (assignments), by role.", labels=["role"]
    )
    for role, count in assignments_by_role().items():
        routed.add_metric([role], count)
    recomputes = CounterMetricFamily(
        PREFIX + "agreement_recomputes", "Agreement recomputes committed (PCC, ICC, routing, final scores)."
    )
    recomputes.add_metric([], agreement_recomputes_total())
    yield from (events, sheets, routed, recomputes)


def _research_families() -> Iterator[Metric]:
    took = SummaryMetricFamily(
        PREFIX + "export_duration_seconds",
        "Finished export jobs: seconds from request to finish.",
        labels=["kind", "status"],
    )
    for (kind, status), (count, total) in export_durations().items():
        took.add_metric([kind, status], count_value=count, sum_value=total)
    active = GaugeMetricFamily(PREFIX + "export_jobs_active", "Export jobs queued or running now.")
    active.add_metric([], export_jobs_active())
    yield from (took, active)


def _api_family() -> Metric:
    served = CounterMetricFamily(
        PREFIX + "api_requests",
        "Requests /api/v1/ served with a token, by kind (read: counted instead of audited; write: audited too).",
        labels=["kind"],
    )
    for kind, total in api_requests_counted().items():
        served.add_metric([kind], total)
    return served


def _queue_families() -> Iterator[Metric]:
    queue = queue_depth()
    depth = GaugeMetricFamily(
        PREFIX + "queue_messages",
        "Messages waiting in this deployment's broker queue (Redis broker only).",
        labels=["queue"],
    )
    if queue.get("messages") is not None:
        depth.add_metric([queue["queue"]], queue["messages"])
    dispatches = pending_dispatches()
    pending = GaugeMetricFamily(PREFIX + "outbox_pending", "Tasks recorded in the outbox, not yet sent.")
    oldest = GaugeMetricFamily(
        PREFIX + "outbox_oldest_pending_seconds", "Age of the oldest task waiting in the outbox (0: none)."
    )
    if dispatches.get("pending") is not None:
        pending.add_metric([], dispatches["pending"])
        oldest.add_metric([], dispatches.get("oldest_seconds") or 0)
    yield from (depth, pending, oldest)


class _Fixed(Collector):
    """Metrics computed before the scrape's exposition."""

    def __init__(self, *metrics: Metric):
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        yield from self.metrics


class ProductCollector(Collector):
    """The product's figures, read from the database (and the broker) at each scrape."""

    def collect(self) -> Iterator[Metric]:
        yield from _llm_families([generation_figures(), judge_figures()])
        yield _stuck_family()
        yield _waiting_family()
        yield from _scoring_families()
        yield from _research_families()
        yield from _queue_families()
        yield _api_family()


def _process_registry() -> CollectorRegistry:
    """django-prometheus's request and database metrics: of every gunicorn process when
    ``PROMETHEUS_MULTIPROC_DIR`` is set (prometheus_client's multiprocess mode), else of
    this process."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return registry
    return REGISTRY


def metrics_exposition() -> bytes:
    """The text exposition of /metrics. When the product's figures cannot be read (the
    database is down), the process's own metrics are still served, with
    ``teamllm_product_metrics_up 0``."""
    product = CollectorRegistry(auto_describe=False)
    product.register(ProductCollector())
    try:
        figures = generate_latest(product)
        up = 1
    except Exception:
        logger.exception("metrics: the product's figures could not be read")
        figures, up = b"", 0
    gauge = GaugeMetricFamily(PREFIX + "product_metrics_up", "1 when the product's figures were read.")
    gauge.add_metric([], up)
    flag = CollectorRegistry(auto_describe=False)
    flag.register(_Fixed(gauge))
    return generate_latest(_process_registry()) + figures + generate_latest(flag)
