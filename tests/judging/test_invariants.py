"""Judge sheets never reach human statistics: agreement, final scores, calibration routing,
Table 6, the long exports and the human queues are the same with and without them."""

import json

import pytest
from django.core.management import call_command

from calibration.models import FinalScore, GroupAgreement, ResponseAgreement
from calibration.services.calibration import study_agreement_recompute
from core.accounts.roles import RESEARCHER
from judging.selectors.batches import judge_sheets
from judging.services.judges import judge_create
from judging.services.sheets import judge_sheet_store
from research.selectors.results import raw_score_rows_iter, score_records_get
from scoring.models import Assignment, ScoreSheet
from studies.models import ModelEndpoint, Response, Study
from tests.conftest import REFERENCE
from tests.factories import SHEET_TEXTS, UserFactory, reference_changes

pytestmark = pytest.mark.django_db


def _snapshot(study, client):
    study_agreement_recompute(study_id=study.pk)
    page = client.get("/research/", {"study": study.pk}).content.decode()
    return {
        "agreement": sorted(
            ResponseAgreement.objects.filter(response__study=study).values_list(
                "response_id", "pcc", "flagged"
            )
        ),
        "groups": sorted(GroupAgreement.objects.values_list("id", "forms", "n_responses")),
        "final": sorted(
            FinalScore.objects.filter(response__study=study).values_list(
                "response_id", "overall", "calibrated"
            )
        ),
        "records": [repr(r) for r in score_records_get(study=study)],
        "raw": [repr(r) for r in raw_score_rows_iter(study=study)],
        "calibration": sorted(
            Assignment.objects.filter(role="calibration").values_list("response_id", "rater_id")
        ),
        "queues": sorted(Assignment.objects.values_list("rater_id", "response_id", "role")),
        "table6": page[page.index("Table 6") :],
    }


def test_judge_sheets_change_no_human_output(demo, client, tmp_path):
    (record,) = json.loads((REFERENCE / "data_A.json").read_text(encoding="utf-8"))
    # the public sample's record under six models' research IDs (same human scores)
    records = [[f"A0{n}_FS10", *record[1:]] for n in range(1, 7)]
    path = tmp_path / "six.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    call_command("import_scores", str(path), "--study", "Replication", "--create-missing")
    study = Study.objects.get(name="Replication")
    client.force_login(UserFactory(username="res1", role=RESEARCHER))
    before = _snapshot(study, client)
    assert before["final"] and before["agreement"] and "Table 6" in before["table6"]

    judge = judge_create(name="Invariant judge", endpoint=ModelEndpoint.objects.get(name="stub"))
    values = dict([*reference_changes(3), *SHEET_TEXTS])
    values["dims.s2.focus"], values["dims.s6.development"] = 1, 1  # far from the humans
    stored = 0
    for response in Response.objects.filter(study=study):
        judge_sheet_store(judge=judge, response=response, values=values, note="invariant test")
        stored += 1
    assert stored == 6 and judge_sheets(study_id=study.pk).count() == 6
    assert not ScoreSheet.objects.filter(assignment__rater=judge.user).exists()
    assert _snapshot(study, client) == before
