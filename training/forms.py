"""Forms of the training pages."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from core.accounts.roles import RATER
from studies.params import IdChoiceField, model_choice_field
from studies.rubric import Rubric
from training.services.rubric import LANGS, rubric_text


class GoldResponseForm(forms.Form):
    research_id = forms.CharField(label=_("Research ID of a scored response"), max_length=64)
    raters = forms.CharField(
        label=_("Reference sheets (rater IDs or usernames)"),
        max_length=200,
        required=False,
        help_text=_("Separated by spaces or commas; empty: the mean of the response's two primary sheets."),
    )

    def rater_codes(self) -> list[str]:
        return [p for p in self.cleaned_data["raters"].replace(",", " ").split() if p]


class TrainingSettingsForm(forms.Form):
    threshold = forms.DecimalField(
        label=_("Qualification threshold (PCC)"),
        max_digits=4,
        decimal_places=3,
        min_value=-1,
        max_value=1,
        required=False,
        help_text=_("Empty: the study's agreement threshold."),
    )
    required_sheets = forms.IntegerField(label=_("Training sheets required"), min_value=1, max_value=50)


class RetestSettingsForm(forms.Form):
    retest_percent = forms.IntegerField(
        # xgettext:no-python-format
        label=_("Test-retest probes (% of each rater's submitted sheets)"),
        min_value=0,
        max_value=50,
        help_text=_("0: off. Beyond the study: a probe serves a response again to the same rater."),
    )
    retest_after_days = forms.IntegerField(label=_("Probe after (days)"), min_value=1, max_value=365)
    retest_alarm_below = forms.DecimalField(
        label=_("Drift alarm below intra-rater ICC(3,1)"),
        max_digits=4,
        decimal_places=3,
        min_value=-1,
        max_value=1,
    )


class OverrideForm(forms.Form):
    rater = IdChoiceField(label=_("Rater"), queryset=get_user_model().objects.none())
    reason = forms.CharField(label=_("Reason"), max_length=2000, widget=forms.Textarea(attrs={"rows": 2}))
    revoke = forms.BooleanField(label=_("Revoke an earlier override instead"), required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        model_choice_field(self, "rater").queryset = (
            get_user_model().objects.filter(groups__name=RATER, is_active=True).order_by("username")
        )


class RubricTextsForm(forms.Form):
    """Every guideline and level text of one step, in English and Chinese (paths as in
    ``training.services.rubric``)."""

    def __init__(self, *args, rubric: Rubric, document: dict, step: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.groups: list[tuple[str, list[str]]] = []
        s = rubric.step(step)
        self._add(str(_("Step guideline")), [f"step|{step}|{lang}" for lang in LANGS], document)
        for spec in (*s.item_scores, *s.dimensions):
            paths = [f"guide|{step}|{spec.key}|{lang}" for lang in LANGS]
            paths += [f"level|{step}|{spec.key}|{lv.score}|{lang}" for lv in spec.levels for lang in LANGS]
            self._add(spec.label.en, paths, document)

    def _add(self, title: str, paths: list[str], document: dict) -> None:
        for path in paths:
            parts = path.split("|")
            what = _("Level %(n)s") % {"n": parts[3]} if parts[0] == "level" else _("Guideline")
            self.fields[path] = forms.CharField(
                label=f"{what} ({'English' if parts[-1] == 'en' else '中文'})",
                required=False,
                max_length=4000,
                initial=rubric_text(document, path),
                widget=forms.Textarea(attrs={"rows": 2}),
            )
        self.groups.append((title, paths))

    def grouped(self) -> list:
        return [(title, [self[p] for p in paths]) for title, paths in self.groups]


class RubricImportForm(forms.Form):
    file = forms.FileField(
        label=_("Rubric file"),
        help_text=_(
            "JSON, YAML (.yaml, .yml) or an Excel scoring sheet (.xlsx) whose notes mark its score cells "
            "(docs/rubric-format.md)."
        ),
        widget=forms.ClearableFileInput(attrs={"accept": ".json,.yaml,.yml,.xlsx,application/json"}),
    )


class RubricUseForm(forms.Form):
    """One of the rubrics a study may use (``study_rubric_versions``)."""

    version = forms.ChoiceField(label=_("Rubric"))

    def __init__(self, *args, versions: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["version"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = versions
