"""Who may get a study's live work, as a rule an app above scoring sets.

Scoring assigns live work and must respect rules it does not own: training (above scoring)
keeps raters who have not qualified on a study's training set away from its live responses,
and keeps a rater from scoring a response whose training copy showed them the reference.
Training sets its rule when Django starts (``TrainingConfig.ready``); scoring only asks, so it
never imports training. Without training installed every rater may score."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from studies.models import Study


class LiveWorkGate(Protocol):
    def studies_gated(self) -> Sequence[Study]:
        """The active studies whose live work needs qualification, by name."""
        ...

    def raters_not_qualified(self, *, study: Study, raters: Iterable[Any]) -> list[Any]:
        """The raters among ``raters`` that may not get the study's live work yet."""
        ...

    def raters_trained_on(self, *, response_ids: Iterable[int]) -> dict[int, set[int]]:
        """Per live response, the raters who trained on a copy of it and must not score it."""
        ...


class OpenGate:
    """No rule: every rater may score every live response."""

    def studies_gated(self) -> Sequence[Study]:
        return []

    def raters_not_qualified(self, *, study: Study, raters: Iterable[Any]) -> list[Any]:
        return []

    def raters_trained_on(self, *, response_ids: Iterable[int]) -> dict[int, set[int]]:
        return {}


_gate: LiveWorkGate = OpenGate()


def live_work_gate_set(gate: LiveWorkGate) -> None:
    global _gate
    _gate = gate


def live_work_gate() -> LiveWorkGate:
    return _gate
