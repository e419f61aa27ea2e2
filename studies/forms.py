"""Forms of the study set-up pages."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from studies.models import Study
from studies.services.studies import CGPST_RELEASE, STUDY_TEMPLATES


class StudyCreateForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120)
    template = forms.ChoiceField(
        label=_("Start from"),
        choices=list(STUDY_TEMPLATES.items()),
        initial=CGPST_RELEASE,
        widget=forms.RadioSelect,
        help_text=_(
            "The release template brings the public scenario FS10, the paper's ten models, the "
            "standard conditions, the rubric version, threshold 0.65, headline ICC3k and the "
            "final-score rule. An empty study has the default settings and nothing else."
        ),
    )
    description = forms.CharField(
        label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )


class StudySettingsForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120)
    description = forms.CharField(
        label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    response_language = forms.ChoiceField(
        label=_("Response language"),
        choices=Study.Language.choices,
        help_text=_("The language runs launched from now on answer in; existing responses stay."),
    )
    is_active = forms.BooleanField(
        label=_("Active"),
        required=False,
        help_text=_("Inactive studies are not offered for new generation batches."),
    )


class UploadForm(forms.Form):
    """A file upload held to the request size limit."""

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            raise forms.ValidationError(_("The file is too large."))
        return upload


class ScenarioImportForm(UploadForm):
    file = forms.FileField(
        label=_("Scenario file"),
        help_text=_(
            'The released JSON ({"FS10": {"theme": ..., "text": ...}}), JSON Lines or an xlsx sheet '
            "with the columns code, theme, text and optionally theme_zh, text_zh."
        ),
    )
    force = forms.BooleanField(
        label=_("Replace the texts of scenarios that already have scores (recorded in the audit trail)"),
        required=False,
    )


class ResponseImportForm(UploadForm):
    file = forms.FileField(
        label=_("Response file"),
        help_text=_(
            "The study's data_A.json format, or JSON Lines with one object per line: research_id, "
            "scenario, model, condition, steps (six texts)."
        ),
    )
    create_missing = forms.BooleanField(
        label=_("Create the scenarios and models the file names that this study does not have yet"),
        required=False,
    )
