"""A source response of a pairwise study flagged as broken and withdrawn takes the pairs that show
it with it: each pair is withdrawn with the reason (audited), its assignments archived and its open
flags resolved; the flags page says so before the admin withdraws. Pairs of other texts stay."""

import pytest

from scoring.models import Assignment, ResponseFlag
from studies.models import AuditEvent, Response
from studies.services.audit import audit_target
from studies.services.pairs import pairs_build
from studies.services.studies import study_create
from tests.factories import UserFactory, assign, rater, scoring_group_assigned
from tests.studies.test_pairs import source_with_three_systems

pytestmark = pytest.mark.django_db


def test_withdrawing_a_flagged_source_withdraws_the_pairs_showing_it(client):
    source, responses = source_with_three_systems()
    study = study_create(name="Sleep preferences", template="empty", task_kind="pair", pairs_from=source)
    pairs_build(study=study, actor=None)
    broken = responses[0]
    units = Response.objects.filter(study=study).select_related("pair")
    showing = {u.pk for u in units if broken.pk in (u.pair.left_id, u.pair.right_id)}
    assert len(showing) == 2  # three systems: the broken text is in two of the three pairs
    first, second = rater("pair-a", "H91"), rater("pair-b", "H92")
    scoring_group_assigned(responses=list(units), rater_a=first, rater_b=second)
    on_a_pair = Assignment.objects.filter(response_id=min(showing), rater=first).get()
    pair_flag = ResponseFlag.objects.create(
        response_id=on_a_pair.response_id, rater=first, note="Text B is cut"
    )
    flag = ResponseFlag.objects.create(
        response=broken, rater=assign(rater("src", "H93"), broken).rater, note="cut"
    )

    client.force_login(UserFactory(username="pairs-boss", role="Admin"))
    listing = client.get("/manage/flags/").content.decode()
    assert 'data-pairs-showing="2"' in listing
    assert "A pairwise study shows it in 2 pairs: withdrawing the response withdraws them too." in listing
    client.post("/manage/flags/", {"flag": flag.pk, "action": "withdraw", "note": "the text stops mid-word"})

    withdrawn = set(Response.objects.filter(status="withdrawn").values_list("pk", flat=True))
    assert withdrawn == {broken.pk, *showing}
    assert not Assignment.objects.filter(response_id__in=showing, archived_at__isnull=True).exists()
    kept = units.exclude(pk__in=showing).get()
    assert (
        kept.status != "withdrawn" and Assignment.objects.filter(response=kept, archived_at=None).count() == 2
    )
    pair_flag.refresh_from_db()
    assert pair_flag.resolution == "withdrawn"
    events = AuditEvent.objects.filter(action="response.withdrawn")
    reasons = {e.target: e.reason for e in events}
    assert reasons[audit_target(broken)] == "the text stops mid-word"
    shows = f"It shows {broken.research_id}, withdrawn (flagged as broken): the text stops mid-word"
    assert [reasons[audit_target(unit)] for unit in units.filter(pk__in=showing)] == [shows, shows]
