"""An LLM's answer is paid for: a database that is busy or away when the answer arrives delays
its storing and does not throw it away (a worker redoing the call bought it twice). A blip that
outlasts GENERATION_STORE_WAIT_SECONDS still raises, and the task's retry makes the call again."""

import logging
import threading
import time

import pytest

from generation.models import GenerationRun, Turn
from generation.services.batches import batch_create
from generation.services.runs import run_step
from studies.models import Condition, Scenario, Study
from tests.db_holds import hold_taken, short_waits
from tests.factories import stub_endpoint
from tests.workers import wait_for

pytestmark = [pytest.mark.fault, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def run(demo, llm_stub):
    return batch_create(
        study=Study.objects.get(name="CGPST demo"),
        scenarios=[Scenario.objects.get(code="FS10")],
        endpoints=[stub_endpoint(llm_stub)],
        conditions=[Condition.objects.get(letter="B")],
        enqueue=lambda **kwargs: None,  # no worker here: the test makes the calls
    ).runs[0]


def _hold_while_answering(llm_stub, run, *, after_answer: float) -> threading.Thread:
    """Another connection holds the run's row from while the call is out until ``after_answer``
    seconds after the answer arrived."""

    def hold():
        wait_for(lambda: llm_stub.stats.in_flight == 1, timeout=10)
        with hold_taken(GenerationRun._meta.db_table, run.pk):
            wait_for(lambda: llm_stub.stats.completions == 1, timeout=10)
            time.sleep(after_answer)

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    return holder


def _settled(llm_stub) -> None:
    # The stub counts a completion after its last write, so the client can hold the answer first.
    wait_for(lambda: llm_stub.stats.in_flight == 0, timeout=10)


def test_an_answer_arriving_while_the_database_is_held_is_stored_once_it_is_free(run, llm_stub, caplog):
    llm_stub.configure(latency_ms=800)
    holder = _hold_while_answering(llm_stub, run, after_answer=2.0)
    with short_waits(), caplog.at_level(logging.WARNING, logger="core.outages"):
        outcome = run_step(run_id=run.pk, seq=0)
    holder.join(timeout=10)
    _settled(llm_stub)
    assert outcome.kind == "advanced" and outcome.next_seq == 1
    assert llm_stub.stats.requests == 1 and llm_stub.stats.completions == 1  # bought once
    turn = Turn.objects.get(run=run)
    assert turn.seq == 0 and turn.reply
    run.refresh_from_db()
    assert run.calls_done == 1
    assert "the database is busy or away; writing again" in caplog.text


def test_a_blip_outlasting_the_wait_raises_and_the_retry_calls_again(run, llm_stub, settings):
    settings.GENERATION_STORE_WAIT_SECONDS = 1.0
    llm_stub.configure(latency_ms=800)
    holder = _hold_while_answering(llm_stub, run, after_answer=3.0)
    with short_waits(), pytest.raises(Exception) as raised:
        run_step(run_id=run.pk, seq=0)
    holder.join(timeout=10)
    assert "lock" in str(raised.value).lower()  # SQLite's "database is locked", PostgreSQL's lock timeout
    assert not Turn.objects.filter(run=run).exists()
    llm_stub.configure(latency_ms=0)
    assert run_step(run_id=run.pk, seq=0).kind == "advanced"  # the task's retry
    _settled(llm_stub)
    assert llm_stub.stats.completions == 2 and Turn.objects.filter(run=run).count() == 1
