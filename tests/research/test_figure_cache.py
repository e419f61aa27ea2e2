"""Figures are drawn once per data version and then served from the cache (issue 14)."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from calibration.models import FinalScore
from core.accounts.roles import RESEARCHER
from research.selectors.versions import research_data_version
from tests.caches import cache_clear_own
from tests.factories import UserFactory
from tests.paper_table4 import load_table4

pytestmark = pytest.mark.django_db


def _get(client, study):
    with CaptureQueriesContext(connection) as queries:
        reply = client.get("/research/figures/steps.svg", {"study": study.pk})
    assert reply.status_code == 200
    return reply.content, len(queries.captured_queries)


def test_a_figure_is_drawn_once_per_data_version(client):
    cache_clear_own()
    study = load_table4()
    client.force_login(UserFactory(username="res-cache", role=RESEARCHER))
    first, drawn = _get(client, study)
    again, served = _get(client, study)
    assert again == first
    assert served < drawn  # the second answer reads no scores: only the data version
    assert served <= 10  # session, user, roles, the filter form, the data version (two queries)

    version = research_data_version(study=study)
    final = FinalScore.objects.filter(response__study=study).order_by("id").first()
    final.overall = final.overall + Decimal("40")
    final.save()  # what calibration does when a score changes
    assert research_data_version(study=study) != version
    redrawn, queries = _get(client, study)
    # the scores were read again and the figure redrawn: as many queries as the first draw, less
    # what the first request left in the cache (the user's roles; the raters' severity behind
    # Table 4's fair scores, which follows the submitted sheets, not the final scores)
    assert queries > served and queries >= drawn - 5
    assert redrawn != first  # and it shows the new score
