"""Forms of the onboarding pages."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class InviteForm(forms.Form):
    file = forms.FileField(
        label=_("CSV file"),
        help_text=_(
            "Columns: username, name, email, language (en or zh-hans), roles (rater, calibrator, "
            "researcher, admin; several separated by |), and optionally rater_code (H01). "
            "Comma or semicolon separated, UTF-8."
        ),
    )
    send_email = forms.BooleanField(label=_("Also send each link by email"), required=False, initial=True)


class AccountRolesForm(forms.Form):
    roles = forms.MultipleChoiceField(
        label=_("Roles"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        choices=[
            ("rater", _("Rater")),
            ("calibrator", _("Calibrator (a rater who may calibrate)")),
            ("researcher", _("Researcher")),
            ("admin", _("Admin (superusers only)")),
        ],
    )
    reason = forms.CharField(label=_("Reason (for the audit trail)"), required=False, max_length=500)


class AccountActiveForm(forms.Form):
    active = forms.BooleanField(required=False)
    reason = forms.CharField(label=_("Reason (for the audit trail)"), required=False, max_length=500)
