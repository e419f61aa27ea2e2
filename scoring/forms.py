"""Forms of the rater workspace and the assignment pages."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.accounts.roles import RATER
from scoring.selectors.flags import ALL, DISMISSED, WITHDRAWN, FlagFilters
from scoring.selectors.flags import OPEN as FLAG_OPEN
from scoring.selectors.qualification import raters_blocked
from scoring.selectors.workload import DONE, OPEN, WorkloadFilters
from scoring.services.active_time import ACTIVE_REPORT_MAX
from scoring.services.assignments import PlannedGroup
from studies.forms import (
    ScenarioChoiceField,
    ScenarioMultipleChoiceField,
    form_offer_study_choices,
    form_study,
)
from studies.models import Condition, Scenario, Study
from studies.params import (
    FilterForm,
    IdChoiceField,
    IdMultipleChoiceField,
    OptionListCheckboxes,
    OptionListSelect,
    id_param,
)

MAX_CHANGES_PER_BATCH = 500
BATCH_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# The deepest a request body of the JSON endpoints may nest (a save request needs 3:
# the object, the list of changes, a change).
MAX_JSON_DEPTH = 8
MAX_VERSION = 2**31 - 1  # the sheet's version column (PositiveIntegerField)


class JsonBodyError(ValueError):
    """A request body that is not a JSON object the endpoints accept; the message is
    shown to the client."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999
        raise ValueError("number out of range")
    return value


def _too_deep(data: Any, limit: int) -> bool:
    """True when containers nest deeper than ``limit`` (iterative: no recursion)."""
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return False


def json_body(raw: bytes) -> dict:
    """The body of a JSON endpoint as a dict, or JsonBodyError.

    Strict where Python's json module is lenient: UTF-8 only (no encoded surrogates),
    no NaN/Infinity, numbers that fit a float, nesting at most MAX_JSON_DEPTH deep
    (100,000 ``[`` raise RecursionError in the parser, caught here as well)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonBodyError(gettext("The request body is not UTF-8 text.")) from exc
    try:
        data = json.loads(text or "{}", parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError as exc:
        raise JsonBodyError(gettext("The request body is nested too deeply.")) from exc
    except ValueError as exc:  # JSONDecodeError, NaN/Infinity, numbers too long to convert
        raise JsonBodyError(gettext("The request body is not valid JSON.")) from exc
    if not isinstance(data, dict):
        raise JsonBodyError(gettext("The request body must be a JSON object."))
    if _too_deep(data, MAX_JSON_DEPTH):
        raise JsonBodyError(gettext("The request body is nested too deeply."))
    return data


class ChangesField(forms.Field):
    """A list taken as it came in the JSON body (forms.JSONField would parse a string
    holding JSON a second time)."""

    def to_python(self, value: Any) -> Any:
        if value in self.empty_values:
            return None
        if not isinstance(value, list):
            raise forms.ValidationError(_("Expected a list of changes."))
        return value


class JsonIntegerField(forms.IntegerField):
    """A whole number sent as a JSON number: no strings (Django's IntegerField reads
    "٣" or "３" as 3), no booleans, no fractions."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValidationError(_("Enter a whole number."), code="invalid")
        return value


class SaveBatchForm(forms.Form):
    """One autosave request: a batch of (path, value) changes.

    ``batch_id`` makes a re-send after a lost reply idempotent; ``expected_version``
    is the sheet version the page last saw (optimistic locking); ``sheet`` is the
    sheet the changes were made on, so that a page left open by one rater never
    writes into another's sheet after a change of user in the same browser."""

    sheet = JsonIntegerField(min_value=1, max_value=2**63 - 1)
    batch_id = forms.CharField(max_length=64)
    expected_version = JsonIntegerField(min_value=0, max_value=MAX_VERSION)
    changes = ChangesField()

    def clean_batch_id(self) -> str:
        value = self.cleaned_data["batch_id"]
        if not isinstance(self.data.get("batch_id"), str):  # not true, 7 or [..] turned into text
            raise forms.ValidationError(_("Malformed batch id."))
        if not BATCH_ID.match(value):
            raise forms.ValidationError(_("Malformed batch id."))
        return value

    def clean_changes(self) -> list[tuple[str, object]]:
        raw = self.cleaned_data["changes"]
        if not isinstance(raw, list) or not raw or len(raw) > MAX_CHANGES_PER_BATCH:
            raise forms.ValidationError(_("Expected a list of changes."))
        changes = []
        for change in raw:
            if (
                not isinstance(change, list | tuple)
                or len(change) != 2
                or not isinstance(change[0], str)
                or isinstance(change[1], dict | list)
            ):
                raise forms.ValidationError(_("Each change is a pair of a field and a value."))
            changes.append((change[0], change[1]))
        return changes


class SubmitForm(forms.Form):
    sheet = JsonIntegerField(min_value=1, max_value=2**63 - 1)
    expected_version = JsonIntegerField(min_value=0, max_value=MAX_VERSION)


class ActiveTimeForm(forms.Form):
    """Active time measured in the scoring page since its last report."""

    sheet = JsonIntegerField(min_value=1, max_value=2**63 - 1)
    seconds = JsonIntegerField(min_value=1, max_value=ACTIVE_REPORT_MAX)


class FlagForm(forms.Form):
    note = forms.CharField(
        label=_("What is wrong with this response?"),
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("For example: text cut off, wrong language, a step missing or unreadable."),
    )


class FlagResolveForm(forms.Form):
    flag = forms.IntegerField(min_value=1, max_value=2**63 - 1, widget=forms.HiddenInput)
    action = forms.ChoiceField(choices=[("withdraw", "withdraw"), ("dismiss", "dismiss")])
    note = forms.CharField(label=_("Reason"), max_length=1000, required=False)


class FlagFilterForm(FilterForm):
    """The flags page's filters (a GET form); no status chosen shows the open flags."""

    study = IdChoiceField(queryset=Study.objects.order_by("name"), required=False, label=_("Study"))
    scenario = forms.CharField(max_length=40, required=False, strip=True, label=_("Scenario code contains"))
    status = forms.ChoiceField(
        choices=(
            (FLAG_OPEN, _("Open")),
            (DISMISSED, _("Dismissed")),
            (WITHDRAWN, _("Response withdrawn")),
            (ALL, _("All")),
        ),
        required=False,
        label=_("Status"),
    )

    def flag_filters(self) -> FlagFilters:
        """The filters chosen (none for a field the form refused; the open flags by default)."""
        data = self.chosen()
        return FlagFilters(
            study=data.get("study"),
            scenario=data.get("scenario") or "",
            status=data.get("status") or FLAG_OPEN,
        )


class ReasonForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=1000, widget=forms.Textarea(attrs={"rows": 2}))


class SheetCorrectForm(forms.Form):
    """An admin's correction of one entry of a submitted sheet (the entry's path, as in
    the audit trail, e.g. ``dims.s2.focus`` or ``items.3.2.originality``)."""

    path = forms.CharField(
        label=_("Entry"), max_length=80, help_text=_("As in the audit trail, e.g. dims.s2.focus.")
    )
    value = forms.CharField(label=_("New value"), max_length=20000, required=False, strip=False)
    reason = forms.CharField(label=_("Reason"), max_length=1000, widget=forms.Textarea(attrs={"rows": 2}))
    expected_version = forms.IntegerField(min_value=0, max_value=MAX_VERSION, widget=forms.HiddenInput)


def _raters():
    return (
        get_user_model()
        .objects.filter(groups__name=RATER, is_active=True)
        .select_related("rater_profile")
        .order_by("username")
        .distinct()
    )


class _MarkingWidget:
    """Options whose value is in ``disabled_values`` are rendered disabled."""

    disabled_values: frozenset[str] = frozenset()

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)  # type: ignore[misc]
        if str(getattr(value, "value", value)) in self.disabled_values:
            option["attrs"]["disabled"] = True
        return option


class RaterSelect(_MarkingWidget, OptionListSelect):
    pass


class RaterCheckboxes(_MarkingWidget, OptionListCheckboxes):
    pass


def _rater_label(field, obj) -> str:
    code = getattr(getattr(obj, "rater_profile", None), "rater_code", None)
    label = f"{obj.get_username()} ({code})" if code else obj.get_username()
    if studies := getattr(field, "blocked", {}).get(obj.pk):
        return _("%(rater)s: not qualified yet (%(studies)s)") % {
            "rater": label,
            "studies": ", ".join(studies),
        }
    return label


class RaterChoiceField(IdChoiceField):
    widget = RaterSelect

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("empty_label", _("— choose —"))
        super().__init__(*args, **kwargs)

    def label_from_instance(self, obj) -> str:
        return _rater_label(self, obj)


class RaterMultipleChoiceField(IdMultipleChoiceField):
    widget = RaterCheckboxes

    def label_from_instance(self, obj) -> str:
        return _rater_label(self, obj)


def _default_study(form: forms.Form) -> None:
    """With a single study there is nothing to choose: it is preselected."""
    studies = list(Study.objects.values_list("pk", flat=True)[:2])
    if len(studies) == 1 and not form.is_bound:
        form.fields["study"].initial = studies[0]


def _mark_unqualified(form: forms.Form, names: tuple[str, ...], study: Study | None) -> None:
    """Raters a study with a training set will not give live work to (not qualified, not
    let through) say so in the rater choices; when the form's study is known they are
    also disabled there. The services refuse them in any case."""
    if study is None and "study" in form.fields:
        study_id = id_param(form.data.get("study")) if form.is_bound else form.fields["study"].initial
        study = Study.objects.filter(pk=study_id).first() if study_id else None
    blocked = raters_blocked(raters=_raters(), study=study)
    for name in names:
        field = form.fields[name]
        field.blocked = blocked  # type: ignore[attr-defined]
        field.widget.disabled_values = frozenset(str(pk) for pk in blocked) if study else frozenset()


class PairAssignForm(forms.Form):
    """Assign a rater pair to one scenario under one or several conditions."""

    study = IdChoiceField(label=_("Study"), queryset=Study.objects.all(), empty_label=_("— choose —"))
    scenario = ScenarioChoiceField(
        label=_("Scenario"), queryset=Scenario.objects.all(), empty_label=_("— choose —")
    )
    conditions = IdMultipleChoiceField(
        label=_("Conditions"), queryset=Condition.objects.all(), widget=forms.CheckboxSelectMultiple
    )
    rater_a = RaterChoiceField(label=_("First rater"), queryset=_raters())
    rater_b = RaterChoiceField(label=_("Second rater"), queryset=_raters())

    def __init__(self, *args, study: Study | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        _default_study(self)
        if study is not None and not self.is_bound:
            self.fields["study"].initial = study.pk
        self.chosen_study = form_study(self, study=study)
        form_offer_study_choices(self, study=self.chosen_study, refresh_url=reverse("scoring:assignments"))
        _mark_unqualified(self, ("rater_a", "rater_b"), self.chosen_study)

    def clean(self):
        data = super().clean() or {}
        if data.get("rater_a") and data.get("rater_a") == data.get("rater_b"):
            raise forms.ValidationError(_("Choose two different raters."))
        return data


class AutoAssignForm(forms.Form):
    """Balanced automatic assignment: raters x scenario groups."""

    study = IdChoiceField(label=_("Study"), queryset=Study.objects.all(), empty_label=_("— choose —"))
    scenarios = ScenarioMultipleChoiceField(
        label=_("Scenarios"), queryset=Scenario.objects.all(), widget=forms.CheckboxSelectMultiple
    )
    conditions = IdMultipleChoiceField(
        label=_("Conditions"), queryset=Condition.objects.all(), widget=forms.CheckboxSelectMultiple
    )
    raters = RaterMultipleChoiceField(label=_("Raters"), queryset=_raters(), widget=RaterCheckboxes)

    def __init__(self, *args, study: Study | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        _default_study(self)
        if study is not None and not self.is_bound:
            self.fields["study"].initial = study.pk
        self.chosen_study = form_study(self, study=study)
        form_offer_study_choices(self, study=self.chosen_study, refresh_url=reverse("scoring:auto_assign"))
        _mark_unqualified(self, ("raters",), self.chosen_study)

    def clean_raters(self):
        raters = self.cleaned_data["raters"]
        if len(raters) < 2:
            raise forms.ValidationError(_("Choose at least two raters."))
        return raters


PLAN_LINE = re.compile(r"^(\d+):(\d+):(\d+):(\d+):(\d+)$")


class PlanApplyForm(forms.Form):
    """The plan the admin saw, sent back unchanged to be applied."""

    study = IdChoiceField(queryset=Study.objects.all(), widget=forms.HiddenInput)
    plan = forms.CharField(widget=forms.HiddenInput)

    def clean_plan(self):
        planned = []
        for line in self.cleaned_data["plan"].split():
            m = PLAN_LINE.match(line)
            if not m:
                raise forms.ValidationError(_("Malformed plan."))
            scenario_id, condition_id, n, a, b = (int(x) for x in m.groups())
            planned.append(PlannedGroup(scenario_id, condition_id, n, a, b))
        if not planned:
            raise forms.ValidationError(_("Malformed plan."))
        return planned


class ReassignForm(forms.Form):
    rater_a = RaterChoiceField(label=_("First rater"), queryset=_raters())
    rater_b = RaterChoiceField(label=_("Second rater"), queryset=_raters())
    reason = forms.CharField(label=_("Reason"), max_length=1000)

    def __init__(self, *args, study: Study | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        _mark_unqualified(self, ("rater_a", "rater_b"), study)


class WorkloadFilterForm(FilterForm):
    """The workload board's and the assignments page's filters (a GET form)."""

    study = IdChoiceField(queryset=Study.objects.order_by("name"), required=False, label=_("Study"))
    scenario = forms.CharField(max_length=40, required=False, strip=True, label=_("Scenario code contains"))
    condition = IdChoiceField(
        queryset=Condition.objects.order_by("letter"), required=False, label=_("Condition")
    )
    rater = forms.CharField(max_length=150, required=False, strip=True, label=_("Rater contains"))
    state = forms.ChoiceField(
        choices=(("", _("Any")), (OPEN, _("Sheets still to submit")), (DONE, _("Every sheet submitted"))),
        required=False,
        label=_("Progress"),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # a study chosen shows its board at once (autosubmit.js)
        self.fields["study"].widget.attrs.update({"id": "study-filter", "data-autosubmit": ""})

    def workload_filters(self) -> tuple[Study | None, WorkloadFilters]:
        """The study and the filters chosen (none for a field the form refused: the page says which)."""
        data = self.chosen()
        filters = WorkloadFilters(
            scenario=data.get("scenario") or "",
            condition=data.get("condition"),
            rater=data.get("rater") or "",
            state=data.get("state") or "",
        )
        return data.get("study"), filters
