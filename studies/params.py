"""Ids taken from query strings and form fields, without a 500 on anything else.

``"²".isdigit()`` is true but ``int("²")`` fails, ``pk="abc"`` raises ValueError in the ORM,
and on SQLite an id beyond 2**63 raises OverflowError in the driver (Django's model choice
fields catch neither): pages that read an id from the request use ``id_param``, and forms
pick objects with ``IdChoiceField`` / ``IdMultipleChoiceField``, which refuse anything but
an id in the database's range as an invalid choice before any query.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

_ID = re.compile(r"[0-9]{1,18}")


def id_param(value: object) -> int | None:
    """A database id written in ASCII digits, or None for anything else."""
    if isinstance(value, str) and _ID.fullmatch(value):
        return int(value)
    return None


def _bad_id(field: forms.ModelChoiceField, value: Any) -> bool:
    """A value the field would look up by id that is no id (fields matched on another
    column, ``to_field_name``, are left to Django)."""
    return field.to_field_name is None and id_param(str(value)) is None


def choice_field(form: forms.BaseForm, name: str) -> forms.ChoiceField:
    """The declared choice field ``name`` of ``form``, to set its choices (django-stubs types
    ``form.fields`` as plain ``Field``s)."""
    field = form.fields[name]
    if not isinstance(field, forms.ChoiceField):
        raise TypeError(f"{name} is no choice field")
    return field


def model_choice_field(form: forms.BaseForm, name: str) -> forms.ModelChoiceField:
    """The declared model choice field ``name`` of ``form``, to set its queryset."""
    field = form.fields[name]
    if not isinstance(field, forms.ModelChoiceField):
        raise TypeError(f"{name} is no model choice field")
    return field


class OptionListSelect(forms.Select):
    """A select drawn by one template, its options written in (Django's includes a template per
    option: a list of 200 raters cost tens of milliseconds). The same markup as Django's."""

    template_name = "studies/widgets/select.html"


class OptionListCheckboxes(forms.CheckboxSelectMultiple):
    """Checkboxes drawn by one template, as ``OptionListSelect``; the same markup as Django's."""

    template_name = "studies/widgets/checkboxes.html"


class IdChoiceField(forms.ModelChoiceField):
    """``ModelChoiceField`` that answers "Select a valid choice" for a value that is no id."""

    widget = OptionListSelect

    def to_python(self, value: Any) -> Any:
        if value not in self.empty_values and _bad_id(self, value):
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice")
        return super().to_python(value)


class IdMultipleChoiceField(forms.ModelMultipleChoiceField):
    """``ModelMultipleChoiceField`` that answers "... is not a valid value" for a value that
    is no id."""

    def clean(self, value: Any) -> Any:
        if isinstance(value, list | tuple):
            for item in value:
                if item not in self.empty_values and _bad_id(self, item):
                    raise ValidationError(
                        self.error_messages["invalid_pk_value"], code="invalid_pk_value", params={"pk": item}
                    )
        return super().clean(value)


class FilterForm(forms.Form):
    """A list page's GET filters: every object field offers "All", and a field the form
    refused filters nothing (the page says which)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            if isinstance(field, forms.ModelChoiceField):
                field.empty_label = _("All")

    def chosen(self) -> dict[str, Any]:
        """The filters chosen: the valid fields' values."""
        self.is_valid()  # Django keeps only the valid fields in cleaned_data
        return dict(self.cleaned_data)

    def kept_query(self) -> str:
        """The filters given, as the query string the page links keep (each value cut to 150
        characters, so that a link never grows with what was typed)."""
        given = [(key, str(self.data[key])[:150]) for key in self.fields if self.data.get(key)]
        return urlencode(given)
