"""Forms of the study set-up pages."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from studies.models import Condition, ModelEndpoint, Scenario, Study, TaskKind
from studies.params import FilterForm, IdChoiceField, IdMultipleChoiceField
from studies.rubric import DEFAULT_RUBRIC_VERSION, available_rubric_versions, load_rubric
from studies.selectors import (
    study_conditions_offered,
    study_from_param,
    study_scenarios_offered,
)
from studies.services.studies import CGPST_RELEASE, STUDY_TEMPLATES, TASK_DEFAULT_RUBRICS


class StudyFilterForm(FilterForm):
    """The studies page's search (a GET form)."""

    q = forms.CharField(max_length=120, required=False, strip=True, label=_("Name contains"))


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
    task_kind = forms.ChoiceField(
        label=_("Task"),
        choices=TaskKind.choices,
        initial=TaskKind.CGPST,
        required=False,  # not sent: CGPST
        widget=forms.RadioSelect,
        help_text=_(
            "What a response is: a CGPST task's six step answers; one text answering a prompt (the "
            "study's scenarios are then its prompts); or two such texts side by side for a preference "
            "(choose the study they come from below). Fixed once the study exists."
        ),
    )
    rubric_version = forms.ChoiceField(
        label=_("Rubric"),
        initial="",
        required=False,  # not sent or empty: the task's own
        help_text=_(
            "How raters score each response. The study's rubric page previews it, imports a rubric "
            "file of your own and changes it, until the study's first score sheet."
        ),
    )
    pairs_from = IdChoiceField(
        label=_("Pairs from"),
        queryset=Study.objects.filter(task_kind=TaskKind.TEXT).order_by("name"),
        required=False,
        empty_label=_("(a pairwise study only)"),
        help_text=_(
            "A pairwise study compares the responses of a single-text study, two at a time: choose it "
            "here. Its page then builds the pairs."
        ),
    )
    response_language = forms.ChoiceField(
        label=_("Response language"),
        choices=Study.Language.choices,
        initial=Study.Language.CHINESE,
        required=False,  # not sent: the template's
        widget=forms.RadioSelect,
        help_text=_(
            "The language the generation prompts ask the models to answer in. The release's prompts "
            'say "All responses should be in Chinese": choose English for an English study (the '
            "study's Settings page changes it later, for runs launched after)."
        ),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["rubric_version"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [
            (
                "",
                _("The task's own: %(cgpst)s for CGPST, %(text)s for one text, %(pair)s for a pair")
                % {
                    "cgpst": DEFAULT_RUBRIC_VERSION,
                    "text": TASK_DEFAULT_RUBRICS[TaskKind.TEXT],
                    "pair": TASK_DEFAULT_RUBRICS[TaskKind.PAIR],
                },
            ),
            *((v, f"{load_rubric(v).title} ({v})") for v in available_rubric_versions()),
        ]


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
    responses_need_release = forms.BooleanField(
        label=_("Responses need release"),
        required=False,
        help_text=_(
            "Generated responses wait on the held responses page until an administrator releases "
            "them; only then are they assigned to raters. Generated or imported responses with parse "
            "warnings (no items in Step 1 or 3, no Step 5 grid, an empty or repeated step) are held "
            "either way. Applies to responses arriving from now on."
        ),
    )


class PairsBuildForm(forms.Form):
    """How many pairs a prompt to build: all of them (empty) or a sample, for many systems."""

    per_prompt = forms.IntegerField(
        label=_("Pairs a prompt"),
        required=False,
        min_value=1,
        max_value=100_000,
        help_text=_(
            "Empty: every two systems. A number: a random sample of at most that many pairs a prompt, "
            "linking every system first (n systems need n - 1 pairs to be linked)."
        ),
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


def scenario_label(scenario: Scenario, *, with_study: bool) -> str:
    """``FS10 Ocean Soup``; with ``with_study`` also whose it is, where several studies'
    scenarios share a list and the same code could be any of them."""
    label = f"{scenario.code} {scenario.theme}"
    if not with_study:
        return label
    owner = scenario.study.name if scenario.study is not None else _("shared")
    return f"{label} · {owner}"


class ScenarioChoiceField(IdChoiceField):
    """A scenario picker; ``with_study`` (set by the form once it knows whether a study
    is chosen) names each scenario's study."""

    with_study = True

    def label_from_instance(self, obj) -> str:
        return scenario_label(obj, with_study=self.with_study)


class ScenarioMultipleChoiceField(IdMultipleChoiceField):
    with_study = True

    def label_from_instance(self, obj) -> str:
        return scenario_label(obj, with_study=self.with_study)


def form_study(form: forms.Form, *, study: Study | None = None) -> Study | None:
    """The study a form is about: the posted one, else the one the page was opened for
    (``?study=``), else the field's initial value (a single study is preselected)."""
    if form.is_bound:
        return study_from_param(str(form.data.get("study") or ""))  # a command passes the id as a number
    if study is not None:
        return study
    initial = form.fields["study"].initial
    return initial if isinstance(initial, Study) else study_from_param(str(initial or ""))


def form_offer_study_choices(form: forms.Form, *, study: Study | None, refresh_url: str) -> None:
    """Limit a form's scenario and condition pickers to what ``study`` offers; with no
    study chosen, scenarios are named with their study. Choosing another study asks
    ``refresh_url?study=<id>`` (htmx) for the pickers of that study (``#study-choices``)."""
    form.fields["study"].widget.attrs.update(
        {"hx-get": refresh_url, "hx-target": "#study-choices", "hx-swap": "outerHTML"}
    )
    offered: dict[str, QuerySet] = {
        "scenario": study_scenarios_offered(study=study),
        "scenarios": study_scenarios_offered(study=study),
        "conditions": study_conditions_offered(study=study),
    }
    for name, queryset in offered.items():
        if name not in form.fields:
            continue
        field = form.fields[name]
        field.queryset = queryset  # type: ignore[attr-defined]
        if name != "conditions":
            field.with_study = study is None  # type: ignore[attr-defined]
        if study is not None and not form.is_bound:
            # a single choice is no choice: it is preselected
            only = list(queryset[:2])
            if len(only) == 1:
                field.initial = only[0].pk if name == "scenario" else [only[0].pk]


class StudyCatalogueForm(forms.Form):
    """The study's model endpoints and conditions, chosen from the installation's catalogue."""

    endpoints = IdMultipleChoiceField(
        label=_("Model endpoints"),
        queryset=ModelEndpoint.objects.order_by("model_number"),
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text=_("What the study's generation page offers. None chosen: every endpoint is offered."),
    )
    conditions = IdMultipleChoiceField(
        label=_("Conditions"),
        queryset=Condition.objects.order_by("letter"),
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text=_(
            "What the study's generation and assignment pages offer. None chosen: every condition is offered."
        ),
    )
