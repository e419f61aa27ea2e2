"""factory_boy factories for the domain."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from django.http import Http404

from core.accounts.roles import RATER
from scoring.models import Assignment, RaterProfile
from scoring.selectors import rater_assignment_get
from scoring.services.sheets import sheet_open
from studies.models import Condition, ModelEndpoint, Scenario, Strategy, Study
from studies.services.responses import response_create
from studies.services.roles import role_groups_ensure
from studies.services.studies import study_create


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")

    @factory.post_generation
    def password(self, create, extracted, **kwargs):
        self.set_password(extracted or "pw-test-123")
        if create:
            self.save(update_fields=["password"])

    @factory.post_generation
    def role(self, create, extracted, **kwargs):
        if extracted:
            self.groups.add(role_groups_ensure()[extracted])


def rater(username: str, code: str | None = None, can_calibrate: bool = False):
    user = UserFactory(username=username, role=RATER)
    RaterProfile.objects.update_or_create(
        user=user, defaults={"rater_code": code, "can_calibrate": can_calibrate}
    )
    return user


class StudyFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Study
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"Study {n}")


class ScenarioFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Scenario

    # far above the release's codes (FS10, the demo's): a study that has FS10 gets no second one
    code = factory.Sequence(lambda n: f"FS{n + 1001}")
    theme = factory.Sequence(lambda n: f"Theme {n}")
    text = "In 2040, a future scenario unfolds."


class ModelEndpointFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ModelEndpoint
        django_get_or_create = ("model_number",)

    name = factory.Sequence(lambda n: f"model-{n}")
    model_number = factory.Sequence(lambda n: f"{(n % 89) + 1:02d}")


class ConditionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Condition
        django_get_or_create = ("letter",)

    letter = "A"
    name = "TeamLLM"
    strategy = Strategy.TEAMLLM


SAMPLE_ANSWERS = [
    "1. Plastic might harm plankton.\n2. Data could be lost.\n3. Tourism might shift.",
    "How might we reduce microplastics in order to protect plankton? Time: 2035, place: Hawaii, theme: ocean soup.",
    "1. Labs will deploy sieves.\n2. Schools will teach recycling.",
    "1. Which is cheapest?\n2. Which is fastest?\n3. Which is safest?\n4. Which is greenest?\n5. Which is most scalable?",
    "Solution ID | Criterion 1 | Criterion 2 | Criterion 3 | Criterion 4 | Criterion 5 | Total Score\n"
    "1 | 2 | 1 | 2 | 1 | 2 | 8\n2 | 1 | 2 | 1 | 2 | 1 | 7",
    "Best Solution ID: 1\nAction Plan: deploy sieves with the labs.",
]


def make_response(*, study=None, scenario=None, model=None, condition=None, answers=None, research_id=""):
    study = study or StudyFactory()
    scenario = scenario or ScenarioFactory(study=study)
    model = model or ModelEndpointFactory()
    condition = condition or ConditionFactory()
    return response_create(
        study=study,
        scenario=scenario,
        model=model,
        condition=condition,
        answers=list(answers or SAMPLE_ANSWERS),
        source="imported",
        research_id=research_id,
    )


SINGLE_TEXT = "Keep the bedroom cool and dark.\nGet up at the same time every day, weekends too."


def text_study(name: str = "Answers") -> Study:
    """A single-text study (one prompt, one text) on the Likert rubric, with one prompt."""
    study = study_create(name=name, template="empty", task_kind="text", rubric_version="likert-hhh-v1")
    ScenarioFactory(study=study, theme="Sleep", text="How can I fall asleep faster?")
    return study


def text_response(
    *, study=None, text: str = SINGLE_TEXT, model=None, source: str = "imported", scenario=None
):
    """A response of a single-text study (``text_study`` when not given) to ``scenario`` (its first
    prompt when not given), under the single model's condition."""
    study = study or text_study()
    return response_create(
        study=study,
        scenario=scenario or Scenario.objects.filter(study=study).order_by("pk").first(),
        model=model or ModelEndpointFactory(),
        condition=ConditionFactory(letter="S", name="Single model", strategy=Strategy.SINGLE),
        answers=[text],
        source=source,
    )


def generated_response(*, study, model_number: str, letter: str = "A", code: str = "FS10"):
    """A clean generated response of the study's scenario ``code`` under condition ``letter``:
    held for review while the study's responses need release (the default)."""
    return response_create(
        study=study,
        scenario=Scenario.objects.get(study=study, code=code),
        model=ModelEndpointFactory(model_number=model_number),
        condition=Condition.objects.get(letter=letter),
        answers=list(SAMPLE_ANSWERS),
        source="generated",
    )


def assign(user, response, role: str = "primary", group=None) -> Assignment:
    return Assignment.objects.create(rater=user, response=response, role=role, group=group)


# --- score sheets (agreement and calibration tests) ---------------------------------

SHEET_TEXTS = [
    ("texts.condition_phrase", "Because plastic fills the ocean"),
    ("texts.stem", "How might we"),
    ("texts.kvp", "reduce microplastics"),
    ("texts.purpose", "in order to protect plankton"),
]


def sheet_submitted(
    user, response, changes, *, role: str = "primary", group=None, assignment=None, texts=SHEET_TEXTS
):
    """Score a sheet through the services (open, save, submit), as a rater would; ``texts``: the
    CGPST sheet's copied texts unless the rubric has none."""
    from scoring.models import Assignment
    from scoring.services.sheets import sheet_apply_changes, sheet_open, sheet_submit

    assignment = (
        assignment
        or Assignment.objects.filter(
            rater=user, response=response, role=role, archived_at__isnull=True
        ).first()
        or assign(user, response, role=role, group=group)
    )
    sheet = sheet_open(assignment=assignment, actor=user)
    saved = sheet_apply_changes(
        sheet_id=sheet.pk, actor=user, changes=[*changes, *texts], expected_version=sheet.version
    )
    return sheet_submit(sheet_id=sheet.pk, actor=user, expected_version=saved.version)


def mirrored_changes(changes, rubric):
    """The directly scored dimensions mirrored in their range: a rater who disagrees."""
    out = []
    for path, value in changes:
        if path.startswith("dims."):
            spec = rubric.dimension(path.removeprefix("dims."))
            value = spec.min + spec.max - value
        out.append((path, value))
    return out


def maximal_changes(rubric):
    """Every dimension at its maximum: a constant normalized vector (PCC undefined)."""
    changes = []
    categories = rubric.category_keys
    for step in rubric.steps:
        if step.kind == "ideas":
            for pos in range(1, step.item_count + 1):
                changes += [
                    (f"items.{step.number}.{pos}.classification", categories[pos - 1]),
                    (f"items.{step.number}.{pos}.elaboration", 2),
                    (f"items.{step.number}.{pos}.originality", 2),
                ]
        elif step.kind == "criteria":
            for pos in range(1, step.item_count + 1):
                changes += [(f"items.4.{pos}.correctly_written", 1), (f"items.4.{pos}.relevance", 3)]
        for d in step.scored_dimensions:
            changes.append((f"dims.{d.key}", d.max))
    return changes


def reference_changes(index: int = 3):
    """Entry changes of one rater of data_A.json (index 3: H01, 4: H02)."""
    import json
    from pathlib import Path

    from scoring.score_files import data_a_changes
    from studies.rubric import load_rubric

    path = Path(__file__).resolve().parent.parent / "studies" / "data" / "data_A.json"
    return data_a_changes(json.loads(path.read_text(encoding="utf-8"))[0][index], load_rubric())


def varied_changes(changes, shift: int):
    """The same sheet with a few direct dimensions moved by ``shift`` (clamped), so
    that responses of a group differ from each other."""
    from studies.rubric import load_rubric

    rubric = load_rubric()
    moved = {"dims.s2.focus", "dims.s2.adequacy", "dims.s6.development", "dims.s6.impact"}
    out = []
    for path, value in changes:
        if path in moved:
            spec = rubric.dimension(path.removeprefix("dims."))
            value = max(spec.min, min(spec.max, value + shift))
        out.append((path, value))
    return out


def scoring_group(*, n_responses: int, study=None, scenario=None, condition=None, rater_a=None, rater_b=None):
    """A scoring group (one scenario, one condition, one pair) with fresh responses."""
    from scoring.models import ScoringGroup

    study = study or StudyFactory()
    scenario = scenario or ScenarioFactory(study=study)
    condition = condition or ConditionFactory()
    rater_a = rater_a or rater(f"a-{scenario.code}-{condition.letter}")
    rater_b = rater_b or rater(f"b-{scenario.code}-{condition.letter}")
    group = ScoringGroup.objects.create(
        study=study, scenario=scenario, condition=condition, rater_a=rater_a, rater_b=rater_b
    )
    responses = [
        make_response(study=study, scenario=scenario, condition=condition, model=ModelEndpointFactory())
        for _ in range(n_responses)
    ]
    return group, responses


def scoring_group_assigned(*, responses, rater_a, rater_b, created_by=None):
    """The scoring group of the responses' scenario and condition, given to the pair
    through the assignment service (both raters get every response of the group)."""
    from scoring.services.assignments import group_assign_pair

    first = responses[0]
    (group,) = group_assign_pair(
        study=first.study,
        scenario=first.scenario,
        conditions=[first.condition],
        rater_a=rater_a,
        rater_b=rater_b,
        actor=created_by,
    )
    return group


def stub_endpoint(stub, **overrides) -> ModelEndpoint:
    """The demo's `stub` endpoint (model 90), pointed at the test's stub server."""
    name = overrides.pop("name", "stub")
    defaults = {
        "model_number": "90",
        "base_url": stub.base_url,
        "model_name": "stub-cgpst",
        "api_key_env": "",
        "concurrency_limit": 8,
        "timeout_seconds": 5.0,
        **overrides,
    }
    return ModelEndpoint.objects.update_or_create(name=name, defaults=defaults)[0]


def own_sheet_id(client, blind_code: str) -> int:
    """The logged-in rater's own sheet on that response: what the scoring page sends with
    every save and submit (0 when the rater has none: such requests fail before that)."""
    user = get_user_model().objects.get(pk=client.session["_auth_user_id"])
    try:
        assignment = rater_assignment_get(user=user, blind_code=blind_code)
    except Http404:
        return 0
    return sheet_open(assignment=assignment, actor=user).pk


def code_for(user, response, role: str | None = None) -> str:
    """The blind code ``user`` (a user or a username) sees for ``response``: each rater of a
    response has their own code (their active assignment's)."""
    filters = {"rater__username": user} if isinstance(user, str) else {"rater": user}
    if role is not None:
        filters["role"] = role
    return Assignment.objects.get(response=response, archived_at__isnull=True, **filters).blind_code
