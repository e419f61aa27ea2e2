"""The results workbook names the conditions as the exporting researcher's pages do: in their
language, in the About sheet (a label); the data columns keep the conditions' letters, as the
release's tables do, so a script reading them gets the same cells in either language."""

import pytest
from django.test import override_settings
from django.utils import translation
from openpyxl import load_workbook

from core.accounts.roles import RESEARCHER
from research.models import ExportJob
from research.services.exports import export_job_run
from tests.factories import UserFactory
from tests.paper_table4 import load_table4

pytestmark = pytest.mark.django_db


def _export(client, study, tmp_path, language: str):
    client.post("/i18n/setlang/", {"language": language, "next": "/"})
    started = client.post("/research/exports/", {"kind": "results", "study": study.pk})
    assert started.status_code == 200
    job = ExportJob.objects.latest("pk")
    assert job.params["language"] == language
    # as a worker runs it: the job's language, not the one the last request left active here
    with override_settings(MEDIA_ROOT=tmp_path / language), translation.override(None):
        done = export_job_run(job_id=job.pk)
        assert done.status == "done", done.error
        with done.file.open("rb") as handle:
            wb = load_workbook(handle, read_only=True)
            about = {row[0]: row[1] for row in wb["About"].iter_rows(values_only=True) if row and row[0]}
            data = {
                ws.title: list(ws.iter_rows(values_only=True)) for ws in wb.worksheets if ws.title != "About"
            }
            wb.close()
    return about, data


def test_the_about_sheet_names_conditions_in_the_exporters_language(client, tmp_path):
    study = load_table4()
    client.force_login(UserFactory(username="res-export-zh", role=RESEARCHER))
    english, english_rows = _export(client, study, tmp_path, "en")
    chinese, chinese_rows = _export(client, study, tmp_path, "zh-hans")
    assert "A = TeamLLM" in english["Conditions"] and "B = Single model (baseline)" in english["Conditions"]
    assert "B = 单一模型（基线）" in chinese["Conditions"] and "Single model" not in chinese["Conditions"]
    # the data: the same letters and numbers under the same (the release's) English headers
    assert chinese_rows == english_rows and len(english_rows) > 5


def test_the_api_takes_the_about_sheets_language(client, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path
    study = load_table4()
    client.force_login(UserFactory(username="res-export-api", role=RESEARCHER))
    refused = client.post(
        "/api/v1/exports", {"study": study.pk, "language": "fr"}, content_type="application/json"
    )
    assert refused.status_code == 422 and not ExportJob.objects.exists()
    started = client.post(
        "/api/v1/exports", {"study": study.pk, "language": "zh-hans"}, content_type="application/json"
    )
    assert started.status_code == 201, started.content
    done = export_job_run(job_id=started.json()["id"])
    with done.file.open("rb") as handle:
        wb = load_workbook(handle, read_only=True)
        about = {row[0]: row[1] for row in wb["About"].iter_rows(values_only=True) if row and row[0]}
        wb.close()
    assert "B = 单一模型（基线）" in about["Conditions"]


def test_a_job_without_a_language_names_them_in_english(tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path
    study = load_table4()
    job = ExportJob.objects.create(kind="results", params={"study_id": study.pk})  # as the API makes it
    done = export_job_run(job_id=job.pk)
    with done.file.open("rb") as handle:
        wb = load_workbook(handle, read_only=True)
        about = {row[0]: row[1] for row in wb["About"].iter_rows(values_only=True) if row and row[0]}
        wb.close()
    assert "B = Single model (baseline)" in about["Conditions"]
