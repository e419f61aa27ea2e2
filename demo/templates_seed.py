"""The demo's other two templates (``seed_demo``): a single-text study scored on the Likert rubric
and a pairwise study comparing its texts, each assigned to the demo raters, so that every kind of
sheet can be tried at once. The texts are written for the demo, not by a language model."""

from __future__ import annotations

import json
from contextlib import suppress
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model

from scoring.selectors import group_active_get
from scoring.services.assignments import group_assign_pair
from studies.models import Condition, Scenario, Study
from studies.response_files import records_from_text
from studies.services.pairs import PairsError, pairs_build
from studies.services.responses import responses_import
from studies.services.studies import EMPTY, study_create

if TYPE_CHECKING:
    from django.contrib.auth.models import User

TEXT_STUDY = "Answers demo (Likert)"
PAIR_STUDY = "Preferences demo (A or B)"
PROMPTS = {
    "Q1": ("Sleep", "How can I fall asleep faster on work nights? Give practical advice."),
    "Q2": ("Tides", "Explain to a ten-year-old why the sea has two tides a day."),
}
# (prompt, model number, text): model 05 and the stub (90) under the single model (condition B)
TEXTS = [
    ("Q1", "05", "Keep the same bedtime every day, weekends too.\nStop screens an hour before bed and "
                 "keep the room cool and dark.\nIf you lie awake for twenty minutes, get up and read "
                 "until you feel sleepy."),
    ("Q1", "90", "Try to relax. Many people sleep better after a warm drink."),
    ("Q2", "05", "The Moon pulls on the sea. The water nearest the Moon bulges towards it, and on the "
                 "other side of the Earth the water bulges too, because the Earth is pulled away from "
                 "it. The Earth turns through both bulges every day, so most beaches get two high "
                 "tides."),
    ("Q2", "90", "Tides happen because of the wind pushing the water twice a day."),
]  # fmt: skip


def _texts_import(study: Study) -> None:
    for code, (theme, text) in PROMPTS.items():
        Scenario.objects.get_or_create(study=study, code=code, defaults={"theme": theme, "text": text})
    lines = [
        json.dumps({"research_id": f"B{number}_{code}", "scenario": code, "model": number, "condition": "B",
                    "text": text})
        for code, number, text in TEXTS
    ]  # fmt: skip
    responses_import(
        records=records_from_text("\n".join(lines), text_task=True), study=study, source="demo data"
    )


def _pair_assign(study: Study, rater_a: User, rater_b: User, admin: User | None) -> None:
    """Each prompt's responses to the demo pair rater1 + rater2 (kept when assigned before)."""
    for scenario in Scenario.objects.filter(study=study).order_by("code"):
        conditions = list(Condition.objects.filter(responses__scenario=scenario).distinct())
        for condition in conditions:
            group = group_active_get(study_id=study.pk, scenario_id=scenario.pk, condition_id=condition.pk)
            if group is not None:
                continue
            group_assign_pair(
                study=study, scenario=scenario, conditions=[condition], rater_a=rater_a, rater_b=rater_b,
                actor=admin,
            )  # fmt: skip


def demo_templates_seed() -> list[str]:
    """Idempotent: the two demo studies, their texts, pairs and assignments. Their names."""
    users = get_user_model().objects
    admin = users.filter(username="admin").first()
    rater_a, rater_b = users.get(username="rater1"), users.get(username="rater2")
    texts = Study.objects.filter(name=TEXT_STUDY).first() or study_create(
        name=TEXT_STUDY, template=EMPTY, task_kind="text", response_language="en", actor=admin
    )
    _texts_import(texts)
    pairs = Study.objects.filter(name=PAIR_STUDY).first() or study_create(
        name=PAIR_STUDY,
        template=EMPTY,
        task_kind="pair",
        pairs_from=texts,
        response_language="en",
        actor=admin,
    )
    with suppress(PairsError):  # built by an earlier run
        pairs_build(study=pairs, actor=admin)
    for study in (texts, pairs):
        _pair_assign(study, rater_a, rater_b, admin)
    return [texts.name, pairs.name]
