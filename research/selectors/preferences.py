"""A pairwise study's preferences: each final score of a pair as a comparison of its two systems
(model x condition), for the Bradley-Terry scores (``research.bradley_terry``)."""

from __future__ import annotations

from calibration.models import FinalScore
from research.bradley_terry import BtScore, Comparison, bradley_terry_scores, pair_outcome
from studies.models import Response, Study, TaskKind
from studies.rubric import load_rubric


def system_key(response: Response) -> str:
    """A system as research IDs name it: the condition's letter and the model's number (B90)."""
    return f"{response.condition.letter}{response.model.model_number}"


def system_label(response: Response) -> str:
    return f"{response.model.name} · {response.condition.name}"


def preference_comparisons_get(*, study: Study) -> tuple[list[Comparison], dict[str, str]]:
    """Every final score of the study's pairs as a comparison (left = text A), and each system's
    label. Empty unless the study is pairwise on a one-dimension rubric (its score is the preference)."""
    rubric = load_rubric(study.rubric_version)
    if study.task_kind != TaskKind.PAIR or len(rubric.dimensions) != 1:
        return [], {}
    [preference] = rubric.dimensions
    finals = FinalScore.objects.filter(response__study=study, response__pair__isnull=False).select_related(
        "response__pair__left__model",
        "response__pair__left__condition",
        "response__pair__right__model",
        "response__pair__right__condition",
    )
    comparisons: list[Comparison] = []
    labels: dict[str, str] = {}
    for final in finals:
        pair = final.response.pair
        value = final.dimensions.get(preference.key)
        if value is None:
            continue
        comparisons.append(
            Comparison(
                left=system_key(pair.left),
                right=system_key(pair.right),
                outcome=pair_outcome(preference=float(value), low=preference.min, high=preference.max),
            )
        )
        labels |= {
            system_key(pair.left): system_label(pair.left),
            system_key(pair.right): system_label(pair.right),
        }
    return comparisons, labels


def study_preferences_get(*, study: Study) -> tuple[list[BtScore], dict[str, str]]:
    """The Bradley-Terry scores of a pairwise study's systems, best first, and their labels."""
    comparisons, labels = preference_comparisons_get(study=study)
    return bradley_terry_scores(comparisons=comparisons), labels
