"""Table 4's fair scores beyond the study (issue 38): each row's extra, labelled column is the mean
of the fair scores (rater severity taken out) of its condition's and model's responses, the same on
the research page, in the results workbook and in the API's results."""

from statistics import fmean

import pytest
from django.test import Client
from openpyxl import load_workbook

from api.services.tokens import token_create
from calibration.selectors.agreement_state import sheet_vector
from calibration.services.calibration import study_agreement_recompute
from calibration.severity import rater_severity
from core.accounts.roles import RESEARCHER
from research.selectors.research import results_get
from research.workbook import FAIR_HEAD, results_workbook_write
from scoring.models import ScoreSheet
from studies.models import Strategy
from studies.rubric import load_rubric
from tests.factories import (
    ConditionFactory,
    ModelEndpointFactory,
    ScenarioFactory,
    StudyFactory,
    UserFactory,
    make_response,
    rater,
    reference_changes,
    scoring_group,
    sheet_submitted,
    varied_changes,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_conditions(db):
    """Two models under TeamLLM (A) and the single model (B) on two scenarios; one pair, the
    second rater two points harsher on every sheet."""
    study = StudyFactory()
    conditions = [
        ConditionFactory(letter="A"),
        ConditionFactory(letter="B", name="Single", strategy=Strategy.SINGLE),
    ]
    models = [ModelEndpointFactory(), ModelEndpointFactory()]
    first, second = rater("fair-a"), rater("fair-b")
    shift = 0
    for scenario in (ScenarioFactory(study=study), ScenarioFactory(study=study)):
        for condition in conditions:
            group, _ = scoring_group(n_responses=0, study=study, scenario=scenario, condition=condition,
                                     rater_a=first, rater_b=second)  # fmt: skip
            for model in models:
                response = make_response(study=study, scenario=scenario, condition=condition, model=model)
                shift = (shift + 1) % 4
                sheet_submitted(first, response, varied_changes(reference_changes(3), shift), group=group)
                sheet_submitted(
                    second, response, varied_changes(reference_changes(3), shift - 2), group=group
                )
    study_agreement_recompute(study_id=study.pk)
    return study


def _fair_by_row(study):
    """Each (condition, model number)'s mean fair score, from the pure model on the sheets."""
    rubric = load_rubric()
    rows, research_ids = [], {}
    for sheet in ScoreSheet.objects.filter(assignment__response__study=study).select_related(
        "assignment__response"
    ):
        response = sheet.assignment.response
        research_ids[response.pk] = response
        vector = sheet_vector(sheet.totals, rubric)
        rows += [
            (response.pk, sheet.assignment.rater_id, d.key, v)
            for d, v in zip(rubric.dimensions, vector, strict=True)
        ]
    fair = rater_severity(rows).fair_scores
    cells = {}
    for pk, value in fair.items():
        response = research_ids[pk]
        cells.setdefault((response.condition.letter, response.model.model_number), []).append(value)
    return {key: fmean(values) for key, values in cells.items()}


def test_each_row_carries_its_responses_mean_fair_score_everywhere(two_conditions, tmp_path):
    study = two_conditions
    expected = _fair_by_row(study)
    results = results_get(study=study)
    assert results.overall is not None and len(results.overall.rows) == 4
    for row in results.overall.rows:
        assert row.fair == pytest.approx(expected[(row.condition, row.model_number)], abs=1e-12)
    # the fair score takes the harsher rater's offset out: it differs from the plain mean of the two
    assert len({round(row.fair, 6) for row in results.overall.rows}) > 1

    researcher = UserFactory(username="fair-researcher", role=RESEARCHER)
    client = Client()
    client.force_login(researcher)
    page = client.get(f"/research/?study={study.pk}").content.decode()
    shown = [cell.split(">", 1)[1].split("<", 1)[0] for cell in page.split('<td class="num fair"')[1:]]
    assert shown == [f"{row.fair:.3f}" for row in results.overall.rows]
    assert "Fair score (0–1, beyond the study)" in page

    book = tmp_path / "results.xlsx"
    results_workbook_write(results, book)
    sheet = next(
        ws for ws in load_workbook(book, read_only=True).worksheets if ws.title.startswith("Overall")
    )
    rows = list(sheet.iter_rows(values_only=True))
    column = rows[0].index(FAIR_HEAD)
    assert [r[column] for r in rows[1:5]] == [
        pytest.approx(row.fair, abs=5e-5) for row in results.overall.rows
    ]

    token = token_create(user=researcher, name="t", scope="read", days=1)
    api = (
        Client(HTTP_AUTHORIZATION=f"Bearer {token.plain}")
        .get(f"/api/v1/studies/{study.pk}/tables/overall")
        .json()
    )
    assert [r["fair"] for r in api["data"]["rows"]] == [
        pytest.approx(row.fair) for row in results.overall.rows
    ]
