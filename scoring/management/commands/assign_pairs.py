"""python manage.py assign_pairs --study S --as ADMIN [--raters U ...] [--scenarios C ...]
[--conditions L ...] [--apply]"""

from __future__ import annotations

from typing import cast

from django import forms
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from scoring.forms import AutoAssignForm
from scoring.services.assignments import AssignmentError, plan_apply, plan_for_study
from studies.management.options import admin_named, study_from_option
from studies.models import Condition, Scenario

ASKED = ("scenarios", "conditions", "raters")


class Command(BaseCommand):
    help = (
        "Plan balanced rater pairs for a study's scenario groups without a pair (the automatic "
        "assignment page's form and services) and print the plan; --apply makes it, audited under --as."
    )

    def add_arguments(self, parser):
        parser.add_argument("--study", help="study name or id (default: the only study)")
        parser.add_argument("--as", dest="admin", required=True, help="the admin account acting")
        parser.add_argument("--raters", nargs="+", help="usernames (default: every active rater)")
        parser.add_argument("--scenarios", nargs="+", help="scenario codes (default: the study's)")
        parser.add_argument("--conditions", nargs="+", help="condition letters (default: the study's)")
        parser.add_argument("--apply", action="store_true", help="make the plan (else only print it)")

    def handle(self, *args, study, admin, raters, scenarios, conditions, apply, **options):
        chosen = study_from_option(study)
        actor = admin_named(admin)
        form = AutoAssignForm(data={"study": chosen.pk}, study=chosen)  # its choices for the study
        fields = {name: cast(forms.ModelMultipleChoiceField, form.fields[name]) for name in ASKED}
        offered = {
            "scenarios": {s.code.lower(): s.pk for s in fields["scenarios"].queryset or []},
            "conditions": {c.letter.lower(): c.pk for c in fields["conditions"].queryset or []},
            "raters": {u.get_username().lower(): u.pk for u in fields["raters"].queryset or []},
        }
        asked = {"scenarios": scenarios, "conditions": conditions, "raters": raters}
        data: dict[str, object] = {"study": chosen.pk}
        for field, names in asked.items():
            known = offered[field]
            unknown = sorted(n for n in names or [] if n.lower() not in known)
            if unknown:
                raise CommandError(
                    f"--{field}: unknown {', '.join(unknown)} (known: {', '.join(sorted(known))})"
                )
            data[field] = [known[n.lower()] for n in names] if names else list(known.values())
        form = AutoAssignForm(data=data, study=chosen)
        if not form.is_valid():
            problems = [f"{k}: {' '.join(str(m) for m in v)}" for k, v in form.errors.items()]
            raise CommandError("; ".join(problems))
        try:
            plan = plan_for_study(**form.cleaned_data)
        except AssignmentError as exc:
            raise CommandError(exc.message) from exc
        users = get_user_model().objects.in_bulk(
            [p.rater_a_id for p in plan.groups] + [p.rater_b_id for p in plan.groups]
        )
        codes = Scenario.objects.in_bulk([p.scenario_id for p in plan.groups])
        letters = Condition.objects.in_bulk([p.condition_id for p in plan.groups])
        for p in plan.groups:
            self.stdout.write(
                f"{codes[p.scenario_id].code}\t{letters[p.condition_id].letter}\t{p.responses} responses\t"
                f"{users[p.rater_a_id].get_username()} + {users[p.rater_b_id].get_username()}"
            )
        if plan.held:
            self.stdout.write(f"{plan.held} held response(s) of these groups go to their pair once released")
        if not apply:
            self.stdout.write(f"{len(plan.groups)} scenario group(s) planned; --apply makes the plan")
            return
        try:
            groups = plan_apply(study=chosen, plan=plan.groups, actor=actor)
        except AssignmentError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(f"plan applied: {len(groups)} scenario group(s) assigned")
