"""Which rubrics are CGPST's. The paper's tables, Self-BLEU of Steps 1 and 3, the Step-5 grid
check, the release's layouts and the generation prompts read a sheet of exactly the CGPST
shape; a rubric has it when its steps, items, dimensions, ranges and categories are those of
``cgpst-v1`` (its texts may differ: a study's edited versions keep the shape)."""

from __future__ import annotations

from functools import cache

from studies.rubric.loader import DEFAULT_RUBRIC_VERSION, load_rubric
from studies.rubric.schema import Rubric

Shape = tuple[object, ...]


def rubric_shape(rubric: Rubric) -> Shape:
    """Everything of a rubric that the scores depend on, and none of its texts."""
    return (
        rubric.max_total,
        rubric.category_keys,
        tuple(
            (
                step.number,
                step.kind,
                step.max,
                step.item_count,
                tuple((d.key, d.min, d.max, d.computed, d.integrity) for d in step.dimensions),
                tuple((s.key, s.min, s.max) for s in step.item_scores),
                tuple(t.key for t in step.invalid_types),
                tuple(t.key for t in step.texts),
                step.shows_step2_texts,
            )
            for step in rubric.steps
        ),
    )


@cache
def _cgpst_shape() -> Shape:
    return rubric_shape(load_rubric(DEFAULT_RUBRIC_VERSION))


def rubric_is_cgpst(rubric: Rubric) -> bool:
    return rubric_shape(rubric) == _cgpst_shape()


@cache
def version_is_cgpst(version: str) -> bool:
    """``rubric_is_cgpst`` of a rubric version (a version never changes, so it is cached)."""
    return rubric_is_cgpst(load_rubric(version))
