"""Forms of the agreement and calibration pages."""

from __future__ import annotations

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from calibration.selectors.consistency import RULE_PROVENANCE
from calibration.services.calibration import THRESHOLD_MAX, THRESHOLD_MIN, threshold_message
from studies.models import CALIBRATION_RULES, HeadlineICC, Study


class AgreementSettingsForm(forms.ModelForm):
    class Meta:
        model = Study
        fields = ["agreement_threshold", "headline_icc", "final_score_rule"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["agreement_threshold"].widget.attrs.update(step="0.01", min="0.01", max="1")
        self.fields["headline_icc"].choices = HeadlineICC.choices
        # every rule labelled by what it is: as released, our reading or our option
        self.fields["final_score_rule"].choices = [
            (value, format_lazy("{} ({})", label, RULE_PROVENANCE.get(value, "")))
            for value, label in CALIBRATION_RULES
        ]

    def clean_agreement_threshold(self):
        value = self.cleaned_data["agreement_threshold"]
        if value is not None and not THRESHOLD_MIN < value <= THRESHOLD_MAX:
            raise forms.ValidationError(threshold_message(value))
        return value


class CalibratorForm(forms.Form):
    calibrator = forms.TypedChoiceField(label=_("Calibrating rater"), coerce=int)

    def __init__(self, *args, choices=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["calibrator"].choices = [
            (c["user"].pk, _("%(who)s · %(open)d open sheet(s)") % {"who": c["label"], "open": c["open"]})
            for c in choices
        ]


class DecisionReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason for the calibration decision"),
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("A short note: where the first two sheets disagreed and how you judged it."),
    )
