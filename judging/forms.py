"""Forms of the judge pages."""

from __future__ import annotations

from django import forms
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from judging.models import Judge, JudgeBatchStatus
from judging.prompt import CURRENT_PROMPT_VERSION, prompt_versions
from studies.models import ModelEndpoint, Scenario, Study
from studies.params import FilterForm, IdChoiceField, choice_field


class JudgeForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80)
    endpoint = IdChoiceField(
        label=_("Model endpoint"), queryset=ModelEndpoint.objects.filter(is_active=True).exclude(base_url="")
    )
    prompt_version = forms.ChoiceField(label=_("Prompt version"), initial=CURRENT_PROMPT_VERSION)
    temperature = forms.FloatField(label=_("Temperature"), min_value=0, max_value=2, initial=0.0)
    samples = forms.IntegerField(label=_("Samples per response"), min_value=1, max_value=10, initial=1)
    structured_output = forms.BooleanField(
        label=_("Structured output (JSON schema)"), required=False, initial=True
    )
    provider_family = forms.CharField(label=_("Provider family"), max_length=80, required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        choice_field(self, "prompt_version").choices = [(v, v) for v in prompt_versions()]


class BatchLaunchForm(forms.Form):
    study = IdChoiceField(label=_("Study"), queryset=Study.objects.filter(is_active=True))
    judge = IdChoiceField(label=_("Judge"), queryset=Judge.objects.filter(is_active=True))
    scenario = forms.CharField(label=_("Scenario code (optional)"), max_length=20, required=False)
    samples = forms.IntegerField(label=_("Samples per response"), min_value=1, max_value=10, required=False)

    def clean(self):
        super().clean()
        data = self.cleaned_data
        code = (data.get("scenario") or "").strip()
        data["scenario_obj"] = None
        if code and data.get("study"):
            scenario = (
                Scenario.objects.filter(Q(study=data["study"]) | Q(study__isnull=True), code=code)
                .order_by("study")  # the study's own before a shared one
                .first()
            )
            if scenario is None:
                self.add_error("scenario", _("Unknown scenario %(code)s in this study.") % {"code": code})
            data["scenario_obj"] = scenario
        return data


class JudgeSettingsForm(forms.ModelForm):
    """A judge's changeable settings (``judging.services.judges.JUDGE_SETTINGS``)."""

    class Meta:
        model = Judge
        fields = ["temperature", "samples", "structured_output", "provider_family", "is_active"]


class JudgeBatchFilterForm(FilterForm):
    """The judges page's batch list filters (a GET form)."""

    study = IdChoiceField(queryset=Study.objects.order_by("name"), required=False, label=_("Study"))
    judge = IdChoiceField(queryset=Judge.objects.order_by("name"), required=False, label=_("Judge"))
    status = forms.ChoiceField(
        choices=(("", _("Any")), *JudgeBatchStatus.choices), required=False, label=_("Status")
    )
