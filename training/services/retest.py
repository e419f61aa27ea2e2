"""Test-retest probes (beyond the study): a share of each rater's submitted responses is served
to the same rater again, under a new blind code, once the sheet is old enough. The probe is an
assignment of role ``retest``: the rater sees it as new work (``scoring.selectors.rater_queue``),
and no agreement, final score, routing or export reads it (``scoring.models.HumanAssignmentManager``).
``training.selectors.retest`` compares the two sheets (intra-rater ICC(3,1), drift alarm)."""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.models import Assignment, AssignmentRole
from studies.models import Study
from studies.services.audit import audit_changes, audit_record
from training.models import TrainingSettings
from training.selectors.drift import live_primary_sheets
from training.services.training_set import TrainingError

if TYPE_CHECKING:
    from django.contrib.auth.models import User

MAX_PERCENT, MAX_DAYS = 50, 365


def retest_settings_update(
    *,
    study: Study,
    percent: int,
    after_days: int,
    alarm_below: Decimal,
    actor: User | None = None,
) -> TrainingSettings:
    """Set the study's probe share (0: off), their delay and the drift alarm's bound (audited as
    ``training.retest_settings``)."""
    if not 0 <= percent <= MAX_PERCENT:
        raise TrainingError(_("Probe between 0 and %(max)s%% of each rater's sheets.") % {"max": MAX_PERCENT})
    if not 1 <= after_days <= MAX_DAYS:
        raise TrainingError(_("Probe after 1 to %(max)s days.") % {"max": MAX_DAYS})
    if not Decimal(-1) <= alarm_below <= Decimal(1):
        raise TrainingError(_("An ICC bound lies between -1 and 1."))
    with transaction.atomic():
        settings, _created = TrainingSettings.objects.select_for_update().get_or_create(study=study)
        before = {"retest_percent": settings.retest_percent, "retest_after_days": settings.retest_after_days,
                  "retest_alarm_below": str(settings.retest_alarm_below)}  # fmt: skip
        settings.retest_percent, settings.retest_after_days = percent, after_days
        settings.retest_alarm_below = alarm_below
        settings.save(update_fields=["retest_percent", "retest_after_days", "retest_alarm_below"])
        settings.refresh_from_db()
        after = {"retest_percent": percent, "retest_after_days": after_days,
                 "retest_alarm_below": str(settings.retest_alarm_below)}  # fmt: skip
        changes = audit_changes(before=before, after=after)
        if changes:
            audit_record(actor=actor, action="training.retest_settings", target=settings, study=study,
                         changes=changes)  # fmt: skip
    return settings


def retest_probes_serve(*, study_id: int, now: datetime | None = None) -> int:
    """Serve the probes a study's setting asks for and that are due: per rater, ceil(percent% of
    their submitted primary sheets) probes in all, each of a response whose sheet was submitted at
    least ``after_days`` ago and not probed before, picked at random. Idempotent (a second call
    serves none); safe beside another worker (the study's settings row is locked). Returns how
    many it served (audited as ``training.retest_probes`` with the count per rater id)."""
    now = now or timezone.now()
    with transaction.atomic():
        settings = TrainingSettings.objects.select_for_update().filter(study_id=study_id).first()
        if settings is None or settings.retest_percent <= 0:
            return 0
        primaries = list(
            live_primary_sheets(study=settings.study).values_list(
                "assignment_id",
                "assignment__rater_id",
                "assignment__response_id",
                "assignment__group_id",
                "submitted_at",
            )  # fmt: skip
        )
        probed = set(
            Assignment.all_objects.filter(
                role=AssignmentRole.RETEST, response__study_id=study_id
            ).values_list("rater_id", "response_id")
        )
        due = now - timedelta(days=settings.retest_after_days)
        by_rater: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
        for row in primaries:
            by_rater[row[1]].append(row)
        already = Counter(rater_id for rater_id, _response in probed)
        served: dict[str, int] = {}
        for rater_id, own in sorted(by_rater.items()):
            wanted = math.ceil(settings.retest_percent * len(own) / 100) - already[rater_id]
            ready = [
                row
                for row in own
                if row[4] is not None and row[4] <= due and (rater_id, row[2]) not in probed
            ]
            # random, not the oldest first: a rater must not be able to tell which ones come back
            for original, _rater, response_id, group_id, _at in random.sample(
                ready, max(0, min(wanted, len(ready)))
            ):
                Assignment.all_objects.create(
                    rater_id=rater_id, response_id=response_id, group_id=group_id,
                    role=AssignmentRole.RETEST, retest_of_id=original,
                )  # fmt: skip
                served[str(rater_id)] = served.get(str(rater_id), 0) + 1
        if served:
            audit_record(actor=None, action="training.retest_probes", target=settings,
                         study=settings.study, changes={"served": served})  # fmt: skip
    return sum(served.values())


def retest_probes_serve_all(*, now: datetime | None = None) -> int:
    """Every study with probes on (the workers' hourly job)."""
    studies = TrainingSettings.objects.filter(retest_percent__gt=0).values_list("study_id", flat=True)
    return sum(retest_probes_serve(study_id=study_id, now=now) for study_id in list(studies))
