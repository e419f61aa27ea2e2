"""Forms of the onboarding pages."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib.auth.forms import PasswordChangeForm
from django.utils.translation import gettext_lazy as _

from core.accounts.roles import ALL_ROLES, ROLE_LABELS
from onboarding.models import Invitation
from onboarding.selectors import EXPIRED, study_invitations
from onboarding.services import account_password_change
from studies.models import Study
from studies.params import IdMultipleChoiceField


class AuditedPasswordChangeForm(PasswordChangeForm):
    """Django's password change form, saved through the service that audits it."""

    def save(self, commit: bool = True) -> Any:
        account_password_change(user=self.user, password=self.cleaned_data["new_password1"])
        return self.user


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


class InvitationsRenewForm(forms.Form):
    """New links for several invitations of a study at once: the ticked ones, or every one
    whose last link has expired."""

    TICKED, EXPIRED = "ticked", "expired"

    scope = forms.ChoiceField(
        choices=((TICKED, _("The ticked invitations")), (EXPIRED, _("Every expired link")))
    )
    ids = IdMultipleChoiceField(queryset=Invitation.objects.none(), required=False)

    def __init__(self, *args, study: Study, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.study = study
        cast(IdMultipleChoiceField, self.fields["ids"]).queryset = Invitation.objects.filter(
            study=study, accepted_at__isnull=True
        )

    def clean(self) -> dict:
        data = super().clean() or {}
        if data.get("scope") == self.TICKED and not data.get("ids"):
            raise forms.ValidationError(_("Tick at least one invitation first."))
        if data.get("scope") == self.EXPIRED and not self._expired():
            raise forms.ValidationError(_("No invitation of this study has an expired link."))
        return data

    def _expired(self) -> list[int]:
        return [
            row["invitation"].pk for row in study_invitations(study=self.study) if row["state"] == EXPIRED
        ]

    def invitation_ids(self) -> list[int]:
        if self.cleaned_data["scope"] == self.EXPIRED:
            return self._expired()
        return [invitation.pk for invitation in self.cleaned_data["ids"]]


class AccountFilterForm(forms.Form):
    """The accounts page's filters (a GET form)."""

    q = forms.CharField(
        max_length=150, required=False, strip=True, label=_("Name, email or rater ID contains")
    )
    role = forms.ChoiceField(required=False, label=_("Role"))
    active = forms.ChoiceField(
        choices=(("", _("Any")), ("yes", _("Active")), ("no", _("Deactivated"))),
        required=False,
        label=_("State"),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["role"]).choices = [("", _("Any"))] + [
            (name, ROLE_LABELS[name]) for name in ALL_ROLES
        ]

    def account_filters(self) -> dict[str, Any]:
        """``accounts_matching``'s arguments (none for a field the form refused)."""
        data = self.cleaned_data if self.is_valid() else {}
        active = {"yes": True, "no": False}.get(data.get("active") or "")
        return {"search": data.get("q") or "", "role": data.get("role") or "", "active": active}
