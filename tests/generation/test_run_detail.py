"""The transcript viewer: per step, per role, chat-like; LLM output is escaped."""

import pytest
from django.urls import reverse

from generation.models import GenerationRun, RunStatus, Turn
from studies.models import Condition, Scenario, Study
from tests.factories import stub_endpoint

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.fixture
def run(demo, llm_stub):
    run = GenerationRun.objects.create(
        study=Study.objects.get(name="CGPST demo"),
        scenario=Scenario.objects.get(code="FS10"),
        endpoint=stub_endpoint(llm_stub),
        condition=Condition.objects.get(letter="A"),
        status=RunStatus.FAILED,
        settings_snapshot={"research_id": "A90_FS10", "params": {"rounds": 1}},
        calls_total=34,
        calls_done=2,
        error="Call 2 failed",
    )
    for seq, (step, phase, role, reply) in enumerate(
        [(0, "warm_up", "Co-Ordinator", "Hello team"), (0, "warm_up", "Plant", HOSTILE)]
    ):
        Turn.objects.create(
            run=run,
            seq=seq,
            step=step,
            phase=phase,
            role=role,
            reply=reply,
            reasoning="thinking <i>hard</i>" if seq == 1 else "",
            messages=[{"role": "system", "content": "SYS <b>"}, {"role": "user", "content": f"prompt {seq}"}],
            request_params={"temperature": 0.8, "top_p": 0.9},
            attempts=2,
        )
    return run


def test_transcript_shows_turns_by_step_and_role_and_escapes_output(client, run):
    client.login(username="admin", password="demo-pass-2026")
    page = client.get(reverse("generation:run_detail", args=[run.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert "Warm-up" in html and "Co-Ordinator" in html and "Hello team" in html
    assert html.index("Hello team") < html.index("&lt;script&gt;")
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "thinking &lt;i&gt;hard&lt;/i&gt;" in html  # reasoning kept apart, escaped
    assert "T=0.8" in html and "2 attempts" in html
    assert "Retry from the last completed turn" in html


def test_exact_messages_load_on_demand(client, run):
    client.login(username="admin", password="demo-pass-2026")
    fragment = client.get(
        reverse("generation:turn_messages", args=[run.pk, 1]), headers={"HX-Request": "true"}
    )
    html = fragment.content.decode()
    assert "SYS &lt;b&gt;" in html and "prompt 1" in html and "<html" not in html


def test_raters_cannot_read_transcripts(client, run):
    client.login(username="rater1", password="demo-pass-2026")
    assert client.get(reverse("generation:run_detail", args=[run.pk])).status_code == 403
    assert client.get(reverse("generation:turn_messages", args=[run.pk, 0])).status_code == 403
    assert client.post(reverse("generation:run_retry", args=[run.pk])).status_code == 403
