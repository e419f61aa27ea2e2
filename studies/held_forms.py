"""Forms of the held responses page: its filters (a GET form, also sent with a bulk action, so
that "all that match" means what the admin saw) and its bulk actions."""

from __future__ import annotations

from typing import cast

from django import forms
from django.utils.translation import gettext_lazy as _

from studies.blind_text import BLIND_TEXT
from studies.forms import ScenarioChoiceField
from studies.models import Condition, ModelEndpoint, Response, Scenario, Study
from studies.params import FilterForm, IdChoiceField, IdMultipleChoiceField, id_param
from studies.parsing import EMPTY_TEXT
from studies.review import NEEDS_RELEASE
from studies.selectors import HeldFilters
from studies.services.review import BULK_MAX

HOLD_REASONS = (
    ("", _("Any reason")),
    (BLIND_TEXT, _("Names the study's catalogue")),
    (NEEDS_RELEASE, _("Generated: waits for release")),
    ("empty_step", _("An empty step")),
    ("no_items", _("A step without numbered items")),
    ("no_grid", _("No scoring grid")),
    ("repeated_step", _("A repeated step")),
    (EMPTY_TEXT, _("An empty text")),
)


class HeldFilterForm(FilterForm):
    """Which held responses the page lists (the scenarios offered: the chosen study's)."""

    study = IdChoiceField(queryset=Study.objects.all(), required=False, label=_("Study"))
    scenario = ScenarioChoiceField(queryset=Scenario.objects.none(), required=False, label=_("Scenario"))
    model = IdChoiceField(queryset=ModelEndpoint.objects.none(), required=False, label=_("Model"))
    condition = IdChoiceField(queryset=Condition.objects.none(), required=False, label=_("Condition"))
    reason = forms.ChoiceField(choices=HOLD_REASONS, required=False, label=_("Held because"))
    q = forms.CharField(max_length=60, required=False, strip=True, label=_("Research ID contains"))

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        study_id = self._study_id()
        scenario = cast(ScenarioChoiceField, self.fields["scenario"])
        model, condition = (cast(IdChoiceField, self.fields[n]) for n in ("model", "condition"))
        scenarios = Scenario.objects.select_related("study").order_by("study__name", "code")
        scenario.queryset = scenarios.filter(study_id=study_id) if study_id else scenarios
        scenario.with_study = study_id is None
        model.queryset = ModelEndpoint.objects.order_by("model_number", "name")
        condition.queryset = Condition.objects.order_by("letter")

    def _study_id(self) -> int | None:
        return id_param(self.data.get(self.add_prefix("study"))) if self.is_bound else None

    def held_filters(self) -> HeldFilters:
        """The filters chosen (none for a field the form refused: the page says which)."""
        data = self.chosen()
        return HeldFilters(
            study=data.get("study"),
            scenario=data.get("scenario"),
            model=data.get("model"),
            condition=data.get("condition"),
            reason=data.get("reason") or "",
            search=data.get("q") or "",
        )


class HeldBulkForm(forms.Form):
    """A bulk action: release or withdraw the responses ticked on the page, or every held
    response the filters match (``expected``: how many the page said match; a different
    number now refuses the action, as the list changed under the admin)."""

    RELEASE, WITHDRAW = "release", "withdraw"
    SELECTED, MATCHING = "selected", "matching"

    action = forms.ChoiceField(choices=((RELEASE, _("Release")), (WITHDRAW, _("Withdraw"))))
    scope = forms.ChoiceField(choices=((SELECTED, _("The ticked ones")), (MATCHING, _("All that match"))))
    ids = IdMultipleChoiceField(queryset=Response.objects.all(), required=False)
    expected = forms.IntegerField(min_value=0, max_value=10**9, required=False)
    withdraw_reason = forms.CharField(max_length=500, required=False, strip=True)

    def clean(self) -> dict:
        data = super().clean() or {}
        if data.get("scope") == self.SELECTED and not data.get("ids"):
            raise forms.ValidationError(_("Tick at least one response first."))
        if data.get("scope") == self.MATCHING and data.get("expected") is None:
            raise forms.ValidationError(_("The page did not say how many responses match; load it again."))
        if len(data.get("ids") or ()) > BULK_MAX:
            raise forms.ValidationError(_("Too many responses were ticked."))
        return data
