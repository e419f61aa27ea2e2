"""A recompute's scenario lock excludes a second recompute of the scenario but not a
response being created in it (a generation run finishing): the deadlock between the
two that the recompute task used to retry cannot form."""

from __future__ import annotations

import threading

import pytest
from django.db import OperationalError, connection, transaction

from calibration.services.calibration import scenario_agreement_recompute
from tests.factories import make_response

pytestmark = pytest.mark.django_db(transaction=True)


def _hold_scenario_lock(study_id: int, scenario_id: int, locked: threading.Event, release: threading.Event):
    """Another connection: a recompute that holds its transaction open until told."""
    from calibration.services import calibration

    original = calibration._recompute

    def slow_recompute(**kwargs):
        locked.set()
        release.wait(20)
        return original(**kwargs)

    calibration._recompute = slow_recompute
    try:
        scenario_agreement_recompute(study_id=study_id, scenario_id=scenario_id)
    finally:
        calibration._recompute = original
        connection.close()


def _with_lock_timeout(work):
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '3s'")
        return work()


@pytest.mark.postgres  # row locks
def test_a_response_is_created_while_a_recompute_holds_its_scenario():
    first = make_response()
    locked, release = threading.Event(), threading.Event()
    holder = threading.Thread(
        target=_hold_scenario_lock, args=(first.study_id, first.scenario_id, locked, release)
    )
    holder.start()
    try:
        assert locked.wait(20)
        second = _with_lock_timeout(
            lambda: make_response(
                study=first.study,
                scenario=first.scenario,
                model=first.model,
                condition=first.condition,
                research_id="B02_" + first.scenario.code,
            )
        )
        assert second.scenario_id == first.scenario_id
        with pytest.raises(OperationalError, match="lock timeout"):
            _with_lock_timeout(
                lambda: scenario_agreement_recompute(study_id=first.study_id, scenario_id=first.scenario_id)
            )
    finally:
        release.set()
        holder.join(30)
