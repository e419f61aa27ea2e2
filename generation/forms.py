"""Forms of the generation pages."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from core.llm.egress import endpoint_egress_problem
from generation.models import BatchStatus
from generation.services.batches import BatchLaunch, batch_create
from generation.services.conditions import ConditionError, condition_parameters_check
from generation.services.endpoints import ENDPOINT_FIELDS
from generation.services.runs import RunEnqueue
from studies.forms import ScenarioMultipleChoiceField, form_offer_study_choices, form_study
from studies.models import Condition, ModelEndpoint, Scenario, Study
from studies.params import FilterForm, IdChoiceField, IdMultipleChoiceField, model_choice_field
from studies.selectors import study_endpoints_offered
from studies.upload_safety import json_parse


class EndpointFilterForm(FilterForm):
    """The model endpoints page's search and filter (a GET form)."""

    q = forms.CharField(max_length=200, required=False, strip=True, label=_("Name, model or host contains"))
    active = forms.ChoiceField(
        choices=(("", _("Any")), ("yes", _("Active")), ("no", _("Inactive"))),
        required=False,
        label=_("State"),
    )

    def endpoint_filters(self) -> dict[str, Any]:
        """``endpoints_overview``'s filters (none for a field the form refused)."""
        data = self.chosen()
        return {
            "search": data.get("q") or "",
            "active": {"yes": True, "no": False}.get(data.get("active") or ""),
        }


class BatchFilterForm(FilterForm):
    """The generation page's batch list filters (a GET form)."""

    study = IdChoiceField(queryset=Study.objects.order_by("name"), required=False, label=_("Study"))
    endpoint = IdChoiceField(
        queryset=ModelEndpoint.objects.order_by("model_number"), required=False, label=_("Model endpoint")
    )
    condition = IdChoiceField(
        queryset=Condition.objects.order_by("letter"), required=False, label=_("Condition")
    )
    scenario = forms.CharField(max_length=40, required=False, strip=True, label=_("Scenario code contains"))
    status = forms.ChoiceField(
        choices=(("", _("Any")), *BatchStatus.choices), required=False, label=_("Status")
    )


class ConditionFilterForm(FilterForm):
    """The conditions page's search (a GET form)."""

    q = forms.CharField(max_length=80, required=False, strip=True, label=_("Letter or name contains"))


class BatchForm(forms.Form):
    study = IdChoiceField(
        label=_("Study"), queryset=Study.objects.filter(is_active=True), empty_label=_("— choose —")
    )
    scenarios = ScenarioMultipleChoiceField(
        label=_("Scenarios"), queryset=Scenario.objects.all(), widget=forms.CheckboxSelectMultiple
    )
    endpoints = IdMultipleChoiceField(
        label=_("Model endpoints"),
        queryset=ModelEndpoint.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Only active endpoints with a base URL and a model name are listed."),
    )
    conditions = IdMultipleChoiceField(
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
    regenerate_withdrawn = forms.BooleanField(
        label=_("Generate withdrawn responses again"),
        required=False,
        help_text=_(
            "A combination whose response was withdrawn is run anew; the withdrawn response is "
            "kept under its research ID with a ~W1 suffix."
        ),
    )

    def __init__(self, *args, study: Study | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if study is not None and not self.is_bound:
            self.fields["study"].initial = study
        # the pickers offer the chosen study's scenarios, endpoints and conditions only
        self.chosen_study = form_study(self, study=study)
        form_offer_study_choices(self, study=self.chosen_study, refresh_url=reverse("generation:home"))
        endpoints = (
            study_endpoints_offered(study=self.chosen_study)
            .filter(is_active=True)
            .exclude(base_url="")
            .exclude(model_name="")
        )
        model_choice_field(self, "endpoints").queryset = endpoints
        offered = list(endpoints[:2])
        if len(offered) == 1 and not self.is_bound:  # the only choice, already ticked
            self.fields["endpoints"].initial = [offered[0].pk]

    def clean(self):
        super().clean()
        data = self.cleaned_data
        study, scenarios = data.get("study"), data.get("scenarios")
        if study and scenarios:
            foreign = [s.code for s in scenarios if s.study_id not in (None, study.pk)]
            if foreign:
                raise forms.ValidationError(
                    _("These scenarios belong to another study: %(codes)s") % {"codes": ", ".join(foreign)}
                )
        # a run on an endpoint whose calls the operator's hosts refuse would fail at its first call
        for endpoint in data.get("endpoints") or []:
            problem = endpoint_egress_problem(endpoint)
            if problem:
                self.add_error("endpoints", f"{endpoint.name}: {problem}")
        return data

    def launch(self, *, actor, enqueue: RunEnqueue) -> BatchLaunch:
        """Start the valid form's batch (the page and the API both start batches here), its runs
        sent with ``enqueue`` (the entry point's task: forms sit below tasks); raises BatchError
        when the service refuses it."""
        data = self.cleaned_data
        return batch_create(
            study=data["study"],
            scenarios=data["scenarios"],
            endpoints=data["endpoints"],
            conditions=data["conditions"],
            enqueue=enqueue,
            name=data["name"],
            created_by=actor,
            top_p=data["top_p"] or "paper",
            regenerate_withdrawn=data["regenerate_withdrawn"],
        )


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


MAX_JSON_CHARS = 4000
MAX_JSON_DEPTH = 8


def json_object_field(text: str) -> dict:
    """A JSON object typed on a page: short, shallow, finite, storable; never a 500.
    ``json_parse`` refuses what the database or the parser cannot take (Infinity and
    overflowing numbers, lone surrogates, NUL, deep nesting, huge integers)."""
    text = (text or "").strip() or "{}"
    if len(text) > MAX_JSON_CHARS:
        raise forms.ValidationError(_("At most %(n)d characters.") % {"n": MAX_JSON_CHARS})
    try:
        value = json_parse(text)
    except ValueError as exc:  # json.JSONDecodeError, with a readable reason
        raise forms.ValidationError(_("Not valid JSON: %(error)s") % {"error": exc}) from None
    if not isinstance(value, dict):
        raise forms.ValidationError(_('A JSON object, e.g. {"max_tokens": 4096}.'))
    if _depth(value) > MAX_JSON_DEPTH:
        raise forms.ValidationError(_("Nested too deep."))
    return value


def _depth(value) -> int:
    """How deep a parsed JSON value nests (without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)
    return deepest


def json_text_field(**options: Any) -> forms.CharField:
    """The text box of a JSON object (optional; ``json_object_field`` cleans it); ``options``
    are the field's label and help text."""
    return forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 4, "class": "mono"}), **options
    )


class JSONObjectForm(forms.ModelForm):
    """A model form whose JSON field is typed as text (shown as formatted JSON)."""

    json_field = ""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        value = getattr(self.instance, self.json_field, None) or {}
        self.initial[self.json_field] = json.dumps(value, indent=2, ensure_ascii=False)


class EndpointForm(JSONObjectForm):
    json_field = "extra_params"
    extra_params = json_text_field(
        label=_("Extra request parameters (JSON)"),
        help_text=_(
            'Sent in the body of every request, e.g. {"max_tokens": 4096} or {"stream": true}; '
            "never headers, addresses, timeouts or credentials."
        ),
    )
    base_url = forms.URLField(
        label=_("Base URL"),
        required=False,
        assume_scheme="https",
        help_text=_(
            "OpenAI-compatible base URL, e.g. https://api.openai.com/v1, on a host the operator allows "
            "for the endpoint's key (or for endpoints without a key)."
        ),
    )
    timeout_seconds = forms.FloatField(label=_("Timeout (s)"), min_value=1, max_value=3600, initial=120.0)
    notes = forms.CharField(
        label=_("notes"), required=False, max_length=4000, widget=forms.Textarea(attrs={"rows": 2})
    )

    class Meta:
        model = ModelEndpoint
        fields = list(ENDPOINT_FIELDS)  # the fields the service takes, in the form's order

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        prefix = settings.LLM_KEY_ENV_PREFIX
        self.fields["api_key_env"].help_text = _(
            "The NAME of the environment variable on the workers that holds the key, starting with "
            "%(prefix)s (e.g. %(prefix)sOPENAI); never the key itself. Empty: no key (local servers)."
        ) % {"prefix": prefix}

    def clean_extra_params(self) -> dict:
        return json_object_field(self.cleaned_data.get("extra_params", ""))


class ConditionForm(JSONObjectForm):
    json_field = "parameters"
    parameters = json_text_field(
        label=_("Parameters (JSON)"),
        help_text=_('Overrides of the strategy\'s defaults, e.g. {"temperature": 0.7, "rounds": 2}.'),
    )

    class Meta:
        model = Condition
        fields = ["letter", "name", "strategy", "parameters", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 2})}

    def __init__(self, *args, fixed_strategy: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["letter"].disabled = True
            self.fields["letter"].help_text = _("Fixed: research IDs carry it.")
        if fixed_strategy:
            self.fields["strategy"].disabled = True
            self.fields["strategy"].help_text = _("Fixed: this condition already has responses.")

    def clean_parameters(self) -> dict:
        return json_object_field(self.cleaned_data.get("parameters", ""))

    def clean(self):
        super().clean()
        data = self.cleaned_data
        strategy, parameters = data.get("strategy"), data.get("parameters")
        if strategy and isinstance(parameters, dict):
            try:
                condition_parameters_check(strategy=strategy, parameters=parameters)
            except ConditionError as exc:
                self.add_error("parameters", str(exc))
        return data
