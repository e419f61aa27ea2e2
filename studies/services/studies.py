"""Creating a study from a template: the TeamLLM release's set-up, or an empty study."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from studies.condition_labels import CGPST_DESCRIPTION
from studies.models import Condition, FinalScoreRule, HeadlineICC, ModelEndpoint, Study, TaskKind
from studies.rubric import DEFAULT_RUBRIC_VERSION, available_rubric_versions
from studies.rubric.cgpst import version_is_cgpst
from studies.services.audit import audit_changes, audit_record
from studies.services.roles import role_groups_ensure
from studies.services.scenarios import released_scenario_records, scenarios_import
from studies.services.setup import conditions_ensure_defaults, endpoints_ensure_paper_models

if TYPE_CHECKING:
    from django.contrib.auth.models import User

CGPST_RELEASE = "cgpst-release"
EMPTY = "empty"
# The key stays "cgpst-release" (commands and scripts use it); the name and the description
# say which parts are the release's and which are the product's reading.
STUDY_TEMPLATES = {
    CGPST_RELEASE: gettext_lazy(
        "CGPST (TeamLLM): the release's scenario, prompts, models and threshold; "
        "the final-score rule after calibration is our reading"
    ),
    EMPTY: gettext_lazy("Empty study"),
}
TEMPLATE_DESCRIPTIONS = {CGPST_RELEASE: gettext_lazy(CGPST_DESCRIPTION)}
# What the paper used (the threshold is the release's 0.65; the paper's text says 0.70).
RELEASE_SETTINGS = {
    "rubric_version": DEFAULT_RUBRIC_VERSION,
    "agreement_threshold": Decimal("0.650"),
    "headline_icc": HeadlineICC.ICC3K,
    "final_score_rule": FinalScoreRule.CALIBRATOR_AND_CLOSER,
    "response_language": Study.Language.CHINESE,
}


MAX_NAME = 120  # Study.name
DEMO_STUB_ENDPOINT = "stub"  # seed_demo's endpoint on the bundled LLM stub


class StudySetupError(Exception):
    pass


# The CGPST rubric reads a CGPST response's steps (its items, its Step-5 grid).
CGPST_RUBRIC_REFUSED = gettext_lazy(
    "The CGPST rubric scores the six steps of a CGPST task: a single-text or pairwise study takes another "
    "rubric, such as likert-hhh-v1, pairwise-preference-v1 or one of your own."
)
TASK_DEFAULT_RUBRICS: dict[str, str] = {
    TaskKind.TEXT: "likert-hhh-v1",
    TaskKind.PAIR: "pairwise-preference-v1",
}


def _task_checked(*, task_kind: str, template: str, rubric_version: str, pairs_from: Study | None) -> str:
    """The rubric a new study of ``task_kind`` takes (the task's own when none is named); raises
    StudySetupError for a task, template, rubric and source that do not go together."""
    if task_kind and task_kind not in TaskKind.values:
        raise StudySetupError(
            _("Unknown task %(t)r (choose %(known)s).")
            % {"t": task_kind[:20], "known": ", ".join(TaskKind.values)}
        )
    if task_kind in (TaskKind.TEXT, TaskKind.PAIR):
        if template != EMPTY:
            raise StudySetupError(
                _(
                    "The CGPST template's scenario is a six-step task: a single-text or pairwise study "
                    "starts empty."
                )
            )
        rubric_version = rubric_version or TASK_DEFAULT_RUBRICS[task_kind]
        if version_is_cgpst(rubric_version):
            raise StudySetupError(str(CGPST_RUBRIC_REFUSED))
    if (task_kind == TaskKind.PAIR) != (pairs_from is not None):
        raise StudySetupError(
            _("A pairwise study compares the responses of a single-text study: choose that study.")
            if pairs_from is None
            else _("Only a pairwise study takes its responses from another study.")
        )
    if pairs_from is not None and pairs_from.task_kind != TaskKind.TEXT:
        raise StudySetupError(
            _("%(name)s is not a single-text study: a pairwise study compares one-text responses.")
            % {"name": pairs_from.name}
        )
    return rubric_version


def study_create(
    *,
    name: str,
    template: str,
    description: str = "",
    response_language: str = "",
    rubric_version: str = "",
    task_kind: str = "",
    pairs_from: Study | None = None,
    actor: User | None = None,
) -> Study:
    """A new study. ``cgpst-release``: the release's public scenario FS10, the paper's ten
    models and the standard conditions (installation-wide, created when missing), and the
    study's rubric version, threshold 0.65, headline ICC3k and final-score rule. ``empty``:
    the default settings and nothing else. ``response_language`` (``zh`` or ``en``) is the
    language the generation prompts ask for; empty: the template's (the release's Chinese).
    ``rubric_version``: one of the shipped rubrics (``studies/rubric/``); empty: ``cgpst-v1``.
    ``task_kind``: ``cgpst`` (six steps on a scenario, the default) or ``text`` (one prompt, one
    text: an empty study only, the release template's scenario being a CGPST task; its rubric
    ``likert-hhh-v1`` unless another non-CGPST one is named), or ``pair`` (two texts, one
    preference: ``pairs_from`` names the single-text study whose responses it compares; rubric
    ``pairwise-preference-v1``); fixed."""
    name = name.strip()
    rubric_version = _task_checked(
        task_kind=task_kind, template=template, rubric_version=rubric_version, pairs_from=pairs_from
    )
    if response_language and response_language not in Study.Language.values:
        raise StudySetupError(
            _("Unknown response language %(l)r (choose %(known)s).")
            % {"l": response_language, "known": ", ".join(Study.Language.values)}
        )
    if rubric_version and rubric_version not in available_rubric_versions():
        raise StudySetupError(
            _("Unknown rubric %(r)r (choose %(known)s).")
            % {"r": rubric_version[:60], "known": ", ".join(available_rubric_versions())}
        )
    if not name:
        raise StudySetupError(_("A study needs a name."))
    if len(name) > MAX_NAME:
        raise StudySetupError(_("The name is too long (at most 120 characters)."))
    if template not in STUDY_TEMPLATES:
        raise StudySetupError(
            _("Unknown template %(t)r (choose %(known)s).")
            % {"t": template, "known": ", ".join(STUDY_TEMPLATES)}
        )
    with transaction.atomic():
        if Study.objects.filter(name__iexact=name).exists():
            raise StudySetupError(_("A study named %(name)r already exists.") % {"name": name})
        role_groups_ensure()
        # what the caller chose over the template's
        chosen: dict[str, object] = {"response_language": response_language} if response_language else {}
        chosen |= {"rubric_version": rubric_version} if rubric_version else {}
        chosen |= {"task_kind": task_kind} if task_kind else {}
        chosen |= {"pairs_from": pairs_from} if pairs_from is not None else {}
        if template == EMPTY:
            study = Study.objects.create(name=name, description=description, **chosen)
            _study_created(study=study, template=template, actor=actor)
            return study
        conditions = conditions_ensure_defaults()
        endpoints = endpoints_ensure_paper_models()
        study = Study.objects.create(
            name=name,
            description=description or str(TEMPLATE_DESCRIPTIONS[CGPST_RELEASE]),
            **{**RELEASE_SETTINGS, **chosen},
        )
        scenarios_import(
            study=study, records=released_scenario_records(), actor=actor, source_name=CGPST_RELEASE
        )
        # the template's models and conditions are the study's choice, shown on its page
        if settings.DEMO_MODE:  # `make run`: the bundled stub too, so that generation works at once
            endpoints = [*endpoints, *ModelEndpoint.objects.filter(name=DEMO_STUB_ENDPOINT)]
        study.endpoints.set(endpoints)
        study.conditions.set(conditions)
        _study_created(study=study, template=template, actor=actor)
    return study


def _study_created(*, study: Study, template: str, actor: User | None) -> None:
    audit_record(
        actor=actor,
        action="study.create",
        target=study,
        study=study,
        changes={
            "name": [None, study.name],
            "template": [None, template],
            "response_language": [None, study.response_language],
            "rubric_version": [None, study.rubric_version],
            "task_kind": [None, study.task_kind],
            "pairs_from": [None, study.pairs_from.name if study.pairs_from else None],
        },
    )


STUDY_SETTINGS_FIELDS = ("name", "description", "response_language", "is_active", "responses_need_release")


def study_settings_update(
    *,
    study_id: int,
    actor: User | None,
    name: str,
    description: str,
    response_language: str,
    is_active: bool,
    responses_need_release: bool | None = None,
) -> Study:
    """Change a study's name, description, response language (of runs launched from now
    on), whether it is active and whether its generated responses need release (the
    review gate, for responses arriving from now on; None: unchanged); records
    ``{field: [old, new]}``. Raises StudySetupError."""
    name = (name or "").strip()
    if not name:
        raise StudySetupError(_("A study needs a name."))
    if len(name) > MAX_NAME:
        raise StudySetupError(_("The name is too long (at most 120 characters)."))
    if response_language not in Study.Language.values:
        raise StudySetupError(_("Unknown language."))
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study_id)
        if Study.objects.filter(name__iexact=name).exclude(pk=study.pk).exists():
            raise StudySetupError(_("A study named %(name)r already exists.") % {"name": name})
        before = {field: getattr(study, field) for field in STUDY_SETTINGS_FIELDS}
        after = {
            "name": name,
            "description": description or "",
            "response_language": response_language,
            "is_active": bool(is_active),
            "responses_need_release": (
                study.responses_need_release
                if responses_need_release is None
                else bool(responses_need_release)
            ),
        }
        changes = audit_changes(before=before, after=after)
        if changes:
            for field, value in after.items():
                setattr(study, field, value)
            study.save(update_fields=list(STUDY_SETTINGS_FIELDS))
            audit_record(actor=actor, action="study.settings", target=study, study=study, changes=changes)
    return study


def study_catalogue_set(
    *,
    study_id: int,
    actor: User | None,
    endpoints: Iterable[ModelEndpoint],
    conditions: Iterable[Condition],
) -> Study:
    """Choose the study's model endpoints and conditions from the installation's catalogue:
    what its generation, assignment and response pages offer. Records
    ``{"endpoints"|"conditions": [old, new]}`` (names and letters, sorted) when it changed."""
    endpoint_list, condition_list = list(endpoints), list(conditions)
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study_id)
        before = {
            "endpoints": sorted(str(e) for e in study.endpoints.all()),
            "conditions": sorted(c.letter for c in study.conditions.all()),
        }
        after = {
            "endpoints": sorted(str(e) for e in endpoint_list),
            "conditions": sorted(c.letter for c in condition_list),
        }
        changes = audit_changes(before=before, after=after)
        if changes:
            study.endpoints.set(endpoint_list)
            study.conditions.set(condition_list)
            audit_record(actor=actor, action="study.catalogue", target=study, study=study, changes=changes)
    return study
