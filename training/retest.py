"""Test-retest reliability of one rater (pure statistics, no ORM; beyond the study): the rater
scored the same responses twice, the second time as a probe under a new blind code
(``training.services.retest``).

* Intra-rater ICC(3,1): the two occasions as the "raters", each sheet's 23 normalised dimension
  scores averaged per response as the study's ICC does (``calibration.statistics.icc``):
  consistency of the rater with themself across responses (Shrout & Fleiss 1979; Koo & Li 2016
  read below 0.5 as poor).
* The mean PCC of the two sheets of each probed response, on the same vectors as the pairs' PCC.
* The mean change of the overall score (probe minus first sheet): a rater grown harsher or
  more lenient.
* A drift alarm: the ICC(3,1) below the study's bound, over at least three scored probes.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from statistics import fmean

from calibration.statistics import MIN_ICC_TARGETS, icc, pcc

FIRST, PROBE = "first", "probe"


@dataclass(frozen=True)
class ProbePair:
    response: Hashable
    first: Sequence[float]  # the first sheet's normalised dimension scores
    probe: Sequence[float]
    first_overall: float
    probe_overall: float


@dataclass(frozen=True)
class RetestStats:
    scored: int
    icc: float | None  # ICC(3,1)
    ci_low: float | None
    ci_high: float | None
    mean_pcc: float | None
    mean_change: float | None
    alarm: bool
    reason: str = ""


def rater_retest(pairs: Sequence[ProbePair], *, alarm_below: float) -> RetestStats:
    rows = [(p.response, FIRST, v) for p in pairs for v in p.first]
    rows += [(p.response, PROBE, v) for p in pairs for v in p.probe]
    result = icc(rows)
    single = result.form("ICC3")
    coefficients = [r.r for r in (pcc(p.first, p.probe) for p in pairs) if r.r is not None]
    value = single.icc if single is not None else None
    return RetestStats(
        scored=len(pairs),
        icc=value,
        ci_low=single.ci_low if single is not None else None,
        ci_high=single.ci_high if single is not None else None,
        mean_pcc=fmean(coefficients) if coefficients else None,
        mean_change=fmean(p.probe_overall - p.first_overall for p in pairs) if pairs else None,
        alarm=value is not None and len(pairs) >= MIN_ICC_TARGETS and value < alarm_below,
        reason=result.reason,
    )
