"""Type-ahead keys of the category selects (issue 42): an invalid type has keys of its own,
never a category's, and the pinyin initials work in both languages."""

import pytest

from scoring.views.sheet_widgets import _categories
from studies.rubric import load_rubric


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_every_invalid_type_has_a_key_no_category_answers_to(lang):
    rubric = load_rubric()
    steps = [s for s in rubric.steps if s.invalid_types]
    assert steps
    for step in steps:
        categories, invalid = _categories(rubric=rubric, step=step, lang=lang)
        category_words = {w for c in categories for w in c["keys"].split()}
        assert not any(w.startswith("i") for w in category_words)  # "i..." is never a category
        for option in invalid:
            own = [w for w in option["keys"].split() if w.startswith("i")]
            assert own and not set(own) & category_words, option
            others = {w for o in invalid if o is not option for w in o["keys"].split()}
            assert not set(own) & others, option


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_the_pinyin_initials_and_the_english_ones_work_in_both_languages(lang):
    rubric = load_rubric()
    categories, invalid = _categories(rubric=rubric, step=rubric.steps[0], lang=lang)
    keys = {c["key"]: c["keys"].split() for c in categories}
    assert "kj" in keys["Technology"] and "lj" in keys["Law & Justice"]
    duplicate = next(o for o in invalid if o["key"].endswith("duplicate"))
    assert {"id", "icf", "duplicate"} <= set(duplicate["keys"].split())
