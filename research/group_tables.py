"""Per model and condition: Table 5's blank items (from the raters) and efficiency (pure).

Table 5 as the release counts it: on each of the two primary raters' sheets, the
Step-1 and Step-3 items marked "Blank" (no response provided); the release checks
that the two raters agree. Where they disagree the release keeps whichever sheet it
read first; we take the mean of the two and list every disagreement. The parser's
count (8 minus the items found in the text) is shown beside it only as a check.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

from research.records import ResponseRecord, ScoreRecord

EFFICIENCY_METRICS = (
    ("flexibility", "Flexibility/Fluency"),
    ("elaboration", "Elaboration/Fluency"),
    ("originality", "Originality/Fluency"),
)
BLANK_STEPS = (1, 3)


@dataclass(frozen=True)
class GroupMean:
    model: str
    model_number: str
    condition: str
    step: int
    metric: str
    value: float | None
    n: int


@dataclass(frozen=True)
class BlankRow:
    """Mean blank items per response, from the raters' "Blank" choices."""

    model: str
    model_number: str
    condition: str
    step: int
    value: float | None  # mean over responses of the pair's count (their mean if they disagree)
    n: int  # responses with both primary sheets submitted
    parser: float | None  # the parser's mean over the same responses: a check
    disagreements: int  # responses where the two raters' counts differ


@dataclass(frozen=True)
class BlankDisagreement:
    research_id: str
    model: str
    condition: str
    step: int
    counts: tuple[tuple[str, int], ...]  # (rater, blanks) of the two primary raters
    parser: int


def _pair_counts(r: ResponseRecord, step: int) -> tuple[int, int] | None:
    if len(r.rater_blanks) < 2:
        return None
    first, second = r.rater_blanks[:2]
    return first.by_step.get(step, 0), second.by_step.get(step, 0)


def blanks_table(responses: Sequence[ResponseRecord], *, steps=BLANK_STEPS) -> list[BlankRow]:
    """Table 5 per model, condition and step (Step 3 is the paper's; the release also counts Step 1)."""
    raters: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    parser: dict[tuple[str, str, int], list[int]] = defaultdict(list)
    differ: dict[tuple[str, str, int], int] = defaultdict(int)
    names = {}
    for r in responses:
        names[r.model_number] = r.model
        for step in steps:
            key = (r.model_number, r.condition, step)
            counts = _pair_counts(r, step)
            raters[key]  # every model and condition gets a row, scored or not
            if counts is None:
                continue
            raters[key].append(fmean(counts))
            parser[key].append(r.parser_blanks(step))
            differ[key] += counts[0] != counts[1]
    return [
        BlankRow(
            model=names[m],
            model_number=m,
            condition=c,
            step=s,
            value=fmean(v) if v else None,
            n=len(v),
            parser=fmean(parser[(m, c, s)]) if parser[(m, c, s)] else None,
            disagreements=differ[(m, c, s)],
        )
        for (m, c, s), v in sorted(raters.items(), key=lambda kv: (kv[0][2], kv[0][0], kv[0][1]))
    ]


def blank_disagreements(responses: Sequence[ResponseRecord], *, steps=BLANK_STEPS) -> list[BlankDisagreement]:
    """Every response and step where the two primary raters marked a different number of blanks."""
    out = []
    for r in sorted(responses, key=lambda r: r.research_id):
        for step in steps:
            counts = _pair_counts(r, step)
            if counts is not None and counts[0] != counts[1]:
                out.append(
                    BlankDisagreement(
                        research_id=r.research_id,
                        model=r.model,
                        condition=r.condition,
                        step=step,
                        counts=tuple((rb.rater, rb.by_step.get(step, 0)) for rb in r.rater_blanks[:2]),
                        parser=r.parser_blanks(step),
                    )
                )
    return out


def efficiency_table(records: Sequence[ScoreRecord], *, steps=(1, 3)) -> list[GroupMean]:
    """Flexibility, Elaboration and Originality per Yes item: the mean of per-response
    ratios over the responses with Fluency > 0."""
    groups: dict[tuple[str, str, int, str], list[float]] = defaultdict(list)
    names = {}
    for r in records:
        names[r.model_number] = r.model
        for step in steps:
            fluency = r.dimensions.get(f"s{step}.fluency")
            for key, metric in EFFICIENCY_METRICS:
                value = r.dimensions.get(f"s{step}.{key}")
                group = groups[(r.model_number, r.condition, step, metric)]
                if fluency and value is not None:
                    group.append(value / fluency)
    return [
        GroupMean(names[m], m, c, s, metric, fmean(v) if v else None, len(v))
        for (m, c, s, metric), v in sorted(groups.items())
    ]
