"""The results page and its figures are computed once per data version (issue 14): a warm
page computes no tables and draws no figure, and any change of what they show (a score, a
withdrawn response, a setting, a name) gives a new version, so nothing stale is served."""

import io
import re
from decimal import Decimal

import pytest
from django.test import override_settings
from django.utils import translation
from openpyxl import load_workbook

import research.selectors.figures as figure_selectors
import research.selectors.research as research_selectors
from calibration.models import FinalScore
from core.accounts.roles import RESEARCHER
from research.models import ExportJob
from research.selectors.versions import research_data_version
from research.services.exports import export_job_run
from studies.models import ModelEndpoint, ResponseStatus
from teamllm_web.cache import redis_cache
from tests.brokers import free_port
from tests.caches import cache_clear_own
from tests.factories import UserFactory
from tests.paper_table4 import load_table4

pytestmark = pytest.mark.django_db


@pytest.fixture
def study():
    cache_clear_own()
    return load_table4()


@pytest.fixture
def researcher(client):
    client.force_login(UserFactory(username="res-results-cache", role=RESEARCHER))
    return client


@pytest.fixture
def calls(monkeypatch):
    """How often the tables were computed and a figure drawn."""
    counted = {"tables": 0, "figures": 0}

    def counting(name, real):
        def wrapper(*args, **kwargs):
            counted[name] += 1
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(
        research_selectors, "results_compute", counting("tables", research_selectors.results_compute)
    )
    monkeypatch.setattr(figure_selectors, "figure_build", counting("figures", figure_selectors.figure_build))
    return counted


def _page(client, study) -> str:
    """The page without its per-request CSRF tokens."""
    reply = client.get("/research/", {"study": study.pk})
    assert reply.status_code == 200
    html = re.sub(r'"X-CSRFToken": "[^"]+"', "", reply.content.decode())
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)


def test_a_warm_page_computes_no_tables_and_a_changed_score_shows_at_once(researcher, study, calls):
    first = _page(researcher, study)
    assert "135.35**" in first and calls["tables"] == 1
    assert _page(researcher, study) == first
    assert calls["tables"] == 1  # served from the cache

    # model 01, TeamLLM, FS1: 135.5 -> 175.5 raises its mean over 10 scenarios by 4
    final = FinalScore.objects.get(
        response__study=study, response__model__model_number="01", response__condition__letter="A",
        response__scenario__code="FS1",
    )  # fmt: skip
    final.overall += Decimal("40")
    final.save()
    changed = _page(researcher, study)
    assert calls["tables"] == 2
    assert "139.35**" in changed and "135.35**" not in changed


def test_a_withdrawn_response_leaves_the_tables_at_once(researcher, study, calls):
    _page(researcher, study)
    final = FinalScore.objects.get(
        response__study=study, response__model__model_number="01", response__condition__letter="A",
        response__scenario__code="FS1",
    )  # fmt: skip
    response = final.response
    response.status = ResponseStatus.WITHDRAWN
    response.save(update_fields=["status"])  # as withdrawing does: updated_at stays
    page = _page(researcher, study)
    assert calls["tables"] == 2
    # the mean of the nine other scenarios: (1353.5 - 135.5) / 9 = 135.33
    assert "135.33" in page and "135.35" not in page


def test_settings_and_names_change_the_version(study):
    version = research_data_version(study=study)
    study.agreement_threshold = Decimal("0.70")
    study.save()
    assert research_data_version(study=study) != version
    version = research_data_version(study=study)
    ModelEndpoint.objects.filter(model_number="01").update(name="renamed-model")
    assert research_data_version(study=study) != version


def test_a_warm_figure_is_not_drawn_again_and_reuses_the_pages_tables(researcher, study, calls):
    _page(researcher, study)
    first = researcher.get("/research/figures/steps.svg", {"study": study.pk})
    assert first.status_code == 200 and calls["figures"] == 1
    assert calls["tables"] == 1  # the page's results (with diversity) served the figure
    again = researcher.get("/research/figures/steps.svg", {"study": study.pk})
    assert again.content == first.content and calls["figures"] == 1


def test_without_redis_the_page_is_computed_every_time(researcher, study, calls):
    down = {
        # nothing listens there
        "default": redis_cache(url=f"redis://127.0.0.1:{free_port()}/0", prefix="down", timeout=0.5)
    }
    with override_settings(CACHES=down):
        assert "135.35**" in _page(researcher, study)
        assert "135.35**" in _page(researcher, study)
    assert calls["tables"] == 2


def test_an_export_after_a_change_shows_the_new_score(researcher, study, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    user = UserFactory(username="res-export-cache", role=RESEARCHER)

    def overall_of_model_01() -> float:
        job = ExportJob.objects.create(kind="results", params={"study_id": study.pk}, created_by=user)
        job = export_job_run(job_id=job.pk)
        assert job.status == ExportJob.Status.DONE, job.error
        with job.file.open("rb") as handle:
            book = load_workbook(io.BytesIO(handle.read()), read_only=True)
        sheet = book[next(name for name in book.sheetnames if name.startswith("Overall"))]
        header, *rows = sheet.iter_rows(values_only=True)
        rows = [row for row in rows if row[:2] == ("qwen3-instruct", "A")]
        return rows[0][list(header).index("Avg")]  # the average over the scenarios

    _page(researcher, study)  # the page caches the results the export uses
    before = overall_of_model_01()
    final = FinalScore.objects.get(
        response__study=study, response__model__model_number="01", response__condition__letter="A",
        response__scenario__code="FS1",
    )  # fmt: skip
    final.overall += Decimal("40")
    final.save()
    after = overall_of_model_01()
    assert (before, after) == (135.35, 139.35)


def test_each_language_gets_its_own_tables(study, calls):
    """Table 6 carries translated text: a page first computed in English must not serve
    those words to a rater reading in Chinese (and the reverse)."""
    with translation.override("en"):
        english = research_selectors.results_cached_get(study=study, with_diversity=False)
    with translation.override("zh-hans"):
        chinese = research_selectors.results_cached_get(study=study, with_diversity=False)
        chinese_again = research_selectors.results_cached_get(study=study, with_diversity=False)
    assert english.consistency["after_definition"].startswith("After calibration:")
    assert chinese.consistency["after_definition"] != english.consistency["after_definition"]
    assert not chinese.consistency["after_definition"].startswith("After calibration")
    assert chinese_again.consistency == chinese.consistency
    assert calls["tables"] == 2  # once per language, then from the cache
