"""What a judge reads of a response, and which responses a batch covers."""

from __future__ import annotations

from django.db.models import QuerySet

from judging.prompt import ResponseView
from studies.models import Response, ResponseStatus, Scenario, Study


def response_view_get(*, response: Response) -> ResponseView:
    """The response as the judge prompt shows it: parsed items per step, the steps' text, the grid;
    a single-text response's one text, a pair's text A and text B."""
    items: dict[int, list[str]] = {}
    for step, text in response.items.order_by("step", "position").values_list("step", "text"):
        items.setdefault(step, []).append(text)
    headings = {"response": "Response", "a": "Text A", "b": "Text B"}  # the prompt is in English
    texts = [(headings[kind], text) for kind, text in response.whole_texts]
    return ResponseView(
        scenario_theme=response.scenario.theme,
        scenario_text=response.scenario.text,
        items=items,
        steps={n: response.shown_answer(n) for n in range(1, 7)},
        grid=response.grid,
        texts=texts,
    )


def responses_to_judge(*, study: Study, scenario: Scenario | None = None) -> QuerySet[Response]:
    """The study's scorable responses (withdrawn ones and those held for review are left
    out: a judge's sheet is an assignment too), in a stable order."""
    qs = Response.objects.filter(study=study, held=False).exclude(status=ResponseStatus.WITHDRAWN)
    if scenario is not None:
        qs = qs.filter(scenario=scenario)
    return qs.order_by("scenario__code", "research_id")
