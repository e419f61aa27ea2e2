"""Roles, demo users and demo data (``manage.py seed_demo``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from core.accounts.roles import ADMIN, DEMO_GROUP, RATER, RESEARCHER
from generation.models import PreferenceProfile
from judging.services.judges import judge_for_endpoint
from scoring.models import RaterProfile
from scoring.selectors import group_active_get
from scoring.services.assignments import group_assign_pair
from studies.models import Condition, Scenario, Study
from studies.response_files import records_from_data_a
from studies.services.responses import responses_import
from studies.services.roles import role_groups_ensure
from studies.services.setup import (
    conditions_ensure_defaults,
    endpoint_ensure_stub,
    endpoints_ensure_paper_models,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User

DATA_DIR = Path(__file__).resolve().parent.parent / "studies" / "data"
DEMO_PASSWORD = "demo-pass-2026"  # noqa: S105 - documented, demo mode only
DEMO_STUDY = "CGPST demo"
DEMO_USERS = [
    # username, role, rater code, may calibrate
    ("admin", ADMIN, None, False),
    ("rater1", RATER, "H01", False),
    ("rater2", RATER, "H02", False),
    ("calibrator", RATER, "H03", True),
    ("researcher", RESEARCHER, None, False),
]


# Two illustrative team members, so TeamFusion can be launched in the demo. A real study
# enters its members' stated preferences from their questionnaires (generation page).
DEMO_MEMBERS = [
    (
        "Demo member A",
        "I want concrete, feasible solutions that a small school could start next term, "
        "with clear steps and low cost.",
    ),
    (
        "Demo member B",
        "I want bold, original ideas that look ten years ahead, even if they are hard to "
        "carry out, and I care about fairness for every group affected.",
    ),
]


class DemoModeRequired(Exception):
    pass


def user_create_with_role(
    *, username: str, password: str, role: str, rater_code: str | None = None, can_calibrate: bool = False
) -> User:
    """Create or update a user in one role group (Admins are also staff for the Django admin)."""
    groups = role_groups_ensure()
    user_model = get_user_model()
    user, _ = user_model.objects.get_or_create(username=username)
    user.set_password(password)
    user.is_staff = role == ADMIN
    user.is_superuser = role == ADMIN and username == "admin"
    user.save()
    user.groups.set([groups[role]])
    if role == RATER or rater_code:
        RaterProfile.objects.update_or_create(
            user=user, defaults={"rater_code": rater_code, "can_calibrate": can_calibrate}
        )
    return user


def scenarios_load_into(*, study: Study) -> list[Scenario]:
    """The released scenarios (FS10) as the demo study's own, so its page lists them. A
    database seeded when they were shared (no study) has them moved to the demo study,
    when no other study's responses use them."""
    data = json.loads((DATA_DIR / "future_scenarios_en.json").read_text(encoding="utf-8"))
    scenarios = []
    for code, v in data.items():
        shared = Scenario.objects.filter(study=None, code=code).first()
        if (
            shared is not None
            and not Scenario.objects.filter(study=study, code=code).exists()
            and not shared.responses.exclude(study=study).exists()
        ):
            shared.study = study
            shared.save(update_fields=["study"])
        scenario, _ = Scenario.objects.update_or_create(
            study=study, code=code, defaults={"theme": v["theme"], "text": v["text"]}
        )
        scenarios.append(scenario)
    return scenarios


@dataclass
class DemoReport:
    study: Study
    users: list[str] = field(default_factory=list)
    responses: list[str] = field(default_factory=list)
    judge: str = ""


def demo_seed() -> DemoReport:
    """Idempotent: running it twice leaves the same data."""
    if not settings.DEMO_MODE:
        raise DemoModeRequired(
            "The demo users have a published password; seed_demo runs only with DEMO_MODE=1."
        )
    with transaction.atomic():
        conditions = conditions_ensure_defaults()
        endpoints = endpoints_ensure_paper_models()
        stub = endpoint_ensure_stub()
        # an LLM judge on the bundled stub, so /manage/judges/ can be tried at once
        demo_judge = judge_for_endpoint(endpoint=stub)
        study, _ = Study.objects.get_or_create(
            name=DEMO_STUDY,
            defaults={"description": "The public FS10 scenario and the scored kimi-k2 TeamLLM response."},
        )
        scenarios_load_into(study=study)
        # the study's page shows what it offers: the paper's models, the stub, A-F
        study.endpoints.add(*endpoints, stub)
        study.conditions.add(*conditions)
        report = DemoReport(study=study, judge=demo_judge.name)
        demo_group, _ = Group.objects.get_or_create(name=DEMO_GROUP)
        for username, role, code, calibrates in DEMO_USERS:
            user = user_create_with_role(
                username=username,
                password=DEMO_PASSWORD,
                role=role,
                rater_code=code,
                can_calibrate=calibrates,
            )
            # marked: these accounts log in only while DEMO_MODE is on (teamllm_web.auth)
            user.groups.add(demo_group)
            report.users.append(username)
        records = records_from_data_a(json.loads((DATA_DIR / "data_A.json").read_text(encoding="utf-8")))
        imported = responses_import(records=records, study=study, source="demo data")
        report.responses = imported.created + imported.unchanged
        demo_pair_assign(study=study)
        for order, (name, preferences) in enumerate(DEMO_MEMBERS):
            PreferenceProfile.objects.get_or_create(
                study=study, name=name, defaults={"preferences": preferences, "order": order}
            )
    return report


def demo_pair_assign(*, study: Study) -> None:
    """The demo responses of FS10 under condition A go to the pair rater1 + rater2
    (one ScoringGroup), so a new user can log in and score at once."""
    user_model = get_user_model()
    rater1, rater2 = user_model.objects.get(username="rater1"), user_model.objects.get(username="rater2")
    admin = user_model.objects.filter(username="admin").first()
    scenario = Scenario.objects.get(study=study, code="FS10")
    condition = Condition.objects.get(letter="A")
    group = group_active_get(study_id=study.pk, scenario_id=scenario.pk, condition_id=condition.pk)
    if group is not None and {group.rater_a_id, group.rater_b_id} == {rater1.pk, rater2.pk}:
        return  # assigned by an earlier run: a training set added since must not stop make run
    group_assign_pair(
        study=study,
        scenario=scenario,
        conditions=[condition],
        rater_a=rater1,
        rater_b=rater2,
        actor=admin,
    )
