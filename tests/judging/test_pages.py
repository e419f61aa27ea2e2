"""The judge pages: staff create judges, launch batches and follow them; raters are refused."""

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from judging.models import Judge, JudgeBatch, JudgeTaskStatus
from judging.services.runs import judge_batch_launch, judge_task_run
from tests.factories import stub_endpoint

User = get_user_model()


def test_raters_are_refused_everywhere(client, demo, judge, study):
    batch = judge_batch_launch(study=study, judge=judge)
    client.force_login(User.objects.get(username="rater1"))
    for url in (
        reverse("judging:home"),
        reverse("judging:batch_detail", args=[batch.pk]),
    ):
        assert client.get(url).status_code in (302, 403)
    for url in (
        reverse("judging:batch_cancel", args=[batch.pk]),
        reverse("judging:batch_retry", args=[batch.pk]),
    ):
        assert client.post(url).status_code in (302, 403)
    assert JudgeBatch.objects.get().status == "running"


def _admin(client):
    client.force_login(User.objects.get(username="admin"))


def test_staff_create_a_judge_and_launch_a_batch(client, demo, llm_stub):
    endpoint = stub_endpoint(llm_stub)
    _admin(client)
    page = client.get(reverse("judging:home"))
    demo_judge = Judge.objects.get()  # seed_demo's judge on the stub
    assert page.status_code == 200 and demo_judge.name in page.content.decode()
    response = client.post(
        reverse("judging:home"),
        {
            "form": "judge",
            "judge-name": "Stub judge",
            "judge-endpoint": endpoint.pk,
            "judge-prompt_version": "cgpst-judge-v1",
            "judge-temperature": "0.3",
            "judge-samples": "2",
            "judge-structured_output": "on",
            "judge-provider_family": "stub",
        },
    )
    assert response.status_code == 302
    judge = Judge.objects.exclude(pk=demo_judge.pk).get()
    assert (judge.temperature, judge.samples, judge.user.is_active, judge.user.has_usable_password()) == (
        0.3,
        2,
        False,
        False,
    )
    assert judge.user.rater_profile.rater_code == "J02"  # the next free code after the demo's J01
    bad = client.post(
        reverse("judging:home"),
        {"form": "batch", "batch-study": demo.study.pk, "batch-judge": judge.pk, "batch-scenario": "FS99"},
    )
    assert bad.status_code == 200 and "Unknown scenario FS99" in bad.content.decode()
    assert not JudgeBatch.objects.exists()
    launched = client.post(
        reverse("judging:home"),
        {"form": "batch", "batch-study": demo.study.pk, "batch-judge": judge.pk, "batch-scenario": "FS10"},
    )
    batch = JudgeBatch.objects.get()
    assert launched.status_code == 302 and launched["Location"] == reverse(
        "judging:batch_detail", args=[batch.pk]
    )
    assert batch.samples == 2 and batch.temperature == 0.3


def test_the_batch_page_polls_until_done_and_shows_failures(client, demo, judge, study, llm_stub):
    llm_stub.configure(judge_fault="range", judge_fault_attempts=2)
    batch = judge_batch_launch(study=study, judge=judge)
    _admin(client)
    url = reverse("judging:batch_detail", args=[batch.pk])
    live = client.get(url, headers={"HX-Request": "true"})
    assert live.status_code == 200 and 'hx-trigger="every 2s"' in live.content.decode()
    for task in batch.tasks.all():
        judge_task_run(task_id=task.pk)
    assert batch.tasks.get().status == JudgeTaskStatus.FAILED
    done = client.get(url, headers={"HX-Request": "true"})
    html = done.content.decode()
    assert done.status_code == 286 and "hx-trigger" not in html
    assert "must be a whole number" in html and "&quot;dims." in html  # reason and raw output
    assert "2 provider calls" in html
    llm_stub.configure(judge_fault="")
    client.post(reverse("judging:batch_retry", args=[batch.pk]))
    task = batch.tasks.get()
    assert task.status == JudgeTaskStatus.QUEUED and task.calls.count() == 0
    assert judge_task_run(task_id=task.pk) == "succeeded"


def test_cancel_stops_queued_tasks(client, demo, judge, study):
    batch = judge_batch_launch(study=study, judge=judge)
    _admin(client)
    client.post(reverse("judging:batch_cancel", args=[batch.pk]))
    assert batch.tasks.get().status == JudgeTaskStatus.CANCELLED
    assert judge_task_run(task_id=batch.tasks.get().pk) == "inactive"


def test_bad_input_on_the_judges_page_is_refused_clearly(client, demo, judge, llm_stub):
    _admin(client)
    judges = Judge.objects.count()
    base = {
        "form": "judge",
        "judge-endpoint": judge.endpoint.pk,
        "judge-prompt_version": "cgpst-judge-v1",
        "judge-temperature": "0",
        "judge-samples": "1",
    }
    for data, message in (
        ({**base, "judge-name": "stub judge"}, "A judge named stub judge exists already."),
        ({**base, "judge-name": "x", "judge-temperature": "hot"}, "Enter a number."),
        ({**base, "judge-name": "x", "judge-samples": "11"}, "less than or equal to 10"),
        ({**base, "judge-name": "x", "judge-prompt_version": "v0"}, "Select a valid choice."),
    ):
        reply = client.post(reverse("judging:home"), data)
        assert reply.status_code == 200 and message in reply.content.decode(), message
    assert Judge.objects.count() == judges
    reply = client.post(
        reverse("judging:home"), {"form": "batch", "batch-study": "nope", "batch-judge": judge.pk}
    )
    assert reply.status_code == 200 and not JudgeBatch.objects.exists()
    assert client.get(reverse("judging:batch_detail", args=[999])).status_code == 404


def test_the_batch_page_gives_the_batch_s_real_time_and_cost(client, demo, judge, study, llm_stub):
    """Worker time and wall time are the tasks' own (first start to last end), not the
    time since the batch was created."""
    batch = judge_batch_launch(study=study, judge=judge)
    assert judge_task_run(task_id=batch.tasks.get().pk) == "succeeded"
    start = timezone.now() - timedelta(minutes=30)
    batch.tasks.update(started_at=start, finished_at=start + timedelta(seconds=12.5), active_seconds=3.4)
    type(batch).objects.filter(pk=batch.pk).update(created_at=start - timedelta(hours=1))
    _admin(client)
    html = client.get(reverse("judging:batch_detail", args=[batch.pk])).content.decode()
    assert "3.4 s of worker time" in html and "12.5 s from the first start to the last end" in html
    assert "1 provider calls" in html
