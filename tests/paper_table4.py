"""The per-scenario overall scores of the paper's Table 4 (FS1..FS10), loaded as final scores."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

from django.db import transaction

from calibration.models import FinalScore
from studies.models import FinalScoreRule
from studies.selectors import study_blind_terms
from studies.services.responses import response_create
from studies.services.setup import conditions_ensure_defaults, endpoints_ensure_paper_models
from tests.factories import SAMPLE_ANSWERS, ScenarioFactory, StudyFactory

# model number -> (TeamLLM scores, baseline scores), FS1..FS10, as printed in the paper
TABLE4 = {
    "01": (
        [135.5, 142, 127, 123.5, 120.5, 142, 156, 135.5, 137, 134.5],
        [116, 113, 110, 122.5, 107.5, 127.5, 125.5, 113, 117, 110],
    ),
    "02": (
        [115, 133.5, 135, 124, 117.5, 140.5, 146.5, 111, 116, 112],
        [100.5, 108.5, 121, 120.5, 115, 126.5, 130.5, 111.5, 103.5, 108],
    ),
    "03": (
        [129, 137, 130.5, 116.5, 124.5, 114, 121.5, 102.5, 124.5, 130],
        [114.5, 104.5, 91, 104.5, 110, 110, 116, 105.5, 104, 109.5],
    ),
    "04": (
        [126.5, 132.5, 114.5, 131, 135.5, 120.5, 126, 116, 119, 107],
        [109.5, 99, 109.5, 104, 97.5, 110, 119, 106.5, 103, 112],
    ),
    "05": (
        [134, 134, 133, 120, 122, 129, 107.5, 117, 127, 116.5],
        [108, 113.5, 119, 124.5, 110, 127.5, 129, 124.5, 116.5, 115],
    ),
    "06": (
        [101, 120.5, 129, 91, 111, 116, 105.5, 93, 107.5, 120],
        [101.5, 86, 105.5, 105.5, 91.5, 101, 110, 106, 71, 104.5],
    ),
    "07": (
        [137, 134.5, 118, 121, 136.5, 138.5, 124, 135, 118, 123],
        [102, 91, 104.5, 109.5, 96, 118, 124, 109, 94.5, 110],
    ),
    "08": (
        [144, 139.5, 139.5, 138, 156, 143, 156, 150, 130, 132],
        [133, 126, 130.5, 127, 130, 126.5, 142, 139, 119, 127.5],
    ),
    "09": (
        [133.5, 134.5, 140.5, 132, 138.5, 144.5, 150.5, 147.5, 116.5, 129],
        [108.5, 100, 123.5, 128, 118.5, 127.5, 133, 123.5, 109, 114.5],
    ),
    "10": (
        [130.5, 123, 121.5, 117.5, 143, 142.5, 117.5, 143, 116, 120],
        [115.5, 111, 124.5, 124.5, 115, 121.5, 123.5, 118, 116, 118],
    ),
}
# the averages and marks the paper prints
PAPER_AVERAGES = {
    "01": ("135.35", "**", "116.2"),
    "02": ("125.1", "**", "114.55"),
    "03": ("123", "**", "106.95"),
    "04": ("122.85", "**", "107"),
    "05": ("124", "", "118.75"),
    "06": ("109.45", "", "98.25"),
    "07": ("128.55", "**", "105.85"),
    "08": ("142.8", "**", "130.05"),
    "09": ("136.7", "**", "118.6"),
    "10": ("127.45", "", "118.75"),
}


def load_table4(name: str = "Paper Table 4"):
    """A study with the 200 responses of Table 4 and their overall scores as final scores. The
    study's catalogue is read once per model and condition, as an import of many reads it."""
    conditions = {c.letter: c for c in conditions_ensure_defaults()}
    models = {m.model_number: m for m in endpoints_ensure_paper_models()}
    study = StudyFactory(name=name)
    scenarios = [ScenarioFactory(study=study, code=f"FS{i}", theme=f"Scenario {i}") for i in range(1, 11)]
    for number, (team, base) in TABLE4.items():
        for letter, scores in (("A", team), ("B", base)):
            terms = study_blind_terms(study=study, model=models[number], condition=conditions[letter])
            for scenario, score in zip(scenarios, scores, strict=True):
                response = response_create(
                    study=study,
                    scenario=scenario,
                    model=models[number],
                    condition=conditions[letter],
                    answers=list(SAMPLE_ANSWERS),
                    source="imported",
                    blind_terms=terms,
                )
                FinalScore.objects.create(
                    response=response, overall=Decimal(str(score)), rule=FinalScoreRule.IMPORTED
                )
    return study


def table4_for_module(django_db_blocker) -> Iterator:
    """Table 4's study built once for a module whose tests only read it (a module fixture's body):
    inside a transaction that each test's own rolls back to, rolled back itself after the module."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield load_table4()
        transaction.set_rollback(True)
