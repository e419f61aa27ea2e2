"""Launching generation batches, and the admin's actions on batches and runs
(cancel, retry). How a run then executes is in ``runs``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils.translation import gettext as _

from generation.models import GenerationBatch, GenerationRun, PreferenceProfile, RunStatus
from generation.services import engine
from generation.services.runs import ACTIVE, GENERATION_KIND, RunEnqueue, run_enqueue, run_resume
from generation.strategies import ParameterError, protocol_length, resolve_params
from studies.models import Condition, ModelEndpoint, Response, ResponseStatus, Scenario, Study, TaskKind
from studies.selectors import study_conditions_offered, study_endpoints_offered
from studies.services.audit import audit_record
from studies.services.responses import research_id_for
from studies.services.review import response_research_id_release

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class BatchError(Exception):
    """The batch cannot be launched; nothing was created."""


@dataclass
class BatchLaunch:
    batch: GenerationBatch
    runs: list[GenerationRun]
    skipped: list[str] = field(default_factory=list)


TOP_P_PAPER, TOP_P_AS_RELEASED = "paper", "as_released"


def run_settings(
    *, study: Study, scenario: Scenario, condition: Condition, top_p: str = TOP_P_PAPER
) -> dict[str, Any]:
    """The frozen settings of a new run: everything its protocol depends on, and the
    batch's top_p choice (the paper's 0.9, or none sent as in the release's code)."""
    profiles = None
    if condition.strategy == "teamfusion" and "profiles" not in (condition.parameters or {}):
        profiles = [
            {"name": p.name, "preferences": p.preferences}
            for p in PreferenceProfile.objects.filter(study=study, is_active=True)
        ]
        if len(profiles) < 2:
            raise ParameterError(
                _(
                    "TeamFusion needs at least two active member profiles in this study; "
                    "enter them on the study's member profiles page."
                )
            )
    params = resolve_params(
        strategy=condition.strategy,
        overrides=condition.parameters or {},
        language=study.response_language,
        profiles=profiles,
        top_p_as_released=top_p == TOP_P_AS_RELEASED,
        kind=study.task_kind,
    )
    return {
        "strategy": condition.strategy,
        "params": params,
        "scenario_text": scenario.text,
        "task_kind": study.task_kind,
        "top_p": top_p,
    }


def batch_create(
    *,
    study: Study,
    scenarios: Iterable[Scenario],
    endpoints: Iterable[ModelEndpoint],
    conditions: Iterable[Condition],
    enqueue: RunEnqueue,
    name: str = "",
    created_by: User | None = None,
    top_p: str = TOP_P_PAPER,
    regenerate_withdrawn: bool = False,
) -> BatchLaunch:
    """A batch of scenarios x endpoints x conditions, each run enqueued on commit
    through ``enqueue`` (``generation.tasks.run_advance_send``).

    ``top_p`` is ``"paper"`` (0.9, the default) or ``"as_released"`` (none sent),
    recorded in every run's settings. Combinations whose research ID already has a
    response in the study, or a run that is active or succeeded, are skipped (and
    reported); with ``regenerate_withdrawn``, one whose response was withdrawn is run
    again, the withdrawn response giving up its ID (``A05_FS10~W1``). Raises
    :class:`BatchError` when nothing is left to run or a setting is unusable."""
    scenarios, endpoints, conditions = list(scenarios), list(endpoints), list(conditions)
    if top_p not in (TOP_P_PAPER, TOP_P_AS_RELEASED):
        raise BatchError(_("Unknown top_p choice."))
    if study.task_kind == TaskKind.PAIR:
        raise BatchError(
            _("A pairwise study generates nothing: its pairs are built from the responses of %(source)s.")
            % {"source": study.pairs_from.name if study.pairs_from else "?"}
        )
    if not (scenarios and endpoints and conditions):
        raise BatchError(_("Choose at least one scenario, one model endpoint and one condition."))
    # one rule for the page, the API and `generate`: what the study chose (its catalogue)
    offered = set(study_endpoints_offered(study=study).values_list("pk", flat=True))
    outside = [e.name for e in endpoints if e.pk not in offered]
    if outside:
        raise BatchError(
            _(
                "The study did not choose the model endpoint(s) %(names)s (its page, Choose models and conditions)."
            )
            % {"names": ", ".join(outside)}
        )
    letters = set(study_conditions_offered(study=study).values_list("letter", flat=True))
    outside = [c.letter for c in conditions if c.letter not in letters]
    if outside:
        raise BatchError(
            _(
                "The study did not choose the condition(s) %(letters)s (its page, Choose models and conditions)."
            )
            % {"letters": ", ".join(outside)}
        )
    for endpoint in endpoints:
        if not endpoint.can_generate or not endpoint.is_active:
            raise BatchError(
                _(
                    "Model endpoint “%(name)s” is inactive or has no base URL and model name; "
                    "configure it first."
                )
                % {"name": endpoint.name}
            )
    with transaction.atomic():
        skipped: list[str] = []
        planned = []
        withdrawn: list[Response] = []  # give up their research IDs once the batch is sure
        for scenario in scenarios:
            for endpoint in endpoints:
                for condition in conditions:
                    rid = research_id_for(condition=condition, model=endpoint, scenario=scenario)
                    existing = (
                        Response.objects.select_for_update().filter(study=study, research_id=rid).first()
                    )
                    if existing is not None and existing.status != ResponseStatus.WITHDRAWN:
                        skipped.append(
                            _("%(rid)s: a response with this research ID exists in the study") % {"rid": rid}
                        )
                        continue
                    if existing is not None and not regenerate_withdrawn:
                        skipped.append(
                            _(
                                "%(rid)s: its response was withdrawn; choose “Generate withdrawn "
                                "responses again” to run it anew"
                            )
                            % {"rid": rid}
                        )
                        continue
                    if (
                        GenerationRun.objects.filter(
                            study=study,
                            scenario=scenario,
                            endpoint=endpoint,
                            condition=condition,
                            status__in=[*ACTIVE, RunStatus.SUCCEEDED],
                        )
                        .exclude(response__status=ResponseStatus.WITHDRAWN)
                        .exists()
                    ):
                        skipped.append(
                            _("%(rid)s: a run for it is already queued, running or done") % {"rid": rid}
                        )
                        continue
                    try:
                        snapshot = run_settings(
                            study=study, scenario=scenario, condition=condition, top_p=top_p
                        )
                    except ParameterError as exc:
                        raise BatchError(
                            _("Condition %(letter)s: %(error)s") % {"letter": condition.letter, "error": exc}
                        ) from exc
                    snapshot["research_id"] = rid
                    planned.append((scenario, endpoint, condition, snapshot))
                    if existing is not None:
                        withdrawn.append(existing)
        if not planned:
            raise BatchError(_("Nothing to run.") + " " + " ".join(skipped))
        for response in withdrawn:
            response_research_id_release(response=response, actor=created_by)
        batch = GenerationBatch.objects.create(study=study, name=name, created_by=created_by)
        runs = []
        audit_record(
            actor=created_by,
            action="generation.batch_launch",
            target=batch,
            study=study,
            changes={"runs": [p[3]["research_id"] for p in planned], "top_p": top_p},
        )
        for scenario, endpoint, condition, snapshot in planned:
            run = GenerationRun.objects.create(
                batch=batch,
                study=study,
                scenario=scenario,
                endpoint=endpoint,
                condition=condition,
                settings_snapshot=snapshot,
                calls_total=protocol_length(
                    strategy=snapshot["strategy"], params=snapshot["params"], kind=snapshot["task_kind"]
                ),
            )
            runs.append(run)
            run_enqueue(enqueue=enqueue, run_id=run.pk, seq=0)
    return BatchLaunch(batch=batch, runs=runs, skipped=skipped)


def _audited(*, actor: User | None, action: str, target: GenerationRun | GenerationBatch, count: int) -> None:
    if count:
        audit_record(actor=actor, action=action, target=target, study=target.study, changes={"runs": count})


def run_retry(*, run_id: int, enqueue: RunEnqueue, actor: User | None = None) -> bool:
    """Resume a failed or cancelled run from its last completed turn, or re-kick an
    active one whose task was lost (a duplicate task is harmless: it finds the call
    done and stops). Succeeded runs are left alone."""
    run = GenerationRun.objects.select_related("study").filter(pk=run_id).first()
    if run is None or run.status == RunStatus.SUCCEEDED:
        return False
    with transaction.atomic():
        resumed = run_resume(run_id=run_id, enqueue=enqueue)
        _audited(actor=actor, action="generation.run_retry", target=run, count=int(resumed))
    return resumed


def run_cancel(*, run_id: int, actor: User | None = None) -> bool:
    """Stop a queued or running run. A call in flight still completes and is kept."""
    with transaction.atomic():
        cancelled = engine.job_cancel(kind=GENERATION_KIND, job_id=run_id)
        run = GenerationRun.objects.select_related("study").filter(pk=run_id).first()
        if run is not None:
            _audited(actor=actor, action="generation.run_cancel", target=run, count=int(cancelled))
    return cancelled


def batch_cancel(*, batch_id: int, actor: User | None = None) -> int:
    with transaction.atomic():
        count = engine.batch_cancel(kind=GENERATION_KIND, batch_id=batch_id)
        batch = GenerationBatch.objects.select_related("study").get(pk=batch_id)
        _audited(actor=actor, action="generation.batch_cancel", target=batch, count=count)
    return count


def batch_retry_failed(*, batch_id: int, enqueue: RunEnqueue, actor: User | None = None) -> int:
    """Resume every failed (and cancelled) run of the batch."""
    with transaction.atomic():
        count = engine.batch_retry(kind=GENERATION_KIND, batch_id=batch_id, enqueue=enqueue)
        batch = GenerationBatch.objects.select_related("study").get(pk=batch_id)
        _audited(actor=actor, action="generation.batch_retry", target=batch, count=count)
    return count
