"""Labels of the results in the reader's language (the tables' templates and the figures use them)."""

from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

from research.figures import ENGLISH, FigureLabels
from research.results import Column, Results
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


def figure_labels(results: Results | None = None) -> FigureLabels:
    """The words of the figures (research.figures, pure) in the reader's language: English
    as the release's figures by default, the tables' names of ``results``' columns and
    metrics in Chinese."""
    if not (get_language() or "en").startswith("zh"):
        return ENGLISH
    columns, metrics = {}, {}
    if results is not None:
        columns = {column.key: column_label(column, results.rubric) for column in results.columns}
        metrics = {g.metric: metric_label(g.metric, results.rubric) for g in results.efficiency}
    return FigureLabels(
        step_max=gettext("Step-%(step)s (max %(max)s)"),
        step_name_max=gettext("Step-%(step)s %(name)s (max %(max)s)"),
        wilcoxon=gettext("Wilcoxon signed-rank test per step and model, %(a)s vs %(b)s: ** p < 0.01"),
        wilcoxon_05=gettext(", * p < 0.05"),
        diversity=gettext("Step-%(step)s diversity (1 - Self-BLEU, as released; max 1)"),
        overall=gettext("Overall score: TeamLLM, without roles, baseline (max %(max)s)"),
        mean_score=gettext("mean score"),
        no_data=gettext("No data yet"),
        flexibility_axis=gettext("Step-%(step)s Flexibility (max %(max)s)"),
        diversity_axis=gettext("Diversity (1 - Self-BLEU, as released; max 1)"),
        scatter_title=gettext("Step-%(step)s: diversity against flexibility, %(unit)s"),
        per_response=gettext("per response, per condition"),
        per_model=gettext("per model mean (as the release plots it)"),
        step_total=gettext("Step %(n)s total"),
        overall_panel=gettext("Overall"),
        humans_final=gettext("humans' final score"),
        judge_mean=gettext("judge's mean"),
        columns=columns,
        metrics=metrics,
    )
