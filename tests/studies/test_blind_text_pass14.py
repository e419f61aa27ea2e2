"""Hostile pass 14: a maker named as the model's attribute ("As a Google model, I") reached raters
unchanged. Each is found where the text speaks of itself; prose about a maker's products stays."""

from __future__ import annotations

import pytest

from studies.blind_text import MAKER, BlindTerm
from tests.studies.test_blind_text import TERMS, names

MORE = [*TERMS, BlindTerm("Alibaba", MAKER)]


@pytest.mark.parametrize(
    "text, found",
    [
        ("As a Google model, I suggest floating farms.", ["Google"]),
        ("I'm a Google AI.", ["Google"]),
        ("Being Google's language model, I see three problems.", ["Google"]),
        ("This Google assistant recommends a sea wall.", ["Google"]),
        ("My creator, Google, wants me to be careful.", ["Google"]),
        ("As a Meta model, I", ["Meta"]),
        ("I'm the Meta assistant and I think so.", ["Meta"]),
        ("As Alibaba's model I propose a plan.", ["Alibaba"]),
        ("I am an Alibaba model.", ["Alibaba"]),
        ("作为谷歌的AI，我认为应当修建海堤。", ["谷歌"]),
    ],
)
def test_a_maker_as_the_models_attribute_is_found(text, found):
    assert names(text, MORE) == found


@pytest.mark.parametrize(
    "text",
    [
        "Flood maps provided by Google show the risk.",
        "A Google model predicts floods in 2040.",
        "The Google Maps data shows three districts at risk.",
        "Alibaba's model of e-commerce changed retail.",
        "我认为由百度开发的地图很有用。",
    ],
)
def test_prose_about_a_makers_products_is_left_alone(text):
    assert names(text, MORE) == []
