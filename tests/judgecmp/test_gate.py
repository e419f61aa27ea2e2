"""Issue 39: the gate before a judge may count as a study's third rater. The alternative annotator
test passes a judge built to agree and refuses one built to disagree; without a passed test for
the judge's present model the opt-in is refused; a failed test or a changed model takes it away,
audited; the test runs again when a batch of the judge ends."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from core.accounts.roles import ADMIN, RESEARCHER
from generation.services.endpoints import endpoint_update
from judging.models import JudgeQualification
from judging.services.opt_in import OptInRefused, study_judge_opt_in_set
from judging.services.qualification import judge_qualification_run
from studies.models import AuditEvent
from studies.rubric import load_rubric
from tests.factories import UserFactory, mirrored_changes
from tests.judgecmp.conftest import humans_scored, judge_agreeing, rater_a_changes
from tests.judgecmp.factories import judge_make, judge_qualified, judge_sheet

pytestmark = pytest.mark.django_db


@pytest.fixture
def agreeing(db):
    group, human = humans_scored()
    judge = judge_make("j-gate", endpoint=human[0][0].model)
    judge_agreeing(judge, human)
    return group.study, judge


def test_a_judge_built_to_agree_passes_and_one_built_to_disagree_does_not(agreeing, settings):
    study, judge = agreeing
    passed = judge_qualified(judge, study, settings)
    assert passed.passed and passed.winning_rate == 1 and passed.responses == 4
    assert [c["judge_beats_rater"] for c in passed.comparisons] == [True, True]

    group, human = humans_scored()
    rubric = load_rubric()
    contrary = judge_make("j-contrary", endpoint=human[0][0].model)
    for index, (response, _a, _b) in enumerate(human):
        judge_sheet(contrary, response, mirrored_changes(rater_a_changes(index), rubric))
    failed = judge_qualified(contrary, group.study, settings)
    assert not failed.passed and failed.winning_rate == 0
    events = AuditEvent.objects.filter(action="judge.qualification").order_by("pk")
    assert [e.changes["passed"] for e in events] == [True, False]


def test_too_few_double_scored_responses_do_not_pass(agreeing):
    study, judge = agreeing  # four responses, fifty needed by default
    result = judge_qualification_run(study=study, judge=judge)
    assert not result.passed and "the test needs at least 50" in result.unrun_text()
    with pytest.raises(OptInRefused, match="did not pass .*needs at least 50"):
        study_judge_opt_in_set(study=study, judge=judge)


def test_the_opt_in_is_refused_without_a_passed_test_and_nothing_changes(agreeing):
    study, judge = agreeing
    with pytest.raises(OptInRefused, match="only after passing the alternative annotator test"):
        study_judge_opt_in_set(study=study, judge=judge)
    with pytest.raises(CommandError, match="only after passing"):
        call_command("judge_opt_in", "--study", study.name, "--judge", judge.name)
    study.refresh_from_db()
    assert study.calibrating_judge is None
    assert not AuditEvent.objects.filter(action="study.judge_opt_in").exists()


def test_a_failed_test_revokes_the_opt_in_audited(agreeing, settings):
    study, judge = agreeing
    judge_qualified(judge, study, settings)
    study_judge_opt_in_set(study=study, judge=judge)
    settings.JUDGE_GATE_MIN_RESPONSES = 50
    judge_qualification_run(study=study, judge=judge)
    study.refresh_from_db()
    assert study.calibrating_judge is None
    revoked = AuditEvent.objects.filter(action="study.judge_opt_in").latest("pk")
    assert revoked.changes["calibrating_judge"] == [judge.user_id, None]
    assert revoked.reason == "the judge did not pass the test"


def test_a_changed_model_revokes_the_opt_in_until_tested_again(agreeing, settings):
    study, judge = agreeing
    judge_qualified(judge, study, settings)
    study_judge_opt_in_set(study=study, judge=judge)
    admin = UserFactory(username="admin-gate", role=ADMIN)
    endpoint_update(endpoint_id=judge.endpoint_id, actor=admin, values={"model_name": "another-model"})
    study.refresh_from_db()
    assert study.calibrating_judge is None
    revoked = AuditEvent.objects.filter(action="study.judge_opt_in").latest("pk")
    assert revoked.actor == admin and "model changed" in revoked.reason
    judge.refresh_from_db()
    with pytest.raises(OptInRefused, match="passed the test with prompt .* and model"):
        study_judge_opt_in_set(study=study, judge=judge)
    # the old model's sheets do not speak for the new one
    again = judge_qualification_run(study=study, judge=judge)
    assert not again.passed and again.responses == 0


def test_admins_run_the_test_on_the_page_researchers_see_it(agreeing, client, settings):
    study, judge = agreeing
    settings.JUDGE_GATE_MIN_RESPONSES = settings.JUDGE_GATE_MIN_PER_RATER = 4
    client.force_login(UserFactory(username="res-gate", role=RESEARCHER))
    page = client.get("/research/judge/", {"study": study.pk, "judge": judge.pk}).content.decode()
    assert "Not tested yet on this study." in page and "Run the test now" not in page
    assert client.post("/research/judge/qualify", {"study": study.pk, "judge": judge.pk}).status_code == 403

    client.force_login(UserFactory(username="admin-gate-page", role=ADMIN))
    page = client.get("/research/judge/", {"study": study.pk, "judge": judge.pk}).content.decode()
    assert "count as third rater</button>" not in page  # not before the test
    refused = client.post("/research/judge/opt-in", {"study": study.pk, "judge": judge.pk}, follow=True)
    assert "only after passing the alternative annotator test" in refused.content.decode()
    done = client.post("/research/judge/qualify", {"study": study.pk, "judge": judge.pk}, follow=True)
    html = done.content.decode()
    assert "j-gate passed the alternative annotator test." in html
    assert "Winning rate 1, advantage probability 1" in html and "count as third rater</button>" in html
    for bad in ({"study": study.pk, "judge": "x"}, {"study": "x", "judge": judge.pk}, {"judge": 10**30}):
        assert client.post("/research/judge/qualify", bad).status_code == 404
    assert JudgeQualification.objects.count() == 1
