"""A run's parameters: strategy defaults, then the study's language, then the condition."""

import pytest

from generation.strategies import ParameterError, resolve_params


def test_defaults_reproduce_the_paper():
    params = resolve_params(strategy="teamllm")
    assert params["temperatures"] == {
        "Co-Ordinator": 0.5,
        "Plant": 0.8,
        "Monitor Evaluator": 0.4,
        "Implementer": 0.4,
    }
    assert params["top_p"] == 0.9 and params["rounds"] == 1 and params["language"] == "zh"
    assert resolve_params(strategy="single")["temperature"] == 0.6


def test_the_study_language_and_condition_parameters_override_defaults():
    params = resolve_params(
        strategy="teamllm", overrides={"rounds": 2, "temperatures": {"Plant": 1.0}}, language="en"
    )
    assert params["language"] == "en" and params["rounds"] == 2
    assert params["temperatures"]["Plant"] == 1.0 and params["temperatures"]["Co-Ordinator"] == 0.5
    assert resolve_params(strategy="teamllm", overrides={"language": "zh"}, language="en")["language"] == "zh"


def test_a_single_temperature_applies_to_every_role():
    params = resolve_params(strategy="teamllm", overrides={"temperature": 0.3})
    assert params["temperatures"] == {} and params["temperature"] == 0.3


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"rounds": 0}, "rounds"),
        ({"rounds": "two"}, "rounds"),
        ({"temperature": 3}, "temperature"),
        ({"top_p": 1.5}, "top_p"),
        ({"temprature": 0.5}, "unknown parameter"),
        ({"temperatures": {"Plant": "hot"}}, "Plant"),
    ],
)
def test_bad_parameters_are_refused_with_a_clear_message(overrides, message):
    with pytest.raises(ParameterError, match=message):
        resolve_params(strategy="teamllm", overrides=overrides)


def test_unknown_strategy():
    with pytest.raises(ParameterError):
        resolve_params(strategy="nope")
