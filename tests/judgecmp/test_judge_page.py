"""The research page of the judge comparison: researchers see the numbers the selector
computes, raters are refused, bad choices get a message and never a 500."""

import re

import pytest

from core.accounts.roles import RESEARCHER
from judging.selectors.comparison import judge_comparison_get
from research.results import fmt
from tests.factories import UserFactory, rater

pytestmark = pytest.mark.django_db


@pytest.fixture
def researcher_client(client):
    client.force_login(UserFactory(username="res-judge", role=RESEARCHER))
    return client


def test_researcher_sees_the_comparison(researcher_client, judged):
    judge, group, sheets = judged
    html = researcher_client.get(
        "/research/judge/", {"study": group.study.pk, "judge": judge.pk}
    ).content.decode()
    comparison = judge_comparison_get(study=group.study, judge=judge)
    for row in comparison.rows:
        assert row.item.research_id in html
        assert fmt(row.judge_a.r, 3) in html
    overall = next(d for d in comparison.steps if d.key == "overall").value
    assert fmt(overall.mean, 2) in html
    (scenario,) = comparison.iccs
    assert fmt(scenario.judge_added.form(group.study.headline_icc).icc, 3) in html
    # the paper's absolute-agreement ICC2k beside the release's ICC3k, each labelled
    assert "ICC2k, the paper's absolute agreement" in html and "ICC3k, headline, as the release" in html
    assert fmt(scenario.judge_added.form("ICC2k").icc, 3) in html
    assert "fewer than 5 responses" in html  # four responses: never a bare headline
    assert "Own model or family" in html and "McNemar" in html
    assert 'href="/research/judge/"' in html  # in the researcher's navigation
    # styled as the other research tables, each scrolling inside its card on a phone
    sections = [
        s
        for s in re.findall(r"<section class=\"card\" id=\"judge-[^\"]+\">.*?</section>", html, re.S)
        if "<table" in s
    ]
    assert len(sections) == 8  # with the estimates and the calibration (issue 39)
    for section in sections:
        assert '<div class="scroll"><table class="table compact">' in section, section[:120]
        assert "<table>" not in section


def test_page_in_chinese(researcher_client, judged):
    judge, group, _ = judged
    html = researcher_client.get(
        "/research/judge/", {"study": group.study.pk}, HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert "大模型评委与人类评分者" in html
    assert "为 4 个回答评分" in html and "第6步总分" in html


def test_bad_choices_get_a_message(researcher_client, judged):
    page = researcher_client.get("/research/judge/", {"study": "abc", "judge": "999999"})
    assert page.status_code == 200
    assert "That choice does not exist" in page.content.decode()


def test_study_without_judge_sheets(researcher_client, judged):
    from tests.factories import StudyFactory

    other = StudyFactory(name="No judges")
    page = researcher_client.get("/research/judge/", {"study": other.pk})
    assert "No judge has scored responses of this study yet." in page.content.decode()


def test_raters_are_refused(client, judged):
    client.force_login(rater("r-judge", "H77"))
    assert client.get("/research/judge/").status_code == 403


def test_the_page_without_a_choice_selects_what_it_shows(researcher_client, judged):
    judge, group, _ = judged
    html = researcher_client.get("/research/judge/").content.decode()
    assert f'<option value="{group.study.pk}" selected>' in html
    assert f'<option value="{judge.pk}" selected>' in html
