"""Inter-rater agreement as the study computed it (pure statistics, no ORM).

* PCC per response: Pearson's r (``scipy.stats.pearsonr``) between two raters'
  23 normalized dimension scores (``studies.rubric.normalized_vector``).
* ICC per scoring group or scenario: ``pingouin.intraclass_corr`` on the long
  table (response, rater, normalized score); pingouin averages the 23 values per
  response and rater, exactly as in the study. All six Shrout & Fleiss forms
  with their 95% confidence intervals.

Degenerate inputs never raise: they give a result with ``reason`` set.
"""

from __future__ import annotations

import hashlib
import math
import pickle
import threading
import warnings
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext_lazy

# Reasons, stored in ResponseAgreement.reason / GroupAgreement.reason.
REASON_NO_VARIANCE = "no variance"
EQUAL_MEANS = 1e-9  # targets' means closer than this are equal (scores are on a 0-1 scale)
REASON_MISSING_SHEET = "missing sheet"
REASON_ONE_SCORE = "one score: no PCC"  # a one-dimension rubric (a preference): the side rule decides
REASON_FEW_RESPONSES = "fewer than 3 responses"
REASON_FEW_RATERS = "fewer than 2 raters"
REASON_LENGTH_MISMATCH = "vectors differ in length"

MIN_ICC_TARGETS = 3

# The six forms in pingouin's documented order. pingouin 0.7 labels them
# ICC(1,1), ICC(A,1), ICC(C,1), ICC(1,k), ICC(A,k), ICC(C,k); older releases
# ICC1, ICC2, ICC3, ICC1k, ICC2k, ICC3k. Both map to the study's names.
ICC_FORMS = ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")
_PINGOUIN_LABELS = {
    "ICC(1,1)": "ICC1",
    "ICC(A,1)": "ICC2",
    "ICC(C,1)": "ICC3",
    "ICC(1,k)": "ICC1k",
    "ICC(A,k)": "ICC2k",
    "ICC(C,k)": "ICC3k",
    **{form: form for form in ICC_FORMS},
}
# The ICC forms labelled wherever the headline is shown: the release's and the paper's.
ICC_AS_RELEASED = "ICC3k"
ICC_AS_PAPER = "ICC2k"
ICC_SOURCES = {
    ICC_AS_RELEASED: "as the release (Extract_Scores.py corr, lines 407-414: ICC3k, consistency)",
    ICC_AS_PAPER: "the paper's absolute agreement (section 5.2: ICC2/ICC2k)",
}


def icc_beside(headline: str) -> list[str]:
    """The forms shown beside the study's headline ICC: the release's ICC3k and the paper's
    ICC2k, whichever of them the headline is not."""
    return [form for form in (ICC_AS_RELEASED, ICC_AS_PAPER) if form != headline]


def icc_label(form: str, headline: str) -> str:
    """A form's name with its source, e.g. "ICC3k (headline; as the release (...))"."""
    parts = ["headline"] if form == headline else []
    if form in ICC_SOURCES:
        parts.append(ICC_SOURCES[form])
    return f"{form} ({'; '.join(parts)})" if parts else form


ICC_FORM_DESCRIPTIONS = {
    "ICC1": gettext_lazy("one-way random, single rater"),
    "ICC2": gettext_lazy("two-way random, absolute agreement, single rater"),
    "ICC3": gettext_lazy("two-way mixed, consistency, single rater"),
    "ICC1k": gettext_lazy("one-way random, mean of k raters"),
    "ICC2k": gettext_lazy("two-way random, absolute agreement, mean of k raters"),
    "ICC3k": gettext_lazy("two-way mixed, consistency, mean of k raters"),
}


def _finite(value) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


@dataclass(frozen=True)
class PccResult:
    r: float | None
    p: float | None
    reason: str = ""

    @property
    def defined(self) -> bool:
        return self.r is not None


def pcc(vector_a: Sequence[float], vector_b: Sequence[float]) -> PccResult:
    """Pearson's r and its two-sided p between two raters' normalized vectors.

    A constant vector (a rater gave every dimension the same fraction of its
    maximum) leaves r undefined: the result carries ``reason = "no variance"``.
    Results are memoized per process (the inputs are small and results immutable).
    """
    key = (tuple(map(float, vector_a)), tuple(map(float, vector_b)))
    with _PCC_MEMO_LOCK:
        found = _PCC_MEMO.get(key)
        if found is not None:
            _PCC_MEMO.move_to_end(key)
            return found
    return pcc_many([key])[0]


_PCC_MEMO: OrderedDict[tuple, PccResult] = OrderedDict()
_PCC_MEMO_SIZE = 8192
_PCC_MEMO_LOCK = threading.Lock()


def pcc_many(pairs: Iterable[tuple[Sequence[float], Sequence[float]]]) -> list[PccResult]:
    """``pcc`` of many pairs of vectors: the pairs not memoized yet go to scipy's pearsonr
    in one vectorized call (the same numbers as one call per pair, ~40 times faster)."""
    keys = [(tuple(map(float, a)), tuple(map(float, b))) for a, b in pairs]
    with _PCC_MEMO_LOCK:
        found = {key: _PCC_MEMO[key] for key in keys if key in _PCC_MEMO}
    todo: dict[tuple, PccResult | None] = {}
    for key in keys:
        if key not in found and key not in todo:
            todo[key] = _pcc_degenerate(*key)
    fresh = [key for key, result in todo.items() if result is None]
    by_length: dict[int, list[tuple]] = {}
    for key in fresh:
        by_length.setdefault(len(key[0]), []).append(key)
    for group in by_length.values():
        for key, result in zip(group, _pearsonr_rows(group), strict=True):
            todo[key] = result
    if todo:
        with _PCC_MEMO_LOCK:
            for key, computed in todo.items():
                assert computed is not None  # each pair left for pearsonr got its result above
                _PCC_MEMO[key] = computed
                _PCC_MEMO.move_to_end(key)
            while len(_PCC_MEMO) > _PCC_MEMO_SIZE:
                _PCC_MEMO.popitem(last=False)
        found.update(todo)
    return [found[key] for key in keys]


def _pcc_degenerate(a: tuple[float, ...], b: tuple[float, ...]) -> PccResult | None:
    """The result for inputs pearsonr cannot take (None: they need pearsonr)."""
    if len(a) != len(b):
        return PccResult(None, None, REASON_LENGTH_MISMATCH)
    if len(a) < 2 or min(a) == max(a) or min(b) == max(b):
        return PccResult(None, None, REASON_NO_VARIANCE)
    return None


def _pearsonr_rows(pairs: list[tuple[tuple[float, ...], tuple[float, ...]]]) -> list[PccResult]:
    import numpy as np
    from scipy.stats import pearsonr

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = pearsonr(np.array([a for a, _ in pairs]), np.array([b for _, b in pairs]), axis=1)
    out = []
    for statistic, pvalue in zip(np.atleast_1d(result.statistic), np.atleast_1d(result.pvalue), strict=True):
        r, p = _finite(statistic), _finite(pvalue)
        out.append(PccResult(None, None, REASON_NO_VARIANCE) if r is None else PccResult(r, p))
    return out


@dataclass(frozen=True)
class IccForm:
    """One ICC form: estimate, 95% CI and the F test pingouin reports."""

    icc: float | None
    ci_low: float | None
    ci_high: float | None
    f: float | None
    df1: float | None
    df2: float | None
    p: float | None

    def as_dict(self) -> dict:
        return {
            "icc": self.icc,
            "ci95": [self.ci_low, self.ci_high],
            "F": self.f,
            "df1": self.df1,
            "df2": self.df2,
            "p": self.p,
        }


@dataclass(frozen=True)
class IccResult:
    n_targets: int
    n_raters: int
    forms: dict[str, IccForm] = field(default_factory=dict)
    reason: str = ""

    @property
    def defined(self) -> bool:
        return not self.reason

    def form(self, name: str) -> IccForm | None:
        return self.forms.get(name)

    def forms_dict(self) -> dict[str, dict]:
        return {name: form.as_dict() for name, form in self.forms.items()}


def _form_name(label: str, position: int) -> str:
    return _PINGOUIN_LABELS.get(str(label).strip(), ICC_FORMS[position])


def _ci(row: dict) -> tuple[float | None, float | None]:
    for column in ("CI95", "CI95%"):
        if column in row:
            try:
                low, high = row[column]
            except (TypeError, ValueError):
                return None, None
            return _finite(low), _finite(high)
    return None, None


_ICC_MEMO: OrderedDict[bytes, IccResult] = OrderedDict()
_ICC_MEMO_SIZE = 512
_ICC_MEMO_LOCK = threading.Lock()


def icc(rows: Iterable[tuple[Hashable, Hashable, float]]) -> IccResult:
    """All six ICC forms of a long table of (target, rater, score) rows.

    Several rows per target and rater (the 23 normalized dimensions) are
    averaged by pingouin, as in the study. Targets not scored by every rater are
    dropped (listwise deletion). Fewer than 3 complete targets, fewer than 2
    raters, or no variance give a result with a reason instead of forms.

    pingouin's cost per call hardly depends on the table's size, so results are memoized per
    process by a digest of the exact table: a recompute after one submit only
    runs pingouin for the tables that changed.
    """
    rows = list(rows)
    key = hashlib.blake2b(pickle.dumps(rows, protocol=5), digest_size=20).digest()
    with _ICC_MEMO_LOCK:
        if key in _ICC_MEMO:
            _ICC_MEMO.move_to_end(key)
            return _ICC_MEMO[key]
    result = _icc(rows)
    with _ICC_MEMO_LOCK:
        _ICC_MEMO[key] = result
        while len(_ICC_MEMO) > _ICC_MEMO_SIZE:
            _ICC_MEMO.popitem(last=False)
    return result


def memo_clear() -> None:
    """Forget memoized PCC and ICC results (benchmarks measure cold runs with it)."""
    with _ICC_MEMO_LOCK:
        _ICC_MEMO.clear()
    with _PCC_MEMO_LOCK:
        _PCC_MEMO.clear()


def _icc(rows: list[tuple]) -> IccResult:
    import numpy as np
    import pandas as pd
    import pingouin

    if not rows:
        return IccResult(0, 0, reason=REASON_FEW_RESPONSES)
    targets, raters, scores = zip(*rows, strict=True)
    # integer codes in the labels' sorted order group and sort exactly as the labels do, and
    # numeric columns build faster than object ones
    target_codes, n_target_labels = _codes(targets)
    rater_codes, n_raters = _codes(raters)
    pairs = np.unique(target_codes * n_raters + rater_codes)
    n_targets = int((np.bincount(pairs // n_raters, minlength=n_target_labels) == n_raters).sum())
    if n_raters < 2:
        return IccResult(n_targets, n_raters, reason=REASON_FEW_RATERS)
    if n_targets < MIN_ICC_TARGETS:
        return IccResult(n_targets, n_raters, reason=REASON_FEW_RESPONSES)
    values = np.asarray(scores, dtype=float)
    if _equal_means(target_codes, pairs // n_raters, values, n_targets=n_target_labels, n_raters=n_raters):
        return IccResult(n_targets, n_raters, reason=REASON_NO_VARIANCE)
    frame = pd.DataFrame({"target": target_codes, "rater": rater_codes, "score": values})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = pingouin.intraclass_corr(
            data=frame, targets="target", raters="rater", ratings="score", nan_policy="omit"
        )
    columns = {name: table[name].tolist() for name in table.columns}
    forms: dict[str, IccForm] = {}
    for position in range(min(len(table), len(ICC_FORMS))):
        row = {name: values[position] for name, values in columns.items()}
        low, high = _ci(row)
        value = _finite(row["ICC"])
        forms[_form_name(row["Type"], position)] = IccForm(
            icc=value,
            ci_low=low if value is not None else None,  # no coefficient, no interval
            ci_high=high if value is not None else None,
            f=_finite(row.get("F")),
            df1=_finite(row.get("df1")),
            df2=_finite(row.get("df2")),
            p=_finite(row.get("pval")),
        )
    if not forms or all(form.icc is None for form in forms.values()):
        return IccResult(n_targets, n_raters, reason=REASON_NO_VARIANCE)
    return IccResult(n_targets, n_raters, forms=forms)


def _equal_means(target_codes: Any, pair_targets: Any, values: Any, *, n_targets: int, n_raters: int) -> bool:
    """Whether the complete targets' means are equal but for rounding: then the between-targets
    mean square is rounding noise and so is pingouin's coefficient (-1e15 when the raters differ,
    1.0 when they agree, both seen on a rubric part every response scored alike)."""
    import numpy as np

    complete = np.bincount(pair_targets, minlength=n_targets) == n_raters
    kept = complete[target_codes]
    sums = np.bincount(target_codes[kept], weights=values[kept], minlength=n_targets)
    counts = np.bincount(target_codes[kept], minlength=n_targets)
    means = sums[counts > 0] / counts[counts > 0]
    return bool(means.size) and float(np.ptp(means)) < EQUAL_MEANS


def _codes(labels: Sequence[Hashable]) -> tuple[Any, int]:
    """Labels as integers in their sorted order, and how many distinct labels there are
    (labels that do not sort are numbered in order of appearance)."""
    import numpy as np

    distinct: dict[Any, None] = dict.fromkeys(labels)  # Any: whether they sort is tried at run time
    try:
        ordered = sorted(distinct)
    except TypeError:
        ordered = list(distinct)
    code_of = {label: code for code, label in enumerate(ordered)}
    return np.fromiter((code_of[label] for label in labels), dtype=np.int64, count=len(labels)), len(ordered)


def long_rows(target: Hashable, rater: Hashable, vector: Sequence[float]) -> list[tuple]:
    """One rater's normalized vector for one response as long-table rows."""
    return [(target, rater, value) for value in vector]


@dataclass(frozen=True)
class Closeness:
    """Which primary rater is closer to the calibrator, and why."""

    slot: str  # "a" or "b"
    pcc_a: PccResult
    pcc_b: PccResult
    by: str  # "pcc", "mean absolute difference" or "tie"


def closer_primary(
    calibrator: Sequence[float], vector_a: Sequence[float], vector_b: Sequence[float]
) -> Closeness:
    """The primary rater closer to the calibrator: the higher PCC with the
    calibrator's vector (our reading: the release keeps two sheets per calibrated
    response without saying which; see docs/researchers.md, "Fidelity to the study"). If that does not decide (a PCC is
    undefined or both are equal), the smaller mean absolute difference of the
    normalized scores decides; a complete tie goes to rater A."""
    pcc_a, pcc_b = pcc(calibrator, vector_a), pcc(calibrator, vector_b)
    if pcc_a.r is not None and pcc_b.r is not None and pcc_a.r != pcc_b.r:
        return Closeness("a" if pcc_a.r > pcc_b.r else "b", pcc_a, pcc_b, "pcc")
    mad_a = sum(abs(c - a) for c, a in zip(calibrator, vector_a, strict=True)) / max(len(calibrator), 1)
    mad_b = sum(abs(c - b) for c, b in zip(calibrator, vector_b, strict=True)) / max(len(calibrator), 1)
    if not math.isclose(mad_a, mad_b, abs_tol=1e-12):
        return Closeness("a" if mad_a < mad_b else "b", pcc_a, pcc_b, "mean absolute difference")
    return Closeness("a", pcc_a, pcc_b, "tie")


def score_side(value: float, *, low: float, high: float) -> int:
    """Which side of a scale's middle a score is on: -1 below, 0 at it, 1 above (our rule for a
    one-dimension rubric such as a preference: a pair agrees when both are on the same side)."""
    middle = (low + high) / 2
    if math.isclose(value, middle, abs_tol=1e-9):
        return 0
    return -1 if value < middle else 1


def mean_defined(values: Iterable[float | None]) -> float | None:
    """Mean of the defined values (None when there are none)."""
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


# --- small samples -----------------------------------------------------------------------

# Below this many responses, or with a 95% CI wider than this, an ICC or a mean PCC is never
# shown as a bare headline number: n, the CI and a warning go with it.
MIN_HEADLINE_RESPONSES = 5
MAX_HEADLINE_CI_WIDTH = 1.0


def mean_ci95(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Two-sided 95% t-interval of the mean of ``values`` (None, None for fewer than two)."""
    if len(values) < 2:
        return None, None
    from scipy.stats import t

    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = float(t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    return mean - half, mean + half


def small_sample_warning(n_responses: int, ci_low: float | None, ci_high: float | None) -> str:
    """Why a value must not stand alone as a headline ("" when it may): too few responses,
    no confidence interval, or one wider than ``MAX_HEADLINE_CI_WIDTH``."""
    if n_responses < MIN_HEADLINE_RESPONSES:
        return "fewer than 5 responses"
    if ci_low is None or ci_high is None:
        return "no confidence interval"
    if ci_high - ci_low > MAX_HEADLINE_CI_WIDTH:
        return "95% CI wider than 1"
    return ""
