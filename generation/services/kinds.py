"""The kinds of job of the LLM batch engine (``generation.services.engine``): what a kind
says about its jobs, the registry, and the heartbeat of the jobs a process works on.

A kind is registered when its app is ready (``receivers`` of generation and judging).
The lease keeper beats plain ints: a generation run beats under its own id, a job of
another kind under a negative number that says which kind it is.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from django.db import models
from django.utils import timezone

from core.llm.client import Completion
from generation.models import EngineBatch, EngineJob
from generation.strategies.base import Call
from studies.models import ModelEndpoint

JobProtocol = Generator[Call, str, Any]


class Kind:
    """A kind of job. Subclasses set the class attributes and implement the hooks."""

    name: str = ""
    code: int = 0  # tells its heartbeat tokens apart from the other kinds' (see beat_token)
    job_model: type[EngineJob]
    batch_model: type[EngineBatch]
    lock_prefix: str = ""
    lock_wait: float = 10.0

    def job_get(self, job_id: int) -> EngineJob | None:
        raise NotImplementedError

    def protocol(self, job: Any) -> JobProtocol:
        raise NotImplementedError

    def replies(self, job: Any) -> tuple[dict[int, str], dict[int, tuple[Any, ...]], dict[int, int]]:
        """The stored replies by seq, what each stored call was (checked against the
        replayed protocol) and, for calls that failed, how many attempts they took."""
        raise NotImplementedError

    def endpoint(self, job: Any) -> ModelEndpoint:
        raise NotImplementedError

    def call_store(self, job: Any, call: Call, completion: Completion, earlier_attempts: int) -> None:
        """Store a finished call (inside the engine's transaction); IntegrityError when
        another task stored it first."""
        raise NotImplementedError

    def call_failed(self, job: Any, call: Call, error: str, attempts: int) -> str:
        """Record a call the provider failed; returns the job's error message."""
        raise NotImplementedError

    def finish(self, job_id: int, value: Any) -> None:
        """Turn the protocol's result into the job's product and end the job (once)."""
        raise NotImplementedError

    def before_retry(self, job: Any) -> None:
        """What a person's retry of a failed job does first (nothing by default)."""

    def batch_finished(self, batch_id: int) -> None:
        """What follows the end of a batch, in the transaction that ends it (nothing by default;
        work that must follow the commit goes through the outbox)."""

    def lock_wait_seconds(self) -> float:
        """How long a task waits for the job's lock before leaving the job to its holder."""
        return self.lock_wait

    def lock_key(self, job_id: int) -> str:
        return f"{self.lock_prefix}:{job_id}"

    @property
    def jobs(self) -> models.Manager[Any]:  # of ``job_model``, a concrete EngineJob
        return self.job_model._default_manager


_kinds: dict[str, Kind] = {}


def kind_register(kind: Kind) -> Kind:
    """Make a kind known to the engine (generation here; judging when its app is ready)."""
    _kinds[kind.name] = kind
    return kind


def kind_get(name: str) -> Kind:
    return _kinds[name]


def kinds() -> list[Kind]:
    return list(_kinds.values())


# --- heartbeat tokens: the keeper holds plain ints ------------------------------------


def beat_token(kind: Kind, job_id: int) -> int:
    """Generation runs beat under their own id; other kinds under a negative number."""
    return job_id if kind.code == 0 else -(job_id * 16 + kind.code)


def _beat_untoken(token: int) -> tuple[int, int]:
    if token >= 0:
        return 0, token
    return (-token) % 16, (-token) // 16


def jobs_heartbeat(*, run_ids: list[int]) -> None:
    """The keeper's beat for the jobs this process works on (never revives a cleared beat)."""
    by_code: dict[int, list[int]] = {}
    for token in run_ids:
        code, job_id = _beat_untoken(token)
        by_code.setdefault(code, []).append(job_id)
    now = timezone.now()
    for kind in kinds():
        if by_code.get(kind.code):
            kind.jobs.filter(pk__in=by_code[kind.code], heartbeat_at__isnull=False).update(heartbeat_at=now)
