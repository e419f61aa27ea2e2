"""The strategies' settings (their ``DEFAULTS`` keys) named in the reader's language on the
condition page; the key itself stays, as it is what a condition's Parameters hold."""

from django.utils.translation import gettext_lazy as _

SETTING_LABELS = {
    "language": _("Response language"),
    "temperature": _("Temperature"),
    "temperatures": _("Temperature of each role"),
    "top_p": _("Top-p (nucleus sampling)"),
    "rounds": _("Discussion rounds"),
    "role_set": _("Role set"),
    "answer_from": _("Member whose final answer is the step's answer"),
    "proxy_temperature": _("Proxies' temperature"),
    "synthesizer_temperature": _("Synthesizer's temperature"),
    "iterations": _("Iterations"),
    "turns": _("Speaking turns of each proxy per iteration"),
    "profiles": _("Member profiles"),
    "prompts": _("Prompts"),
}
