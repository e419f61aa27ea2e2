"""Forms of the generation pages."""

from __future__ import annotations

from django import forms
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from studies.models import Condition, ModelEndpoint, Scenario, Study


class BatchForm(forms.Form):
    study = forms.ModelChoiceField(
        label=_("Study"), queryset=Study.objects.filter(is_active=True), empty_label=_("— choose —")
    )
    scenarios = forms.ModelMultipleChoiceField(
        label=_("Scenarios"), queryset=Scenario.objects.all(), widget=forms.CheckboxSelectMultiple
    )
    endpoints = forms.ModelMultipleChoiceField(
        label=_("Model endpoints"),
        queryset=ModelEndpoint.objects.filter(is_active=True).exclude(base_url="").exclude(model_name=""),
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Only active endpoints with a base URL and a model name are listed."),
    )
    conditions = forms.ModelMultipleChoiceField(
        label=_("Conditions (strategies)"),
        queryset=Condition.objects.all(),
        widget=forms.CheckboxSelectMultiple,
    )
    name = forms.CharField(label=_("Batch name"), max_length=120, required=False)
    top_p = forms.ChoiceField(
        label=_("top_p"),
        choices=[
            ("paper", _("0.9, as the paper states")),
            ("as_released", _("none sent, as the release's code")),
        ],
        initial="paper",
        required=False,  # a post without it gets the paper's 0.9
        widget=forms.RadioSelect,
        help_text=_("Recorded with every run of the batch."),
    )

    def clean(self):
        data = super().clean()
        study, scenarios = data.get("study"), data.get("scenarios")
        if study and scenarios:
            foreign = [s.code for s in scenarios if s.study_id not in (None, study.pk)]
            if foreign:
                raise forms.ValidationError(
                    _("These scenarios belong to another study: %(codes)s") % {"codes": ", ".join(foreign)}
                )
        return data

    @staticmethod
    def scenarios_for(study: Study | None):
        if study is None:
            return Scenario.objects.all()
        return Scenario.objects.filter(Q(study__isnull=True) | Q(study=study))


class MemberProfileForm(forms.Form):
    """A TeamFusion team member of a study: name and stated preferences."""

    name = forms.CharField(label=_("Member name"), max_length=80)
    preferences = forms.CharField(
        label=_("Stated preferences"),
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("From the member's questionnaire, in the member's own words."),
    )
    order = forms.IntegerField(label=_("Order"), min_value=0, max_value=32767, initial=0)
    is_active = forms.BooleanField(label=_("Active"), required=False, initial=True)
