"""``manage.py judge`` on a real worker and the stub over HTTP."""

import pytest
from django.core.management import CommandError, call_command

from judging.models import Judge, JudgeBatch
from scoring.models import ScoreSheet
from tests.factories import stub_endpoint

pytestmark = pytest.mark.worker


def test_judge_waits_and_reports_stored_sheets(celery_worker, demo, llm_stub, capsys):
    stub_endpoint(llm_stub)
    call_command("judge", study="CGPST demo", model="stub", scenario="FS10", wait=True, timeout=120)
    out = capsys.readouterr()
    assert out.out.startswith("1 judge sheet(s) stored, 0 failed (1 calls")
    judge = Judge.objects.get()
    assert ScoreSheet.all_objects.filter(assignment__rater=judge.user, status="submitted").count() == 1
    call_command("judge", study="CGPST demo", model="stub", samples=2, wait=True, timeout=120)
    assert Judge.objects.count() == 1  # reused for the same endpoint and prompt version
    assert capsys.readouterr().out.startswith("1 judge sheet(s) stored, 0 failed (2 calls")


def test_judge_reports_failures_with_an_exit_code(celery_worker, demo, llm_stub, capsys):
    stub_endpoint(llm_stub)
    llm_stub.configure(judge_fault="prose", judge_fault_attempts=2)
    with pytest.raises(CommandError, match="1 judge task\\(s\\) failed"):
        call_command("judge", study="CGPST demo", model="stub", wait=True, timeout=120)
    assert capsys.readouterr().out.startswith("0 judge sheet(s) stored, 1 failed")


def test_judge_refuses_bad_input_clearly(demo, llm_stub):
    stub_endpoint(llm_stub)
    judges = list(Judge.objects.values_list("pk", "name", "samples"))  # the demo's own judge
    with pytest.raises(CommandError, match="unknown study"):
        call_command("judge", study="nope", model="stub")
    with pytest.raises(CommandError, match="unknown model endpoint"):
        call_command("judge", study="CGPST demo", model="nope")
    with pytest.raises(CommandError, match="unknown scenario"):
        call_command("judge", study="CGPST demo", model="stub", scenario="FS99")
    with pytest.raises(CommandError, match="between 1 and 10"):
        call_command("judge", study="CGPST demo", model="stub", samples=0)
    with pytest.raises(CommandError, match="no base URL"):
        call_command("judge", study="CGPST demo", model="kimi-k2")
    assert not JudgeBatch.objects.exists()
    assert list(Judge.objects.values_list("pk", "name", "samples")) == judges
