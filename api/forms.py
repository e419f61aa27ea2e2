from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from api.models import ApiToken
from api.services.tokens import MAX_DAYS
from studies.models import Study
from studies.params import IdChoiceField


class TokenForm(forms.Form):
    name = forms.CharField(
        label=_("Name"), max_length=100, help_text=_("What the token is for, e.g. a notebook.")
    )
    scope = forms.ChoiceField(label=_("Scope"), choices=ApiToken.Scope.choices, initial=ApiToken.Scope.READ)
    days = forms.IntegerField(label=_("Valid for (days)"), min_value=1, max_value=MAX_DAYS, initial=90)
    study = IdChoiceField(
        label=_("Study"),
        queryset=Study.objects.order_by("name"),
        required=False,
        empty_label=_("Every study"),
        help_text=_("Limit the token to one study: every other study is then not found."),
    )
