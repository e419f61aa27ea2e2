"""The product's sheets in the release's own Excel layout, read as the release's
``Extract_Scores.py`` ``get_original_scores`` reads them: every .xlsx of the folder, each
worksheet with pandas (``header=None``), each score at the cell of its ``location``, the rater and
scenario from the file's name, the research ID from the worksheet's. On the release's own scores
(``data_A.json`` imported): the numbers the file states for each expert."""

from __future__ import annotations

import json
import os
import zipfile

import pandas as pd
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from openpyxl.utils import coordinate_to_tuple

from core.accounts.roles import RESEARCHER
from research.models import ExportJob
from research.services.exports import export_job_run
from scoring.score_files import file_summaries
from studies.models import Study
from studies.services.studies import EMPTY, study_create
from tests.conftest import REFERENCE
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

# Extract_Scores.py's ``location`` (the cells of the study's scoring sheet), as data
LOCATION = {
    "Step-1": {"Fluency": "W19", "Flexibility": "W21", "Elaboration": "W23", "Originality": "W25", "Overall": "W27"},
    "Step-2": {"Condition Phrase": "U32", "Stem & KVP": "U34", "Purpose": "U37", "FS Parameters": "U40",
               "Focus": "U43", "Adequacy": "U46", "Overall": "W49"},
    "Step-3": {"Fluency": "W70", "Flexibility": "W72", "Elaboration": "W74", "Originality": "W76", "Overall": "W78"},
    "Step-4": {"Correctly Written": "X86", "Relevance": "X89", "Overall": "W95"},
    "Step-5": {"Correctly Used": "X92", "Overall": "W97"},
    "Step-6": {"Relevance": "Y102", "Effectiveness": "Y106", "Criteria": "Y110", "Impact": "Y114",
               "Humaness": "Y118", "Development": "Y122", "Overall": "W129"},
    "Total Score": "X133",
}  # fmt: skip


def _read_as_the_release(folder) -> list:
    scores = []
    for name in sorted(f for f in os.listdir(folder) if f.endswith(".xlsx")):
        path = os.path.join(folder, name)
        sheets = pd.ExcelFile(path).sheet_names
        assert all("_" in sheet for sheet in sheets)
        for sheet in sheets:
            frame = pd.read_excel(path, sheet_name=sheet, header=None)

            def value(cell, frame=frame):
                row, column = coordinate_to_tuple(cell)
                return frame.iat[row - 1, column - 1]

            steps = {
                step: {dim: round(value(cell)) for dim, cell in LOCATION[step].items()}
                for step in (f"Step-{n}" for n in range(1, 7))
            }
            steps["Total Score"] = round(value(LOCATION["Total Score"]))
            scores.append([sheet, name[:-5].split("_")[0], name[:-5].split("_")[1], steps])
    return scores


def test_the_releases_reader_gets_the_release_scores_back(tmp_path):
    call_command(
        "import_scores", str(REFERENCE / "data_A.json"), "--study", "Replication", "--create-missing"
    )
    call_command("export_results", "--study", "Replication", "--release-workbooks", str(tmp_path / "out"))
    assert sorted(os.listdir(tmp_path / "out")) == ["H01_FS10.xlsx", "H02_FS10.xlsx"]
    read = {
        (rater, sheet): (scenario, steps)
        for sheet, rater, scenario, steps in _read_as_the_release(tmp_path / "out")
    }

    release = json.loads((REFERENCE / "data_A.json").read_text(encoding="utf-8"))
    for research_id, raters, scenario, *per_rater in release:
        for rater, stated_scores in zip(raters, per_rater, strict=True):
            got_scenario, steps = read[(rater, research_id)]
            assert got_scenario == scenario
            stated = file_summaries(stated_scores)
            assert steps["Total Score"] == stated["overall"]
            for n in range(1, 7):
                assert steps[f"Step-{n}"]["Overall"] == stated[f"step:{n}"], (rater, n)
            for n, names in ((1, ("Fluency", "Flexibility", "Elaboration", "Originality")),
                             (3, ("Fluency", "Flexibility", "Elaboration", "Originality")),
                             (4, ("Correctly Written", "Relevance"))):  # fmt: skip
                for name in names:
                    key = {"Correctly Written": "s4.correctly_written", "Relevance": "s4.relevance"}.get(
                        name, f"s{n}.{name.lower()}"
                    )
                    assert steps[f"Step-{n}"][name] == stated[key], (rater, n, name)
            # Steps 2, 5 and 6 as the file gives them, dimension by dimension
            for n in (2, 5, 6):
                given = next(it for it in stated_scores[f"Step-{n}"] if isinstance(it, dict))
                for name, cell_value in steps[f"Step-{n}"].items():
                    if name != "Overall":
                        assert cell_value == given[name], (rater, n, name)


def test_a_study_without_submitted_sheets_is_refused_and_writes_nothing(tmp_path):
    study_create(name="Empty one", template=EMPTY)
    with pytest.raises(CommandError, match="no submitted sheet"):
        call_command("export_results", "--study", "Empty one", "--release-workbooks", str(tmp_path / "none"))
    assert not (tmp_path / "none").exists()


def test_the_research_page_exports_them_as_a_zip(client, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path
    call_command(
        "import_scores", str(REFERENCE / "data_A.json"), "--study", "Replication", "--create-missing"
    )
    study = Study.objects.get(name="Replication")
    client.force_login(UserFactory(username="res-release", role=RESEARCHER))
    started = client.post("/research/exports/", {"kind": "release_workbooks", "study": study.pk})
    assert started.status_code == 200
    done = export_job_run(job_id=ExportJob.objects.get(kind="release_workbooks").pk)
    assert done.status == "done", done.error
    with done.file.open("rb") as handle, zipfile.ZipFile(handle) as archive:
        assert sorted(archive.namelist()) == ["H01_FS10.xlsx", "H02_FS10.xlsx"]
        archive.extractall(tmp_path / "unzipped")
    read = {
        (rater, sheet): steps
        for sheet, rater, _scenario, steps in _read_as_the_release(tmp_path / "unzipped")
    }
    assert read[("H01", "A05_FS10")]["Total Score"] == 116
    assert read[("H02", "A05_FS10")]["Total Score"] == 117
