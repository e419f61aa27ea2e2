"""The recompute task retries a deadlock or a lost connection instead of losing the
recompute (a backlog sent at once after a broker outage runs many tasks together)."""

from django.db import OperationalError

from calibration import tasks


def test_a_deadlocked_recompute_is_retried(monkeypatch):
    calls = []

    def recompute(*, response_id):
        calls.append(response_id)
        if len(calls) == 1:
            raise OperationalError("deadlock detected")

    monkeypatch.setattr(tasks, "response_scores_recompute", recompute)
    result = tasks.response_scores_changed.apply(args=(42,))
    assert result.successful()
    assert calls == [42, 42]
