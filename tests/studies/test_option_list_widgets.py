"""The select and checkboxes drawn by one template (issue 40: the assignments page's 200 raters,
twice) give the markup Django's own widgets give, for every kind of option."""

from __future__ import annotations

import re

import pytest
from django import forms

from scoring.forms import RaterSelect
from studies.params import OptionListCheckboxes, OptionListSelect

CHOICES = [
    ("", "— choose —"),
    ("1", "Ann & <Bob>"),
    ("2", "H02"),
    ("Group", [("3", "in a group"), ("4", 'quote "4"')]),
]


def _same(html: str) -> str:
    # whitespace between tags and around a label's text is all that may differ
    return re.sub(r">\s+<", "><", re.sub(r"\s+", " ", html.strip()))


@pytest.mark.parametrize(
    ("ours", "django", "value"),
    [
        (OptionListSelect, forms.Select, "2"),
        (OptionListSelect, forms.Select, None),
        (OptionListCheckboxes, forms.CheckboxSelectMultiple, ["1", "4"]),
        (OptionListCheckboxes, forms.CheckboxSelectMultiple, []),
    ],
)
def test_the_markup_is_djangos(ours, django, value):
    attrs = {"id": "id_pick", "class": "wide", "data-autosubmit": True, "required": False}
    mine = ours(attrs=attrs, choices=CHOICES).render("pick", value)
    theirs = django(attrs=attrs, choices=CHOICES).render("pick", value)
    assert _same(mine) == _same(theirs)
    assert "Ann &amp; &lt;Bob&gt;" in mine
    assert mine.count("<option") + mine.count("<input") == 5


def test_a_disabled_rater_is_disabled_as_before():
    widget = RaterSelect(choices=CHOICES)
    widget.disabled_values = frozenset({"2"})
    html = widget.render("rater_a", "1")
    assert re.search(r'<option value="2" disabled>H02</option>', html)
    assert re.search(r'<option value="1" selected>Ann &amp; &lt;Bob&gt;</option>', html)
