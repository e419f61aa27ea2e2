"""Issue 42: "every step has a page and a command" was not true: creating an endpoint,
releasing held responses, assigning pairs and writing the raters' workbooks had no command.
Each command calls the page's service and is audited under the admin it names (``--as``)."""

import io
import zipfile

import pytest
from django.core.management import CommandError, call_command

from scoring.models import ScoringGroup
from studies.models import AuditEvent, Condition, ModelEndpoint, Response
from tests.factories import make_response

pytestmark = pytest.mark.django_db


def _run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_add_endpoint_validates_and_audits_under_the_admin(demo):
    out = _run(
        "add_endpoint", "local-llm", "--model-number", "42", "--base-url", "http://127.0.0.1:9/v1",
        "--model-name", "m", "--as", "admin",
    )  # fmt: skip
    assert "endpoint 42 local-llm added" in out
    endpoint = ModelEndpoint.objects.get(name="local-llm")
    event = AuditEvent.objects.get(action="endpoint.create", target__endswith=f":{endpoint.pk}")
    assert event.actor.username == "admin"
    with pytest.raises(CommandError, match="model_number"):
        _run("add_endpoint", "bad", "--model-number", "4x2", "--base-url", "http://127.0.0.1:9/v1",
             "--model-name", "m", "--as", "admin")  # fmt: skip
    with pytest.raises(CommandError, match="no active admin account"):
        _run("add_endpoint", "r", "--model-number", "43", "--base-url", "http://127.0.0.1:9/v1",
             "--model-name", "m", "--as", "rater1")  # fmt: skip
    assert not ModelEndpoint.objects.filter(name__in=["bad", "r"]).exists()


def test_release_responses_releases_by_research_id_or_all_audited(demo):
    first = Response.objects.get(research_id="A05_FS10")
    held = [
        make_response(study=first.study, scenario=first.scenario, model=m, condition=first.condition)
        for m in ModelEndpoint.objects.exclude(pk=first.model_id).order_by("model_number")[:2]
    ]
    Response.objects.filter(pk__in=[r.pk for r in held]).update(held=True)
    ids = sorted(Response.objects.filter(pk__in=[r.pk for r in held]).values_list("research_id", flat=True))
    with pytest.raises(CommandError, match="not held in CGPST demo: Z99_FS10"):
        _run("release_responses", ids[0], "Z99_FS10", "--as", "admin")
    assert Response.objects.filter(pk__in=[r.pk for r in held], held=True).count() == 2  # nothing changed
    assert "released 1 response(s)" in _run("release_responses", ids[0], "--as", "admin")
    assert "released 1 response(s)" in _run("release_responses", "--all", "--as", "admin")
    assert not Response.objects.filter(pk__in=[r.pk for r in held], held=True).exists()
    events = AuditEvent.objects.filter(action="response.released")
    assert events.count() == 2 and {e.actor.username for e in events} == {"admin"}
    assert "no held response" in _run("release_responses", "--all", "--as", "admin")


def test_assign_pairs_prints_the_plan_and_applies_it_on_request(demo):
    study = Response.objects.get(research_id="A05_FS10").study
    before = ScoringGroup.objects.filter(study=study).count()
    condition = (
        Condition.objects.exclude(pk__in=ScoringGroup.objects.filter(study=study).values("condition"))
        .order_by("letter")
        .first()
    )
    plan = _run(
        "assign_pairs", "--as", "admin", "--scenarios", "FS10", "--conditions", condition.letter,
        "--raters", "rater1", "rater2",
    )  # fmt: skip
    assert f"FS10\t{condition.letter}\t" in plan and "1 scenario group(s) planned" in plan
    assert ScoringGroup.objects.filter(study=study).count() == before  # a plan only
    with pytest.raises(CommandError, match="--raters: unknown nobody"):
        _run("assign_pairs", "--as", "admin", "--raters", "rater1", "nobody")
    done = _run(
        "assign_pairs", "--as", "admin", "--scenarios", "FS10", "--conditions", condition.letter,
        "--raters", "rater1", "rater2", "--apply",
    )  # fmt: skip
    assert "plan applied: 1 scenario group(s) assigned" in done
    group = ScoringGroup.objects.get(study=study, scenario__code="FS10", condition=condition)
    assert {group.rater_a.username, group.rater_b.username} == {"rater1", "rater2"}


def test_export_workbooks_writes_each_raters_open_workbooks(demo, tmp_path):
    out = tmp_path / "workbooks.zip"
    printed = _run("export_workbooks", str(out))
    names = zipfile.ZipFile(out).namelist()
    assert f"{len(names)} workbook(s)" in printed and len(names) >= 2
    assert {n.split("/")[0] for n in names} >= {"H01", "H02"}
    with pytest.raises(CommandError, match=r"\.zip"):
        _run("export_workbooks", str(tmp_path / "x.xlsx"))


def test_assign_pairs_plans_only_the_studys_own_scenarios_by_default(demo):
    """A new user's walkthrough (session 2026-12-08): with the demo's three studies, the command's
    defaults took every study's scenarios (Q1, Q2 of the Likert and pairwise demos) for the CGPST
    demo: the form read the study's id, given as a number, as no study."""
    from studies.models import Scenario, Study

    study = Response.objects.get(research_id="A05_FS10").study
    other = Study.objects.create(name="Answers demo (Likert)")  # as make run's demo has it
    Scenario.objects.create(study=other, code="Q1", theme="Another study's", text="A question.")
    plan = _run("assign_pairs", "--as", "admin", "--study", study.name, "--raters", "rater1", "rater2")
    planned = {line.split("\t")[0] for line in plan.splitlines() if "\t" in line}
    own = set(Scenario.objects.filter(study=study).values_list("code", flat=True))
    assert planned and planned <= own, (planned, own)
