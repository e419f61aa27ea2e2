"""A checked text cut into plain and naming segments (the held responses page highlights the
names), and a text with its names redacted: both on ``studies.blind_text``'s spans. Pure."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from studies.blind_text import BlindTerm, Span, blind_spans


@dataclass(frozen=True)
class BlindSegment:
    text: str
    kind: str = ""  # the term's kind where the segment names one, else ""
    term: str = ""


def blind_segments(text: str, terms: Iterable[BlindTerm]) -> list[BlindSegment]:
    """``text`` cut into plain and naming segments, for a page that highlights the names."""
    return _segments(text, blind_spans(text, terms))


def blind_segments_stored(text: str, spans: list[list[object]]) -> list[BlindSegment]:
    """The same from spans stored when the text was checked (those that no longer fit it, left out)."""
    kept = []
    for start, end, kind, term in spans:
        if isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text):
            kept.append(Span(start, end, str(term), str(kind)))
    return _segments(text, kept)


def _segments(text: str, spans: list[Span]) -> list[BlindSegment]:
    segments: list[BlindSegment] = []
    at = 0
    for span in spans:
        if span.start < at:
            continue
        if span.start > at:
            segments.append(BlindSegment(text[at : span.start]))
        segments.append(BlindSegment(text[span.start : span.end], span.kind, span.term))
        at = span.end
    if at < len(text) or not segments:
        segments.append(BlindSegment(text[at:]))
    return segments


@dataclass(frozen=True)
class StepShown:
    """A step's segments as a page shows them: the first ``limit`` characters or so."""

    segments: list[BlindSegment]
    hidden: int = 0  # characters past the limit, not shown
    hidden_names: int = 0  # the names found among them


def step_shown(segments: list[BlindSegment], limit: int | None) -> StepShown:
    """``segments`` cut after ``limit`` characters (``None``: all of them); a name crossing the
    limit is shown whole, so nothing shown is half a name."""
    total = sum(len(seg.text) for seg in segments)
    if limit is None or total <= limit:
        return StepShown(segments)
    shown: list[BlindSegment] = []
    at = 0
    for seg in segments:
        if at >= limit:
            break
        if seg.kind or at + len(seg.text) <= limit:
            shown.append(seg)
            at += len(seg.text)
        else:
            shown.append(BlindSegment(seg.text[: limit - at]))
            at = limit
    named = sum(1 for seg in segments if seg.kind) - sum(1 for seg in shown if seg.kind)
    return StepShown(shown, hidden=total - at, hidden_names=named)


def blind_redacted(text: str, spans: list[Span], placeholder: str) -> str:
    """``text`` with each of ``spans`` (``blind_spans``' of it) replaced by ``placeholder``."""
    for span in reversed(spans):
        text = text[: span.start] + placeholder + text[span.end :]
    return text
