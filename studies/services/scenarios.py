"""Importing a study's scenarios: all-or-nothing, identical re-imports change nothing,
and a changed text of a scenario that already has scores needs ``force`` and is
recorded in the scenario's audit trail (``ScenarioTextChange``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils.translation import gettext as _

from studies.models import Scenario, ScenarioTextChange, Study
from studies.scenario_files import ScenarioFileError, ScenarioRecord, record_from_mapping
from studies.selectors import scenario_codes_with_scores

if TYPE_CHECKING:
    from django.contrib.auth.models import User

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
# The public scenario of the release (FS10); the paper's other nine are not public.
RELEASED_SCENARIOS = DATA_DIR / "future_scenarios_en.json"
TEXT_FIELDS = ("theme", "text", "theme_zh", "text_zh")


@dataclass
class ScenarioImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    forced: list[str] = field(default_factory=list)

    def summary(self) -> str:
        text = _(
            "%(created)s scenario(s) created, %(updated)s updated, %(unchanged)s already present and identical"
        ) % {"created": len(self.created), "updated": len(self.updated), "unchanged": len(self.unchanged)}
        if self.forced:
            text += "; " + _("texts of scored scenarios replaced (audited): %(codes)s") % {
                "codes": ", ".join(self.forced)
            }
        return text


def released_scenario_records() -> list[ScenarioRecord]:
    """The release's public scenarios (future_scenarios_en.json: FS10)."""
    data = json.loads(RELEASED_SCENARIOS.read_text(encoding="utf-8"))
    problems: list[str] = []
    records = [record_from_mapping(code, value, problems, code=code) for code, value in data.items()]
    if problems:  # the bundled file is checked by the tests; this guards a damaged install
        raise ScenarioFileError(problems)
    return [r for r in records if r is not None]


def released_scenario(code: str) -> ScenarioRecord | None:
    return next((r for r in released_scenario_records() if r.code == code), None)


def scenarios_import(
    *,
    study: Study,
    records: list[ScenarioRecord],
    actor: User | None = None,
    force: bool = False,
    source_name: str = "",
) -> ScenarioImportReport:
    """Create or update the study's scenarios from checked records, all or nothing.
    Raises ScenarioFileError listing every refused change."""
    report = ScenarioImportReport()
    problems: list[str] = []
    with transaction.atomic():
        existing = {
            s.code: s
            for s in Scenario.objects.select_for_update().filter(
                study=study, code__in=[r.code for r in records]
            )
        }
        scored = scenario_codes_with_scores(study=study, codes=list(existing))
        for record in records:
            scenario = existing.get(record.code)
            if scenario is None:
                Scenario.objects.create(study=study, code=record.code, **record.values())
                report.created.append(record.code)
                continue
            changed = [name for name in TEXT_FIELDS if getattr(scenario, name) != record.values()[name]]
            if not changed:
                report.unchanged.append(record.code)
                continue
            # Filling a text that was empty (a scenario an import created) changes no score's meaning.
            meaningful = [name for name in changed if getattr(scenario, name)]
            is_forced = bool(meaningful) and record.code in scored
            if is_forced and not force:
                problems.append(
                    _(
                        "%(where)s, field '%(field)s': scenario %(code)s already has scores; its text "
                        "is replaced only when forced"
                    )
                    % {"where": record.where, "field": meaningful[0], "code": record.code}
                )
                continue
            note = _("imported from %(file)s") % {"file": source_name} if source_name else ""
            ScenarioTextChange.objects.bulk_create(
                ScenarioTextChange(
                    scenario=scenario,
                    actor=actor,
                    field_name=name,
                    old_value=getattr(scenario, name),
                    new_value=record.values()[name],
                    forced=is_forced,
                    note=note,
                )
                for name in changed
            )
            for name in changed:
                setattr(scenario, name, record.values()[name])
            scenario.save(update_fields=changed)
            report.updated.append(record.code)
            if is_forced:
                report.forced.append(record.code)
        if problems:
            raise ScenarioFileError(problems)
    return report
