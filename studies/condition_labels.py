"""The names the product gives the standard conditions (the CGPST template's) and the description
it gives a study made from the template, said in the reader's language; a name or description a
lab typed stays as typed."""

from django.conf import settings
from django.utils import translation
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


# The CGPST template's description of a study it makes, stored in the language of whoever made it
CGPST_DESCRIPTION = gettext_noop(
    "As the TeamLLM release: scenario FS10, the prompts, the paper's ten models, the agreement "
    "threshold 0.65 (a response passes only when r > threshold) and the headline ICC3k "
    "(consistency). Our reading: the final-score rule after calibration (the calibrator and the "
    "closer primary rater, averaged), which neither the paper nor the release states. The "
    "paper's text says threshold 0.70 and absolute agreement (ICC2k, shown beside ICC3k)."
)


def study_description_label(description: str) -> str:
    """A study's description in the reader's language where it is the template's own (in any of
    the product's languages); a lab's own text as typed."""
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            if description.strip() == gettext(CGPST_DESCRIPTION):
                break
    else:
        return description
    return gettext(CGPST_DESCRIPTION)
