"""The names the product gives the standard conditions (the CGPST template's), said in the
reader's language; a name a lab typed stays as typed."""

from django.utils.translation import gettext, gettext_noop

# Research letters: A and B as in the study; the others for the further strategies.
DEFAULT_CONDITION_NAMES = {
    "A": "TeamLLM",
    "B": gettext_noop("Single model (baseline)"),
    "C": gettext_noop("TeamLLM without roles (ablation)"),
    "D": gettext_noop("LLM Discussion"),
    "E": gettext_noop("Multi-Agent Debate"),
    "F": "TeamFusion",
}
_PRODUCT_NAMES = frozenset(DEFAULT_CONDITION_NAMES.values())


def condition_label(name: str) -> str:
    return gettext(name) if name in _PRODUCT_NAMES else name
