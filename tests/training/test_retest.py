"""Test-retest probes beyond the study (issue 38): a share of each rater's old enough submitted
responses is served again under a new blind code; the rater cannot tell a probe from new work;
a probe's sheet never reaches agreement, routing, final scores or the results; a rater who scores
a probe differently shows a low intra-rater ICC(3,1) and an alarm, the same on the drift page, in
the ``retest`` command, in the API, and as pingouin computes it."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pandas as pd
import pingouin
import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from openpyxl import load_workbook

from api.services.tokens import token_create
from calibration.models import FinalScore, ResponseAgreement
from calibration.selectors.agreement import consistency_table
from calibration.selectors.agreement_state import sheet_vector
from calibration.services.calibration import study_agreement_recompute
from core.accounts.roles import ADMIN, RESEARCHER
from research.selectors.research import results_get
from research.workbook import results_workbook_write
from scoring.models import Assignment, AssignmentRole, ScoreSheet
from scoring.services.flags import response_flag_create
from studies.models import AuditEvent
from studies.rubric import load_rubric
from tests.factories import (
    UserFactory,
    reference_changes,
    scoring_group,
    sheet_submitted,
    varied_changes,
)
from training.selectors.retest import retest_report
from training.services.retest import retest_probes_serve, retest_settings_update

pytestmark = pytest.mark.django_db
SHIFTS = (-3, -1, 1, -2, 0, 2)


@pytest.fixture
def probed(db):
    """Six responses scored by one pair, four of them three weeks ago; probes at 50% after 14 days."""
    group, responses = scoring_group(n_responses=6)
    for index, (shift, response) in enumerate(zip(SHIFTS, responses, strict=True)):
        sheet_submitted(group.rater_a, response, varied_changes(reference_changes(3), shift), group=group)
        sheet_submitted(group.rater_b, response, varied_changes(reference_changes(4), shift - 1), group=group)
        if index < 4:
            ScoreSheet.objects.filter(assignment__response=response).update(
                submitted_at=timezone.now() - timedelta(days=21)
            )
    study_agreement_recompute(study_id=group.study_id)
    admin = UserFactory(username="retest-admin", role=ADMIN)
    retest_settings_update(
        study=group.study, percent=50, after_days=14, alarm_below=Decimal("0.5"), actor=admin
    )
    return group, responses


def _probes(rater):
    return list(Assignment.all_objects.filter(rater=rater, role=AssignmentRole.RETEST).order_by("id"))


def test_due_probes_are_served_once_under_new_codes(probed):
    group, responses = probed
    assert AuditEvent.objects.get(action="training.retest_settings").changes["retest_percent"] == [0, 50]
    assert retest_probes_serve(study_id=group.study_id) == 6  # ceil(50% of 6) for each rater
    assert retest_probes_serve(study_id=group.study_id) == 0  # idempotent
    old = {r.pk for r in responses[:4]}
    for rater in (group.rater_a, group.rater_b):
        probes = _probes(rater)
        assert len(probes) == 3 and {p.response_id for p in probes} <= old  # never a fresh sheet
        for probe in probes:
            original = Assignment.objects.get(rater=rater, response_id=probe.response_id)
            assert probe.retest_of_id == original.pk and probe.blind_code != original.blind_code
    served = AuditEvent.objects.get(action="training.retest_probes").changes["served"]
    assert served == {str(group.rater_a_id): 3, str(group.rater_b_id): 3}


def _study_numbers(study):
    """What a probe must never move: agreement and routing, final scores, Table 6, Table 1."""
    return {
        "agreement": list(
            ResponseAgreement.objects.order_by("response_id").values_list("pcc", "ccc", "flagged")
        ),
        "finals": list(FinalScore.objects.order_by("response_id").values_list("overall", flat=True)),
        "table6": consistency_table(study=study)["rows"][0]["before"],
        "table1": [row.values for table in results_get(study=study).table1 for row in table.rows],
    }


def test_a_probe_looks_like_new_work_and_counts_nowhere(probed):
    group, responses = probed
    rater = group.rater_a
    retest_probes_serve(study_id=group.study_id)
    probe = _probes(rater)[0]
    original = Assignment.objects.get(rater=rater, response_id=probe.response_id)
    response_flag_create(assignment=original, note="odd text")  # on the first one
    before = _study_numbers(group.study)

    client = Client()
    client.force_login(rater)
    queue = client.get("/scoring/").content.decode()
    assert probe.blind_code in queue and "retest" not in queue.lower() and "probe" not in queue.lower()
    page = client.get(f"/scoring/{probe.blind_code}/").content.decode()
    assert page.count(probe.blind_code) and original.blind_code not in page
    assert "odd text" not in page  # the earlier flag would name the response as seen before
    for word in ("retest", "probe", "calibration"):
        assert word not in page.lower(), word

    # the rater scores it quite differently, through the same services as any sheet
    sheet_submitted(rater, probe.response, varied_changes(reference_changes(4), 3), assignment=probe)
    study_agreement_recompute(study_id=group.study_id)
    assert _study_numbers(group.study) == before
    assert not Assignment.objects.filter(role=AssignmentRole.RETEST).exists()  # the data's manager


def _score_probes(group, *, rater, changes_of):
    """Each of the rater's probes scored with ``changes_of(shift)``, the shift of its response."""
    order = list(
        Assignment.objects.filter(group=group, rater=rater)
        .order_by("id")
        .values_list("response_id", flat=True)
    )
    for probe in _probes(rater):
        sheet_submitted(
            rater, probe.response, changes_of(SHIFTS[order.index(probe.response_id)]), assignment=probe
        )


def _pingouin_icc31(rater):
    rubric = load_rubric()
    rows = []
    for probe in _probes(rater):
        first = ScoreSheet.objects.get(assignment_id=probe.retest_of_id)
        again = ScoreSheet.all_objects.get(assignment=probe)
        for occasion, sheet in (("first", first), ("probe", again)):
            rows += [(probe.response_id, occasion, v) for v in sheet_vector(sheet.totals, rubric)]
    frame = pd.DataFrame(rows, columns=["response", "occasion", "value"])
    means = frame.groupby(["response", "occasion"], as_index=False)["value"].mean()
    table = pingouin.intraclass_corr(data=means, targets="response", raters="occasion", ratings="value")
    return table.set_index("Type").loc["ICC(C,1)" if "ICC(C,1)" in set(table["Type"]) else "ICC3", "ICC"]


def test_a_rater_who_rescores_differently_raises_the_alarm_in_every_place(probed, capsys, tmp_path):
    group, _responses = probed
    retest_probes_serve(study_id=group.study_id)
    # rater A scores each probe as before; rater B as if the responses ranked the other way round
    _score_probes(group, rater=group.rater_a, changes_of=lambda s: varied_changes(reference_changes(3), s))
    _score_probes(group, rater=group.rater_b, changes_of=lambda s: varied_changes(reference_changes(4), -s))
    report = {r["rater"]: r for r in retest_report(study=group.study)["raters"]}
    steady, drifting = report[group.rater_a.username], report[group.rater_b.username]
    # the same sheets again: the two occasions agree exactly (the ICC is 1, or undefined when the
    # probed responses happen to share one mean)
    assert steady["mean_pcc"] == pytest.approx(1) and steady["mean_change"] == 0 and not steady["alarm"]
    assert steady["icc"] is None or steady["icc"] == pytest.approx(1)
    assert drifting["icc"] == pytest.approx(_pingouin_icc31(group.rater_b)) and drifting["icc"] < 0.5
    assert drifting["alarm"] and list(report)[0] == group.rater_b.username  # alarms first

    researcher = UserFactory(username="retest-researcher", role=RESEARCHER)
    client = Client()
    client.force_login(researcher)
    page = client.get(f"/research/drift/?study={group.study_id}").content.decode()
    table = page.split('id="retest-raters"', 1)[1].split("</table>", 1)[0]
    row = table.split(f'<th scope="row">{group.rater_b.username}</th>', 1)[1].split("</tr>", 1)[0]
    assert f"{drifting['icc']:.3f}" in row and 'data-alarm="1"' in row

    call_command("retest", "--study", group.study.name)
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith(group.rater_b.username))
    assert f"{drifting['icc']:.3f}" in line and line.endswith("ALARM")

    book = tmp_path / "results.xlsx"
    results_workbook_write(results_get(study=group.study), book)
    sheet = load_workbook(book, read_only=True)["Test-retest (beyond)"]
    row = next(r for r in sheet.iter_rows(values_only=True) if r[0] == group.rater_b.username)
    assert row[3] == pytest.approx(drifting["icc"], abs=5e-5) and row[8] == "yes"

    token = token_create(user=researcher, name="t", scope="read", days=1)
    api = (
        Client(HTTP_AUTHORIZATION=f"Bearer {token.plain}")
        .get(f"/api/v1/studies/{group.study_id}/retest")
        .json()
    )
    by_rater = {r["rater"]: r for r in api["raters"]}
    assert by_rater[group.rater_b.username]["icc"] == pytest.approx(drifting["icc"])


def test_settings_out_of_range_change_nothing_and_only_admins_set_them(probed):
    group, _responses = probed
    admin = UserFactory(username="retest-admin2", role=ADMIN)
    client = Client()
    client.force_login(admin)
    page = client.post("/manage/training/retest/", {"study": group.study_id, "retest_percent": 80,
                                                    "retest_after_days": 14, "retest_alarm_below": "0.5"},
                       follow=True).content.decode()  # fmt: skip
    assert "less than or equal to 50" in page
    assert group.study.training_settings.retest_percent == 50
    researcher = UserFactory(username="retest-researcher2", role=RESEARCHER)
    client.force_login(researcher)
    answer = client.post("/manage/training/retest/", {"study": group.study_id, "retest_percent": 0,
                                                      "retest_after_days": 14, "retest_alarm_below": "0.5"})  # fmt: skip
    assert answer.status_code == 403
    group.study.training_settings.refresh_from_db()
    assert group.study.training_settings.retest_percent == 50
