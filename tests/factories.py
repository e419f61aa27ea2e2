"""factory_boy factories for the domain."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from generation.models import Condition, ModelEndpoint, Strategy
from scoring.models import Assignment, RaterProfile, Scenario, Study
from scoring.services.demo import role_groups_ensure
from scoring.services.responses import response_create
from teamllm_web.roles import RATER


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

    code = factory.Sequence(lambda n: f"FS{n + 1}")
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


def assign(user, response, role: str = "primary", group=None) -> Assignment:
    return Assignment.objects.create(rater=user, response=response, role=role, group=group)


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
