"""The conditions' names as the research pages, figures and exports say them."""

from __future__ import annotations

from studies.condition_labels import condition_label
from studies.models import Condition


def condition_names_get() -> dict[str, str]:
    """Each condition's letter -> its name in the active language (a lab's own name as typed)."""
    return {letter: condition_label(name) for letter, name in Condition.objects.values_list("letter", "name")}
