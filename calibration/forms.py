"""Forms of the agreement and calibration pages."""

from __future__ import annotations

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from calibration.selectors.consistency import RULE_PROVENANCE
from calibration.selectors.responses import (
    AGREED,
    ASSIGNED,
    BELOW,
    NOT_YET,
    UNASSIGNED,
    ResponseFilters,
)
from calibration.services.agreement_settings import THRESHOLD_MAX, THRESHOLD_MIN, threshold_message
from studies.forms import UploadForm
from studies.models import (
    CALIBRATION_RULES,
    Condition,
    HeadlineICC,
    ModelEndpoint,
    ResponseStatus,
    Scenario,
    Study,
)
from studies.params import IdChoiceField, choice_field, model_choice_field


class AgreementSettingsForm(forms.ModelForm):
    class Meta:
        model = Study
        fields = [
            "agreement_threshold",
            "headline_icc",
            "final_score_rule",
            "level_ccc_below",
            "level_total_over",
        ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["agreement_threshold"].widget.attrs.update(step="0.01", min="0.01", max="1")
        self.fields["level_ccc_below"].widget.attrs.update(step="0.01", min="0.01", max="1")
        self.fields["level_total_over"].widget.attrs.update(step="0.5", min="0")
        choice_field(self, "headline_icc").choices = HeadlineICC.choices
        # every rule labelled by what it is: as released, our reading or our option
        choice_field(self, "final_score_rule").choices = [
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
        choice_field(self, "calibrator").choices = [
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


class ScoreImportForm(UploadForm):
    file = forms.FileField(
        label=_("Score file"),
        help_text=_(
            "The study's data_A.json format: [response_id, [rater1, rater2], scenario_id, scores1, scores2] "
            "per response; or scored sheets in the study's own Excel layout: a .zip of H01_FS10.xlsx "
            "workbooks (one worksheet per research ID), or one such .xlsx, stored as dimension scores only."
        ),
    )
    raters = forms.CharField(
        label=_("Rater IDs to existing users"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": "H01=alice\nH02=bob"}),
        help_text=_(
            "One CODE=USERNAME per line. Rater IDs not listed are matched by rater ID, or created as "
            "raters without a usable password."
        ),
    )
    create_missing = forms.BooleanField(
        label=_("Create the responses (and their scenarios and models) that do not exist yet"),
        required=False,
    )

    def clean_raters(self) -> dict[str, str]:
        mapping: dict[str, str] = {}
        for number, line in enumerate(self.cleaned_data["raters"].splitlines(), start=1):
            if not line.strip():
                continue
            code, sep, username = line.partition("=")
            if not sep or not code.strip() or not username.strip():
                raise forms.ValidationError(
                    _("Line %(n)s: expected CODE=USERNAME, e.g. H01=alice.") % {"n": number}
                )
            mapping[code.strip()] = username.strip()
        return mapping


class ResponseFilterForm(forms.Form):
    """The filters of a study's response list (GET; every one optional)."""

    scenario = IdChoiceField(
        label=_("Scenario"), queryset=Scenario.objects.none(), required=False, empty_label=_("any")
    )
    condition = IdChoiceField(
        label=_("Condition"), queryset=Condition.objects.none(), required=False, empty_label=_("any")
    )
    model = IdChoiceField(
        label=_("Model"), queryset=ModelEndpoint.objects.none(), required=False, empty_label=_("any")
    )
    status = forms.ChoiceField(label=_("Status"), required=False)
    assignment = forms.ChoiceField(
        label=_("Assignment"),
        required=False,
        choices=[("", _("any")), (ASSIGNED, _("assigned to a pair")), (UNASSIGNED, _("not assigned"))],
    )
    agreement = forms.ChoiceField(
        label=_("Agreement"),
        required=False,
        choices=[
            ("", _("any")),
            (AGREED, _("at or above the threshold")),
            (BELOW, _("below the threshold")),
            (NOT_YET, _("not computed yet")),
        ],
    )

    def __init__(self, *args, study: Study, **kwargs):
        super().__init__(*args, **kwargs)
        responses = study.responses.all()
        model_choice_field(self, "scenario").queryset = Scenario.objects.filter(
            pk__in=responses.values("scenario_id")
        ).order_by("code")
        model_choice_field(self, "condition").queryset = Condition.objects.filter(
            pk__in=responses.values("condition_id")
        ).order_by("letter")
        model_choice_field(self, "model").queryset = ModelEndpoint.objects.filter(
            pk__in=responses.values("model_id")
        ).order_by("model_number")
        choice_field(self, "status").choices = [("", _("any")), *ResponseStatus.choices]
        for field in self.fields.values():
            field.widget.attrs["data-autosubmit"] = ""

    def filters(self) -> ResponseFilters:
        data = self.cleaned_data if self.is_valid() else {}
        return ResponseFilters(
            scenario_id=data["scenario"].pk if data.get("scenario") else None,
            condition_id=data["condition"].pk if data.get("condition") else None,
            model_id=data["model"].pk if data.get("model") else None,
            status=data.get("status") or "",
            assignment=data.get("assignment") or "",
            agreement=data.get("agreement") or "",
        )
