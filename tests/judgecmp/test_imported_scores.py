"""The comparison on imported human scores: the study's data_A.json through
`import_scores --create-missing`, and a judge sheet beside the two experts' sheets."""

import pytest
from django.core.management import call_command
from scipy.stats import pearsonr

from calibration.models import FinalScore
from calibration.services.calibration import response_scores_recompute
from judging.selectors.comparison import judge_comparison_get
from scoring.models import ScoreSheet
from scoring.score_files import data_a_changes
from studies.models import Response
from studies.rubric import load_rubric
from tests.conftest import REFERENCE
from tests.factories import ModelEndpointFactory, varied_changes
from tests.judgecmp.factories import judge_make, judge_sheet

pytestmark = pytest.mark.django_db


def _vector(totals):
    return [totals["dimensions"][d.key] / d.max for d in load_rubric().dimensions]


def test_judge_against_imported_experts(data_a):
    call_command(
        "import_scores", str(REFERENCE / "data_A.json"), "--study", "Replication", "--create-missing"
    )
    response = Response.objects.get(research_id="A05_FS10")
    h01, h02 = (s.totals for s in ScoreSheet.objects.filter(assignment__response=response).order_by("id"))
    judge = judge_make("kimi-judge", endpoint=ModelEndpointFactory(name="other", model_number="77"),
                       provider_family="kimi")  # fmt: skip
    j = judge_sheet(judge, response, varied_changes(data_a_changes(data_a[0][3], load_rubric()), -1))
    response_scores_recompute(response_id=response.pk)
    assert str(FinalScore.objects.get(response=response).overall) == "116.50"  # still the experts' mean

    comparison = judge_comparison_get(study=response.study, judge=judge)
    (row,) = comparison.rows
    assert row.item.own_family  # kimi-k2 begins with the judge's family "kimi"
    assert row.judge_a.r == pytest.approx(pearsonr(_vector(j.totals), _vector(h01)).statistic, abs=1e-12)
    assert row.judge_b.r == pytest.approx(pearsonr(_vector(j.totals), _vector(h02)).statistic, abs=1e-12)
    assert row.human_pair.r == pytest.approx(pearsonr(_vector(h01), _vector(h02)).statistic, abs=1e-12)
    final = FinalScore.objects.get(response=response)
    fv = [float(final.dimensions[d.key]) / d.max for d in load_rubric().dimensions]
    assert row.judge_final.r == pytest.approx(pearsonr(_vector(j.totals), fv).statistic, abs=1e-12)
    overall = next(d for d in comparison.steps if d.key == "overall").value
    assert overall.mean == pytest.approx(j.totals["overall"] - 116.5)
    (scenario,) = comparison.iccs
    assert scenario.judge_added.reason == "fewer than 3 responses"
