"""Creating LLM judges: a judge is a model endpoint plus a prompt version, and holds
its sheets as its own non-human rater (an inactive user that cannot log in)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _

from judging.models import Judge
from judging.prompt import CURRENT_PROMPT_VERSION, UnknownPromptVersion, prompt_versions
from scoring.models import RaterProfile
from studies.models import ModelEndpoint
from studies.services.audit import audit_changes, audit_record

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class JudgeError(ValueError):
    """A judge cannot be created as asked; the message is for the user."""


def _free_rater_code() -> str:
    taken = set(RaterProfile.objects.filter(rater_code__startswith="J").values_list("rater_code", flat=True))
    number = 1
    while f"J{number:02d}" in taken:
        number += 1
    return f"J{number:02d}"


def judge_create(
    *,
    name: str,
    endpoint: ModelEndpoint,
    prompt_version: str = CURRENT_PROMPT_VERSION,
    temperature: float = 0.0,
    samples: int = 1,
    structured_output: bool = True,
    provider_family: str = "",
    actor: User | None = None,
) -> Judge:
    """A judge with its rater: user ``judge-<name>`` (inactive, unusable password) and a
    rater profile with the next free code J01, J02, ...; audited (``judge.create``)."""
    name = (name or "").strip()
    if not name:
        raise JudgeError(_("Give the judge a name."))
    if prompt_version not in prompt_versions():
        raise JudgeError(_("Unknown prompt version %(v)s.") % {"v": prompt_version})
    if not 0 <= temperature <= 2:
        raise JudgeError(_("The temperature must be between 0 and 2."))
    if not 1 <= samples <= 10:
        raise JudgeError(_("Samples per response must be between 1 and 10."))
    if not endpoint.base_url:
        raise JudgeError(_("Endpoint %(name)s has no base URL.") % {"name": endpoint.name})
    if Judge.objects.filter(name=name).exists():
        raise JudgeError(_("A judge named %(name)s exists already.") % {"name": name})
    user_model = get_user_model()
    username = f"judge-{slugify(name)[:60] or 'llm'}"
    with transaction.atomic():
        base, n = username, 1
        while user_model.objects.filter(username=username).exists():
            n += 1
            username = f"{base}-{n}"
        user = user_model(username=username, is_active=False)
        user.set_unusable_password()
        user.save()
        profile = RaterProfile.objects.create(user=user, rater_code=_free_rater_code())
        judge = Judge.objects.create(
            name=name,
            endpoint=endpoint,
            user=user,
            prompt_version=prompt_version,
            temperature=temperature,
            samples=samples,
            structured_output=structured_output,
            provider_family=provider_family.strip(),
        )
        audit_record(
            actor=actor,
            action="judge.create",
            target=judge,
            changes={
                "name": [None, name],
                "endpoint": [None, endpoint.name],
                "prompt_version": [None, prompt_version],
                "account": [None, username],  # the judge's inactive rater account
                "rater_code": [None, profile.rater_code],
            },
        )
        return judge


def judge_for_endpoint(*, endpoint: ModelEndpoint, prompt_version: str = CURRENT_PROMPT_VERSION) -> Judge:
    """The active judge of this endpoint and prompt version, created on first use."""
    judge = Judge.objects.filter(endpoint=endpoint, prompt_version=prompt_version, is_active=True).first()
    if judge is not None:
        return judge
    try:
        return judge_create(
            name=f"{endpoint.name} ({prompt_version})", endpoint=endpoint, prompt_version=prompt_version
        )
    except UnknownPromptVersion as exc:
        raise JudgeError(str(exc)) from exc


# What an admin or researcher may change on a judge after creating it (the endpoint and
# prompt version define the judge: a different one is a new judge).
JUDGE_SETTINGS = ("temperature", "samples", "structured_output", "provider_family", "is_active")


def judge_update(*, judge: Judge, actor: User | None, **values: Any) -> Judge:
    """Change a judge's sampling settings, family or activity, audited. Batches keep the
    settings they were launched with."""
    unknown = set(values) - set(JUDGE_SETTINGS)
    if unknown:
        raise JudgeError(
            _("These judge settings cannot be changed: %(names)s.") % {"names": ", ".join(sorted(unknown))}
        )
    if "temperature" in values and not 0 <= values["temperature"] <= 2:
        raise JudgeError(_("The temperature must be between 0 and 2."))
    if "samples" in values and not 1 <= values["samples"] <= 10:
        raise JudgeError(_("Samples per response must be between 1 and 10."))
    if "provider_family" in values:
        values["provider_family"] = (values["provider_family"] or "").strip()
    with transaction.atomic():
        judge = Judge.objects.select_for_update().get(pk=judge.pk)
        before = {name: getattr(judge, name) for name in values}
        changes = audit_changes(before=before, after=values)
        if not changes:
            return judge
        for name, value in values.items():
            setattr(judge, name, value)
        judge.save(update_fields=list(values))
        audit_record(actor=actor, action="judge.update", target=judge, changes=changes)
    return judge
