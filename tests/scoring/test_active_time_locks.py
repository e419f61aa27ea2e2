"""A page's last save and its time report meet (the browser tests saw it on closing a page): the
time report held its rater's row FOR UPDATE and waited for the sheet, while the save held the sheet
and needed FOR KEY SHARE on that row for its event's foreign key: PostgreSQL's deadlock, one of them
refused. The time report now takes FOR NO KEY UPDATE, which a foreign key's check does not wait for."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction

from scoring.models import Assignment, EventKind, ScoreSheet, SheetEvent
from scoring.services.active_time import sheet_active_time_add
from scoring.services.sheets import sheet_open
from studies.models import Response

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_save_holding_its_sheet_and_a_time_report_both_finish(demo):
    if connection.vendor != "postgresql":
        pytest.skip("row-lock modes are PostgreSQL's")
    assignment = Assignment.objects.get(
        response=Response.objects.get(research_id="A05_FS10"), rater__username="rater1"
    )
    sheet = sheet_open(assignment=assignment, actor=assignment.rater)
    ScoreSheet.all_objects.filter(pk=sheet.pk).update(active_reported_at=None)
    sheet_locked, errors, reported = threading.Event(), [], []

    def save() -> None:
        try:
            with transaction.atomic():
                ScoreSheet.all_objects.select_for_update().get(pk=sheet.pk)
                sheet_locked.set()
                time.sleep(1.0)  # the time report has its rater's row by now, and waits for the sheet
                SheetEvent.objects.create(
                    sheet_id=sheet.pk, actor_id=assignment.rater_id, kind=EventKind.CHANGE
                )
        except Exception as exc:  # a deadlock refuses one side
            errors.append(exc)
        finally:
            connection.close()

    def report() -> None:
        sheet_locked.wait(10)
        try:
            reported.append(sheet_active_time_add(sheet_id=sheet.pk, seconds=30))
        except Exception as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=save), threading.Thread(target=report)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert reported == [True]
    assert SheetEvent.objects.filter(sheet_id=sheet.pk, kind=EventKind.CHANGE).count() == 1
