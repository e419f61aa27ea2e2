"""Labels of the results in the reader's language (the tables' templates and the figures use them)."""

from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from research.results import Column
from studies.rubric import Rubric

# research.significance is pure: its notes are English codes, said in the reader's language here
TEST_NOTES = {
    "no paired scenarios": _("no paired scenarios"),
    "all differences are zero": _("all differences are zero"),
}


def test_note(value: str) -> str:
    return str(TEST_NOTES.get(value, value))


def column_label(column: Column, rubric: Rubric) -> str:
    """A Table 1/2 column in the reader's language: in English the release's own labels, in
    Chinese the rubric's names of its dimensions."""
    lang = get_language() or "en"
    if not lang.startswith("zh"):
        return column.label
    if column.key == "overall":
        return str(_("Total Score"))
    if column.key.startswith("step."):
        return str(_("Step total"))
    if column.key.endswith(".integrity"):  # the release's column the rubric has no dimension for
        return str(_("Integrity"))
    return rubric.dimension(column.key).label.text(lang)


def step_label(label: str) -> str:
    """A Table 1/2 step head ("Step-1", the release's) in the reader's language."""
    number = label.removeprefix("Step-")
    if number == label or not (get_language() or "en").startswith("zh"):
        return label
    return str(_("Step %(n)s") % {"n": number})


def metric_label(metric: str, rubric: Rubric) -> str:
    """An efficiency metric ("Flexibility/Fluency") in the reader's language: in Chinese the
    rubric's names of its dimensions."""
    lang = get_language() or "en"
    if not lang.startswith("zh"):
        return metric
    try:
        return "/".join(rubric.dimension(f"s1.{name.lower()}").label.text(lang) for name in metric.split("/"))
    except (KeyError, ValueError):
        return metric
