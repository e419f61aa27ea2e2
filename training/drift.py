"""Rater drift: pure statistics over a rater's sheets in submission order (no ORM).

Per rater: the PCC with their partner sheet by sheet and its rolling mean (flagged when
the latest window falls under the threshold), the mean signed difference per dimension
against the partner and against the final scores (positive: the rater scores higher,
i.e. more lenient), the time per sheet, and how often their responses were calibrated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean, median

DEFAULT_WINDOW = 5


@dataclass(frozen=True)
class Submission:
    """One submitted primary sheet of a rater (already in submission order)."""

    pcc: float | None  # with the partner's sheet of the same response
    own: Mapping[str, float]  # the 23 dimension scores
    partner: Mapping[str, float] | None
    final: Mapping[str, float] | None
    seconds: float | None  # opened to submitted (web sheets only)
    calibrated: bool  # the response went to a calibrator


@dataclass(frozen=True)
class RaterDrift:
    n: int
    pccs: list[float | None]
    rolling: list[float | None]
    mean_pcc: float | None
    latest_rolling: float | None
    flagged: bool
    vs_partner: dict[str, float | None]
    vs_final: dict[str, float | None]
    median_seconds: float | None
    calibrated_share: float | None


def rolling_mean(values: Sequence[float | None], window: int) -> list[float | None]:
    """The mean of the last ``window`` defined values at each position (None until the
    window is full: a rater is not flagged on their first sheet or two)."""
    out: list[float | None] = []
    seen: list[float] = []
    for v in values:
        if v is not None:
            seen.append(v)
        out.append(fmean(seen[-window:]) if len(seen) >= window else None)
    return out


def _mean_difference(subs: Sequence[Submission], keys: Sequence[str], other: str) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for key in keys:
        diffs = [
            float(s.own[key]) - float(ref[key])
            for s in subs
            if (ref := getattr(s, other)) is not None and key in ref and key in s.own
        ]
        out[key] = fmean(diffs) if diffs else None
    return out


def rater_drift(
    submissions: Sequence[Submission], *, keys: Sequence[str], threshold: float, window: int = DEFAULT_WINDOW
) -> RaterDrift:
    pccs = [s.pcc for s in submissions]
    window = max(1, window)
    rolling = rolling_mean(pccs, window)
    defined = [p for p in pccs if p is not None]
    latest = next((r for r in reversed(rolling) if r is not None), None)
    seconds = [s.seconds for s in submissions if s.seconds is not None]
    return RaterDrift(
        n=len(submissions),
        pccs=pccs,
        rolling=rolling,
        mean_pcc=fmean(defined) if defined else None,
        latest_rolling=latest,
        flagged=latest is not None and latest < threshold,
        vs_partner=_mean_difference(submissions, keys, "partner"),
        vs_final=_mean_difference(submissions, keys, "final"),
        median_seconds=median(seconds) if seconds else None,
        calibrated_share=(sum(s.calibrated for s in submissions) / len(submissions)) if submissions else None,
    )
