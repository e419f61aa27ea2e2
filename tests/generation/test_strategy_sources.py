"""Every strategy setting names where its default comes from, and the condition page shows it
(issue 27: TeamFusion's iterations, temperatures and prompts are the product's choices)."""

import pytest

from generation.strategies import STRATEGIES, strategy_settings
from studies.models import Condition
from tests.factories import UserFactory

KNOWN = {"paper", "release", "method", "study", "ours"}


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_each_default_has_one_known_source(strategy):
    module = STRATEGIES[strategy]
    assert set(module.SOURCES) == set(module.DEFAULTS)
    assert set(module.SOURCES.values()) <= KNOWN


def test_teamfusions_own_choices_are_labelled_ours():
    rows = {row["key"]: row for row in strategy_settings("teamfusion")}
    for key in ("iterations", "proxy_temperature", "synthesizer_temperature", "prompts"):
        assert rows[key]["source"] == "ours"
    assert rows["iterations"]["default"] == "4"
    assert rows["prompts"]["prompts"] == len(STRATEGIES["teamfusion"].DEFAULTS["prompts"])


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "ours", "release"),
    [
        ("en", "ours (the product's choice)", "the study's released code"),
        ("zh-hans", "我们的选择（本产品所定）", "研究发布的代码"),
    ],
)
def test_the_condition_page_shows_each_settings_source(client, language, ours, release):
    fusion = Condition.objects.create(letter="Q", name="Fusion", strategy="teamfusion")
    team = Condition.objects.create(letter="R", name="Team", strategy="teamllm")
    client.force_login(UserFactory(username="admin-src", role="Admin"))
    client.cookies["django_language"] = language
    html = client.get(f"/manage/conditions/{fusion.pk}/").content.decode()
    assert "<code>iterations</code>" in html and ours in html
    html = client.get(f"/manage/conditions/{team.pk}/").content.decode()
    assert "<code>rounds</code>" in html and release in html


def test_every_setting_of_every_strategy_is_named():
    from generation.setting_labels import SETTING_LABELS

    assert {key for module in STRATEGIES.values() for key in module.DEFAULTS} <= set(SETTING_LABELS)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "names", "absent"),
    [
        ("en", ["Discussion rounds", "Temperature of each role", "Top-p (nucleus sampling)"], ["讨论轮数"]),
        ("zh-hans", ["讨论轮数", "各角色的温度", "Top-p（核采样）", "回答语言"], ["Discussion rounds"]),
    ],
)
def test_the_condition_page_names_each_setting_in_the_readers_language(client, language, names, absent):
    team = Condition.objects.create(letter="R", name="Team", strategy="teamllm")
    client.force_login(UserFactory(username="admin-names", role="Admin"))
    client.cookies["django_language"] = language
    html = client.get(f"/manage/conditions/{team.pk}/").content.decode()
    table = html[html.index('id="strategy-settings"') :]
    for name in names:
        assert name in table, name
    for name in absent:
        assert name not in table, name
    assert "<code>rounds</code>" in table and "<code>temperatures</code>" in table  # what Parameters hold
