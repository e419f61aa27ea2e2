"""Hostile pass 25 (C10): a refused score named its dimension or item score in English on a
Chinese page ("Focus of the underlying problem 必须是 ..."). The label follows the language the
message is written in."""

import pytest
from django.utils import translation

from scoring.entries import EntryError, clean_value, parse_path
from studies.rubric import SheetEntries, load_rubric


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_a_refused_dimension_and_item_score_are_named_in_the_pages_language(lang):
    rubric = load_rubric()
    entries = SheetEntries.empty(rubric)
    dim = rubric.dimension("s2.focus")
    item = next(s for s in rubric.step(1).item_scores if s.key == "elaboration")
    cases = ((f"dims.{dim.key}", dim.max + 1, dim.label), ("items.1.1.elaboration", item.max + 1, item.label))
    for path, value, label in cases:
        assert label.en != label.zh and label.zh
        with translation.override(lang), pytest.raises(EntryError) as refused:
            clean_value(rubric, entries, parse_path(rubric, path), value)
        message = str(refused.value)
        shown, other = (label.zh, label.en) if lang.startswith("zh") else (label.en, label.zh)
        assert shown in message and other not in message, message
