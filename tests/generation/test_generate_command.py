"""``manage.py generate --wait`` prints the new response's research ID and its turns."""

import pytest
from django.core.management import CommandError, call_command

from generation.models import GenerationRun
from studies.models import ModelEndpoint
from tests.factories import stub_endpoint

pytestmark = pytest.mark.worker


def test_generate_waits_and_reports_the_response(celery_worker, demo, llm_stub, capsys):
    stub_endpoint(llm_stub)
    call_command("generate", scenario="FS10", model="stub", strategy="single", wait=True, timeout=120)
    out = capsys.readouterr()
    assert out.out.strip() == "B90_FS10 6 turns"
    assert "run 1 queued: B90_FS10, 6 calls" in out.err or "queued: B90_FS10, 6 calls" in out.err


def test_generate_refuses_unknown_things_clearly(demo, llm_stub):
    stub_endpoint(llm_stub)
    with pytest.raises(CommandError, match="unknown scenario"):
        call_command("generate", scenario="FS99", model="stub", strategy="single")
    with pytest.raises(CommandError, match="unknown model endpoint"):
        call_command("generate", scenario="FS10", model="nope", strategy="single")
    with pytest.raises(CommandError, match="no base URL"):
        call_command("generate", scenario="FS10", model="kimi-k2", strategy="single")
    ModelEndpoint.objects.filter(name="kimi-k2").update(base_url=llm_stub.base_url)
    with pytest.raises(CommandError, match="a response with this research ID exists"):
        call_command("generate", scenario="FS10", model="05", condition="A")  # A05_FS10 is the demo response
    assert not GenerationRun.objects.exists()


def test_generate_records_the_top_p_choice(demo, llm_stub):
    stub_endpoint(llm_stub)
    call_command("generate", scenario="FS10", model="stub", strategy="single", top_p="as_released")
    run = GenerationRun.objects.get()
    assert (
        run.settings_snapshot["top_p"] == "as_released" and run.settings_snapshot["params"]["top_p"] is None
    )
    with pytest.raises(CommandError):
        call_command(
            "generate", "--scenario", "FS10", "--model", "stub", "--strategy", "single", "--top-p", "0.5"
        )


def test_generate_runs_only_what_the_study_chose_as_the_page_does(demo, llm_stub):
    """Issue 42: `generate --model X` ran an endpoint the study never chose while its Generation
    page offered none; an unknown model listed nothing; the study name was case-sensitive."""
    stub = stub_endpoint(llm_stub)
    other = stub_endpoint(llm_stub, name="stub2", model_number="91")
    demo.study.endpoints.set([stub])
    with pytest.raises(CommandError, match="did not choose the model endpoint"):
        call_command(
            "generate",
            "--study",
            demo.study.name.upper(),
            scenario="FS10",
            model=other.name,
            strategy="single",
        )
    with pytest.raises(CommandError, match=r"unknown model endpoint 'nope'; the endpoints: 90 stub$"):
        call_command("generate", scenario="FS10", model="nope", strategy="single")
    demo.study.conditions.set(demo.study.conditions.none())
    call_command(
        "generate", "--study", demo.study.name.lower(), scenario="FS10", model="STUB", strategy="single"
    )
    assert GenerationRun.objects.get().settings_snapshot["research_id"] == "B90_FS10"
