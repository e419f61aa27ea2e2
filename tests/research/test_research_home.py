"""Researcher pages: tables and figures for admins and researchers only; raters never reach results."""

import pytest
from django.contrib.auth import get_user_model

from core.accounts.roles import RESEARCHER
from research.figures import FIGURES
from tests.factories import UserFactory, rater
from tests.paper_table4 import PAPER_AVERAGES

pytestmark = pytest.mark.django_db


@pytest.fixture
def researcher_client(client):
    client.force_login(UserFactory(username="res1", role=RESEARCHER))
    return client


def test_research_page_shows_the_overall_table_with_marks(researcher_client, table4):
    page = researcher_client.get("/research/", {"study": table4.pk})
    assert page.status_code == 200
    html = page.content.decode()
    assert "135.35**" in html and "116.2<" in html
    assert "gemini-2.5-pro" in html and "Table 2" in html


def test_filters_by_model_and_condition_pair(researcher_client, table4):
    page = researcher_client.get("/research/", {"study": table4.pk, "models": ["01"], "a": "B", "b": "A"})
    html = page.content.decode()
    assert "<td>qwen3-instruct</td>" in html and "<td>gpt-5</td>" not in html
    team, mark, baseline = PAPER_AVERAGES["01"]
    # the mark and the bold go to the higher average (A's), whichever condition comes first
    assert f"<strong>{team}{mark}</strong>" in html and mark == "**"
    assert f'<td class="num">{baseline}</td>' in html


def test_every_figure_downloads_as_svg_and_png(researcher_client, table4):
    for name in FIGURES:
        svg = researcher_client.get(f"/research/figures/{name}.svg", {"study": table4.pk, "download": 1})
        assert svg.status_code == 200 and svg["Content-Type"] == "image/svg+xml"
        assert b"<svg" in svg.content and "attachment" in svg["Content-Disposition"]
        # Table 4's study holds overall scores only: the step, dimension, efficiency and
        # flexibility figures have nothing to draw and say so
        empty = name in (
            "steps",
            "dimensions",
            "efficiency",
            "diversity_flexibility",
            "diversity_flexibility_models",
        )
        assert (b"No data yet" in svg.content) == empty, name
        png = researcher_client.get(f"/research/figures/{name}.png", {"study": table4.pk})
        assert png.status_code == 200 and png.content.startswith(b"\x89PNG")


def test_unknown_figure_is_404(researcher_client, table4):
    assert researcher_client.get("/research/figures/nope.svg").status_code == 404
    assert researcher_client.get("/research/figures/steps.pdf").status_code == 404


@pytest.mark.parametrize(
    "method, path",
    [
        ("get", "/research/"),
        ("get", "/research/figures/steps.svg"),
        ("post", "/research/exports/"),
        ("get", "/research/exports/1/"),
        ("get", "/research/exports/1/download"),
        ("get", "/manage/workbooks/"),
    ],
)
def test_raters_never_reach_results_or_exports(client, table4, method, path):
    client.force_login(rater("r-only", "H42"))
    response = getattr(client, method)(path)
    assert response.status_code == 403


def test_researcher_cannot_build_or_fetch_all_offline_workbooks(researcher_client, table4):
    response = researcher_client.post("/research/exports/", {"kind": "workbooks", "study": table4.pk})
    assert response.status_code == 403
    assert get_user_model().objects.filter(username="res1").exists()


def test_research_page_shows_table6_from_the_agreement_statistics(researcher_client, table4):
    from calibration.models import ResponseAgreement
    from studies.models import Response

    for i, response in enumerate(Response.objects.filter(study=table4)[:4]):
        ResponseAgreement.objects.create(response=response, pcc=0.5 + i / 10, flagged=False)  # mean 0.65
    html = researcher_client.get("/research/", {"study": table4.pk}).content.decode()
    assert "Table 6" in html
    table6 = html[html.index("Table 6") :]
    row = table6.replace("\n", "")
    row = row[row.index('<th scope="row">PCC (the sheet&#x27;s maxima, headline)</th>') :]
    row = row[: row.index("</tr>")]
    # four responses: the mean with its 95% CI, not bold, and marked as no headline
    # the mean 0.65 and its t-interval over the four PCCs (0.5, 0.6, 0.7, 0.8), three decimals
    assert '<td class="num">0.650 [0.445, 0.855]</td>' in row and "<strong>" not in row
    assert "Not a headline: fewer than 5 responses" in row
