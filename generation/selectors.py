"""Reads for the generation pages: batch progress and run transcripts."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.paginator import Page, Paginator
from django.db import models
from django.db.models import Case, Count, DurationField, ExpressionWrapper, F, Q, QuerySet, Sum, Value, When
from django.db.models.functions import StrIndex, Substr
from django.db.models.lookups import GreaterThan
from django.utils import timezone

from core.models import TaskOutbox
from core.tasks.worker_beats import workers_beating
from generation.models import (
    EngineBatch,
    EngineJob,
    GenerationBatch,
    GenerationRun,
    PreferenceProfile,
    RunStatus,
    Turn,
)
from generation.strategies import ROLE_NAMES_ZH, strategy_role_names
from generation.strategies.teamfusion import RATING_PHASE, rating_values
from studies.blind_text import PROFILE, ROLE, BlindTerm
from studies.models import Condition, ModelEndpoint, ResponseStatus, Study
from studies.selectors import responses_without_pair

ACTIVE = (RunStatus.QUEUED, RunStatus.RUNNING)
# The engine's one task (``generation.tasks.run_advance``), for every kind of job.
RUN_TASK = "generation.tasks.run_advance"


@dataclass
class RunProgress:
    """One job of a batch (a generation run, a judge task) as the batch page shows it."""

    run: EngineJob
    percent: int
    tokens: int
    elapsed_seconds: int | None  # time workers spent on it, not waiting for one
    eta_seconds: int | None
    # Its next task is recorded but the broker could not take it yet (it will start
    # by itself when the workers are reachable).
    dispatch_pending: bool = False

    @property
    def active(self) -> bool:
        return self.run.status in ACTIVE

    @property
    def paused(self) -> bool:
        """An outage (Redis, the broker) stopped it; it tries again until ``run.waiting_until``."""
        return self.active and bool(self.run.waiting_for)


def stale_cutoff(stale_seconds: float | None = None) -> datetime:
    seconds = float(settings.GENERATION_STALE_SECONDS if stale_seconds is None else stale_seconds)
    return timezone.now() - timedelta(seconds=seconds)


def start_cutoff(start_seconds: float | None = None) -> datetime:
    seconds = float(settings.ENGINE_START_SECONDS if start_seconds is None else start_seconds)
    return timezone.now() - timedelta(seconds=seconds)


def stuck_filters(
    *, stale_seconds: float | None = None, start_seconds: float | None = None
) -> tuple[models.Q, models.Q]:
    """Active jobs whose heartbeat went stale, and active jobs no task took up in time."""
    stale = models.Q(status__in=ACTIVE, heartbeat_at__lt=stale_cutoff(stale_seconds))
    started_by = start_cutoff(start_seconds)
    unstarted = models.Q(status__in=ACTIVE, heartbeat_at__isnull=True) & (
        models.Q(dispatched_at__lt=started_by)
        | models.Q(dispatched_at__isnull=True, created_at__lt=started_by)
    )
    return stale, unstarted


def job_orphan_deadline(job: EngineJob) -> datetime:
    """When a stuck job fails if no worker comes back: its last sign of life (heartbeat,
    dispatch, creation) plus ENGINE_ORPHAN_SECONDS."""
    last: datetime = job.heartbeat_at or job.dispatched_at or job.created_at
    return last + timedelta(seconds=float(settings.ENGINE_ORPHAN_SECONDS))


def jobs_dispatch_pending(*, kind: str = "generation") -> set[int]:
    """Jobs of ``kind`` whose next task waits in the outbox (the broker was away)."""
    rows = TaskOutbox.objects.filter(task_name=RUN_TASK, sent_at__isnull=True).values_list("args", flat=True)
    return {int(args[0]) for args in rows if args and (args[2] if len(args) > 2 else "generation") == kind}


def runs_dispatch_pending() -> set[int]:
    """Runs whose next task waits in the outbox (the broker was away)."""
    return jobs_dispatch_pending(kind="generation")


def run_progress(run: EngineJob, now: datetime | None = None, pending: set[int] | None = None) -> RunProgress:
    now = now or timezone.now()
    total = run.calls_total or 0
    done = min(run.calls_done, total) if total else run.calls_done
    elapsed = int(run.active_seconds) if run.started_at else None
    eta = None
    if run.status in ACTIVE and elapsed is not None and done:
        eta = int(run.active_seconds / done * max(0, total - done))
    return RunProgress(
        run=run,
        percent=int(100 * done / total) if total else 0,
        tokens=run.prompt_tokens + run.completion_tokens,
        elapsed_seconds=elapsed,
        eta_seconds=eta,
        dispatch_pending=run.status in ACTIVE
        and run.pk in (runs_dispatch_pending() if pending is None else pending),
    )


@dataclass
class BatchProgress:
    """A batch of the LLM batch engine (generation or judge): its jobs, their counts by
    status, and the cost: calls, tokens, time in calls, time workers spent, wall time."""

    batch: EngineBatch
    runs: list[RunProgress]
    calls_done: int = 0
    calls_total: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    calls: int = 0  # provider calls stored (finished)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    call_seconds: float = 0.0
    active_seconds: float = 0.0
    wall_seconds: float | None = None  # first start to last end (or now)
    # With every worker gone: its stuck jobs, and when the first fails unless a worker returns.
    orphaned: int = 0
    orphan_deadline: datetime | None = None

    @property
    def active(self) -> bool:
        return any(p.active for p in self.runs)

    @property
    def percent(self) -> int:
        return int(100 * self.calls_done / self.calls_total) if self.calls_total else 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def total(self) -> int:
        return len(self.runs)

    @property
    def done(self) -> int:
        return sum(1 for p in self.runs if not p.active)

    @property
    def succeeded(self) -> int:
        return self.counts.get(RunStatus.SUCCEEDED, 0)

    @property
    def failed(self) -> int:
        return self.counts.get(RunStatus.FAILED, 0)

    @property
    def dispatch_pending(self) -> int:
        """How many of its jobs wait for the broker to take their next task."""
        return sum(1 for p in self.runs if p.dispatch_pending)

    @property
    def paused(self) -> list[RunProgress]:
        """Its jobs an outage paused, the nearest deadline first."""
        return sorted((p for p in self.runs if p.paused), key=lambda p: p.run.waiting_until or timezone.now())

    @property
    def eta_seconds(self) -> int | None:
        etas = [p.eta_seconds for p in self.runs if p.active and p.eta_seconds is not None]
        return max(etas) if etas else None


def engine_batch_progress(
    *, batch: EngineBatch, jobs: QuerySet[EngineJob], calls: QuerySet[models.Model], kind: str = "generation"
) -> BatchProgress:
    """The progress and cost of any engine batch: ``jobs`` its jobs, ``calls`` their
    stored calls (turns or judge calls: both keep tokens and latency)."""
    rows = list(jobs.order_by("id"))
    now = timezone.now()
    pending = jobs_dispatch_pending(kind=kind) if any(r.status in ACTIVE for r in rows) else set()
    progress = BatchProgress(batch=batch, runs=[run_progress(r, now, pending) for r in rows])
    progress.counts = {status.value: 0 for status in RunStatus}
    for row in rows:
        progress.calls_done += row.calls_done
        progress.calls_total += row.calls_total
        progress.counts[row.status] = progress.counts.get(row.status, 0) + 1
        progress.active_seconds += row.active_seconds
    cost = calls.aggregate(
        n=Count("id"),
        prompt=Sum("prompt_tokens"),
        completion=Sum("completion_tokens"),
        latency=Sum("latency_ms"),
    )
    progress.calls = cost["n"]
    progress.prompt_tokens = cost["prompt"] or 0
    progress.completion_tokens = cost["completion"] or 0
    progress.call_seconds = (cost["latency"] or 0) / 1000
    starts = [r.started_at for r in rows if r.started_at]
    if starts:
        ends = [r.finished_at or now for r in rows if r.started_at]
        progress.wall_seconds = (max(ends) - min(starts)).total_seconds()
    if progress.active and not workers_beating(queue=settings.CELERY_TASK_DEFAULT_QUEUE):
        stale, unstarted = stuck_filters()
        stuck = [job for job in jobs.filter(stale | unstarted) if job.pk not in pending]
        progress.orphaned = len(stuck)
        progress.orphan_deadline = min((job_orphan_deadline(job) for job in stuck), default=None)
    return progress


def batch_responses_without_pair(*, batch: GenerationBatch) -> list[str]:
    """The research IDs of the batch's generated responses that no rater pair scores
    (their scenario and condition have no pair), for the batch page to say so."""
    research_ids = list(
        GenerationRun.objects.filter(batch=batch, response__isnull=False).values_list(
            "response__research_id", flat=True
        )
    )
    return responses_without_pair(study=batch.study, research_ids=research_ids) if research_ids else []


def batch_progress(batch: GenerationBatch) -> BatchProgress:
    jobs = GenerationRun.objects.filter(batch=batch).select_related(
        "scenario", "endpoint", "condition", "response"
    )
    return engine_batch_progress(
        batch=batch, jobs=jobs, calls=Turn.objects.filter(run__batch=batch, error="")
    )


def batch_held_count(batch: GenerationBatch) -> int:
    """How many of the batch's responses wait on the review gate (held, not withdrawn)."""
    return (
        GenerationRun.objects.filter(batch=batch, response__held=True)
        .exclude(response__status=ResponseStatus.WITHDRAWN)
        .count()
    )


BATCHES_PER_PAGE = 50


def batches_listed(*, filters: dict[str, Any], page: str | None = None) -> Page[GenerationBatch]:
    """One page of the generation batches, newest first: of a study, with a run of a model
    endpoint, a condition or a scenario whose code contains the text, in a status."""
    rows = GenerationBatch.objects.all()
    if filters.get("study"):
        rows = rows.filter(study=filters["study"])
    if filters.get("status"):
        rows = rows.filter(status=filters["status"])
    by_run = {
        lookup: filters[key]
        for key, lookup in (
            ("endpoint", "endpoint"),
            ("condition", "condition"),
            ("scenario", "scenario__code__icontains"),
        )
        if filters.get(key)
    }
    if by_run:
        rows = rows.filter(pk__in=GenerationRun.objects.filter(**by_run).values("batch_id"))
    # the counts are read by the page's template
    counted: QuerySet[GenerationBatch] = rows.select_related("study", "created_by").annotate(
        n_runs=Count("runs"),
        n_succeeded=Count("runs", filter=Q(runs__status=RunStatus.SUCCEEDED)),
        n_failed=Count("runs", filter=Q(runs__status=RunStatus.FAILED)),
    )
    return Paginator(counted.order_by("-created_at", "-pk"), BATCHES_PER_PAGE).get_page(page)


@dataclass
class TranscriptStep:
    number: int
    turns: list[Turn]


def run_transcript(run: GenerationRun) -> list[TranscriptStep]:
    """The run's turns grouped by step (0 = warm-up), in call order."""
    steps: list[TranscriptStep] = []
    for turn in Turn.objects.filter(run=run).defer("messages").order_by("seq"):
        if not steps or steps[-1].number != turn.step:
            steps.append(TranscriptStep(turn.step, []))
        steps[-1].turns.append(turn)
    return steps


@dataclass
class FusionIteration:
    """TeamFusion's two measures for one deliverable (one step, one iteration): each
    proxy's ratings, the mean representation, and the consensus strength (the mean of
    the proxies' consensus ratings). Unreadable ratings are None and left out of the means."""

    step: int
    iteration: int
    ratings: list[tuple[str, int | None, int | None]]  # (member, representation, consensus)

    @staticmethod
    def _mean(values: list[int | None]) -> float | None:
        known = [v for v in values if v is not None]
        return round(sum(known) / len(known), 2) if known else None

    @property
    def representation(self) -> float | None:
        return self._mean([r for _, r, _ in self.ratings])

    @property
    def consensus_strength(self) -> float | None:
        return self._mean([c for _, _, c in self.ratings])


def run_fusion_measures(run: GenerationRun) -> list[FusionIteration]:
    """Per step and iteration, the proxies' ratings of a TeamFusion run (empty for the
    other strategies), read from its persisted rating turns."""
    if run.settings_snapshot.get("strategy") != "teamfusion":
        return []
    rows: dict[tuple[int, int], FusionIteration] = {}
    turns = Turn.objects.filter(run=run, phase__startswith=RATING_PHASE + " ", error="").order_by("seq")
    for step, phase, role, reply in turns.values_list("step", "phase", "role", "reply"):
        iteration = int(phase.rsplit(" ", 1)[1])
        row = rows.setdefault((step, iteration), FusionIteration(step, iteration, []))
        row.ratings.append((role, *rating_values(reply)))
    return list(rows.values())


ENDPOINTS_PER_PAGE = 50
CONDITIONS_PER_PAGE = 50


def _base_url_host() -> Case:
    """The host of an endpoint's base URL, its port included: what lies between "://" and the
    next "/" (the whole rest when no "/" follows)."""
    rest = Substr("base_url", StrIndex("base_url", Value("://")) + 3)
    slash = StrIndex(rest, Value("/"))
    return Case(When(GreaterThan(slash, 0), then=Substr(rest, 1, slash - 1)), default=rest)


def endpoints_overview(*, search: str = "", active: bool | None = None, page: str | None = None) -> Page[Any]:
    """One page of the model endpoints whose name, model or base URL's host contains ``search``
    (any case), active or not, with how many responses and runs each has; by model number."""
    endpoints = ModelEndpoint.objects.all()
    if search:
        endpoints = endpoints.annotate(host=_base_url_host()).filter(
            Q(name__icontains=search) | Q(model_name__icontains=search) | Q(host__icontains=search)
        )
    if active is not None:
        endpoints = endpoints.filter(is_active=active)
    counted = endpoints.annotate(
        n_responses=Count("responses", distinct=True), n_runs=Count("runs", distinct=True)
    ).order_by("model_number")
    return Paginator(counted, ENDPOINTS_PER_PAGE).get_page(page)


def conditions_overview(*, search: str = "", page: str | None = None) -> Page[Any]:
    """One page of the conditions whose letter or name contains ``search`` (any case), with how
    many responses each has; by letter."""
    conditions = Condition.objects.all()
    if search:
        conditions = conditions.filter(Q(letter__icontains=search) | Q(name__icontains=search))
    counted = conditions.annotate(n_responses=Count("responses")).order_by("letter")
    return Paginator(counted, CONDITIONS_PER_PAGE).get_page(page)


# --- figures for the metrics endpoint (read at scrape time, from what the calls stored) ---


@dataclass(frozen=True)
class CallTotals:
    """The stored provider calls of one endpoint (of one kind of job), since ever."""

    endpoint: str
    calls: int  # calls that answered
    failed: int  # calls that failed after their retries
    attempts: int  # provider attempts of those calls (retries = attempts - calls - failed)
    prompt_tokens: int
    completion_tokens: int
    rate_limited: int  # attempts the provider answered HTTP 429
    wait_seconds: float  # waited before answers: pacing and retry backoff
    call_seconds: float  # time in the calls that answered

    @property
    def retries(self) -> int:
        return max(0, self.attempts - self.calls - self.failed)


@dataclass(frozen=True)
class EngineFigures:
    """One kind of engine job (generation runs, judge tasks): its calls per endpoint, its
    jobs by status, the time its finished jobs took (first start to end) and the time
    workers spent on its jobs per endpoint."""

    kind: str
    calls: list[CallTotals]
    jobs_by_status: dict[str, int]
    # status -> (jobs, seconds from first start to end), finished jobs that started
    durations: dict[str, tuple[int, float]]
    worker_seconds: dict[str, float]


def engine_figures(
    *,
    kind: str,
    jobs: QuerySet[EngineJob],
    calls: QuerySet[models.Model],
    endpoint: str,
    call_endpoint: str,
    attempts: str = "provider_attempts",
    failed: Q | None = None,
) -> EngineFigures:
    """``endpoint`` and ``call_endpoint``: the lookups from a job and from a call to the
    endpoint's name; ``attempts``: the call's field of provider attempts; ``failed``: which
    stored calls failed (None: every stored call answered, as a judge's)."""
    answered = ~failed if failed is not None else Q()
    sums = {
        "n": Count("id", filter=answered),
        "attempts_sum": Sum(attempts),
        "prompt": Sum("prompt_tokens"),
        "completion": Sum("completion_tokens"),
        "limited": Sum("rate_limited"),
        "wait": Sum("wait_ms"),
        "latency": Sum("latency_ms", filter=answered),
    }
    if failed is not None:
        sums["n_failed"] = Count("id", filter=failed)
    rows = calls.values(call_endpoint).annotate(**sums).order_by(call_endpoint)
    totals = [
        CallTotals(
            endpoint=row[call_endpoint],
            calls=row["n"],
            failed=row.get("n_failed", 0),
            attempts=row["attempts_sum"] or 0,
            prompt_tokens=row["prompt"] or 0,
            completion_tokens=row["completion"] or 0,
            rate_limited=row["limited"] or 0,
            wait_seconds=(row["wait"] or 0) / 1000,
            call_seconds=(row["latency"] or 0) / 1000,
        )
        for row in rows
    ]
    by_status = dict(
        jobs.values("status").annotate(n=Count("id")).order_by("status").values_list("status", "n")
    )
    took = ExpressionWrapper(F("finished_at") - F("started_at"), output_field=DurationField())
    durations = {
        row["status"]: (row["n"], row["took"].total_seconds() if row["took"] else 0.0)
        for row in jobs.filter(finished_at__isnull=False, started_at__isnull=False)
        .values("status")
        .annotate(n=Count("id"), took=Sum(took))
        .order_by("status")
    }
    worker = {
        row[endpoint]: row["seconds"] or 0.0
        for row in jobs.values(endpoint).annotate(seconds=Sum("active_seconds")).order_by(endpoint)
    }
    return EngineFigures(
        kind=kind, calls=totals, jobs_by_status=by_status, durations=durations, worker_seconds=worker
    )


def generation_figures() -> EngineFigures:
    """Generation runs and their turns (a failed turn is a call that failed after its retries)."""
    return engine_figures(
        kind="generation",
        jobs=GenerationRun.objects.all(),
        calls=Turn.objects.all(),
        endpoint="endpoint__name",
        call_endpoint="run__endpoint__name",
        attempts="attempts",
        failed=~Q(error=""),
    )


def study_role_terms(study: Study) -> list[BlindTerm]:
    """The names generation gives a study's agents, for the review gate's blind-text check
    (registered with ``studies.blind_text`` by ``generation.receivers``): the strategies'
    roles, the study's member profiles and the members its conditions name themselves."""
    names = strategy_role_names()
    terms = [BlindTerm(name, ROLE) for name in names]
    terms += [BlindTerm(zh, ROLE) for name in names for zh in ROLE_NAMES_ZH.get(name, ())]
    profiles = list(PreferenceProfile.objects.filter(study=study).values_list("name", flat=True))
    for condition in list(study.conditions.all()) or list(Condition.objects.all()):
        for member in (condition.parameters or {}).get("profiles") or []:
            if isinstance(member, dict) and isinstance(member.get("name"), str):
                profiles.append(member["name"])
    return terms + [BlindTerm(name, PROFILE) for name in dict.fromkeys(profiles)]
