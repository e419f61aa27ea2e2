"""The accessibility gate on the staff pages: axe-core on every page an admin or a
researcher opens from the menu (and a study's, a condition's and an endpoint's own page),
light and dark, English and Chinese, 1366 and 390 px wide. Any serious or critical
violation fails; so does a page wider than the window."""

import pytest

from judging.models import JudgeBatch, JudgeBatchStatus
from judging.services.judges import judge_for_endpoint
from judging.services.runs import judge_batch_launch
from studies.models import Condition, ModelEndpoint, Study
from tests.a11y import axe_violations
from tests.browser import login
from tests.e2e.test_accessibility_browser import STICKING_OUT, WIDER
from tests.factories import stub_endpoint
from tests.workers import wait_for
from training.services.rubric import rubric_revise

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ADMIN_PAGES = (
    "/manage/",
    "/manage/studies/",
    "/manage/studies/{study}/",
    "/manage/studies/{study}/settings/",
    "/manage/studies/{study}/catalogue/",
    "/manage/studies/{study}/responses/",
    "/manage/studies/{study}/scores/import/",
    "/manage/studies/{study}/invite/",
    "/manage/endpoints/",
    "/manage/endpoints/{endpoint}/",
    "/manage/conditions/",
    "/manage/conditions/{condition}/",
    "/manage/generation/",
    "/manage/judges/",
    "/manage/training/",
    "/manage/training/rubric/?study={study}",
    "/manage/training/rubric/preview/?study={study}&version=likert-hhh-v1",
    "/manage/assignments/",
    "/manage/workload/",
    "/manage/flags/",
    "/manage/workbooks/",
    "/manage/accounts/",
    "/manage/responses/held/",
    "/status/",
)
RESEARCHER_PAGES = (
    "/research/",
    "/research/agreement/",
    "/research/judge/?study={study}&judge={judge}",
    "/research/judge/plan/?study={study}&judge={judge}&budget=5",
    "/research/drift/",
    "/api/tokens/",
)
# each language, scheme and width once, in two passes rather than all eight
LOOKS = [("en", "dark", 390), ("zh-hans", "light", 1366)]


def _problems(page, name: str) -> list[str]:
    """What axe and the width check find on the page as loaded (``goto`` waits for its load event:
    the deferred scripts have run)."""
    found = [f"{name}: {line}" for line in axe_violations(page)]
    overflow = page.evaluate(WIDER)
    if overflow > 1:
        found.append(f"{name}: {overflow} px wider than the window: {page.evaluate(STICKING_OUT)}")
    return found


@pytest.mark.parametrize(("lang", "scheme", "width"), LOOKS)
def test_staff_pages_pass_axe(live_server, demo, browser, llm_stub, celery_worker, lang, scheme, width):
    # the judge's pages filled: its batch run by the worker (its fixture lets the worker finish what
    # the batch leaves in the outbox before the tables are emptied)
    judge = judge_for_endpoint(endpoint=stub_endpoint(llm_stub))
    batch = judge_batch_launch(study=Study.objects.get(name="CGPST demo"), judge=judge)
    finished = JudgeBatchStatus.FINISHED
    wait_for(lambda: JudgeBatch.objects.get(pk=batch.pk).status == finished, worker=celery_worker)
    assert {t.status for t in batch.tasks.all()} == {"succeeded"}
    # the rubric page with its table of the study's versions (wide: it must scroll in its card)
    rubric_revise(
        study=Study.objects.get(name="CGPST demo"), changes={"step|1|en": "Our wording"}, actor=None
    )
    ids = {
        "judge": judge.pk,
        "study": Study.objects.get(name="CGPST demo").pk,
        "endpoint": ModelEndpoint.objects.order_by("pk").first().pk,
        "condition": Condition.objects.order_by("pk").first().pk,
    }
    pages = (("admin", ADMIN_PAGES), ("researcher", RESEARCHER_PAGES))
    problems = pages_problems(browser, live_server.url, (lang, scheme, width), pages, ids)
    assert not problems, "\n".join(problems)


def pages_problems(browser, base: str, look: tuple[str, str, int], pages, ids: dict[str, int]) -> list[str]:
    """What axe and the width check find on each user's pages (``pages``: (user, paths) pairs, the
    paths formatted with ``ids``) in one look; each page must answer 200."""
    lang, scheme, width = look
    problems: list[str] = []
    for user, paths in pages:
        context = browser.new_context(
            viewport={"width": width, "height": 844 if width < 800 else 768}, color_scheme=scheme
        )
        context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
        page = context.new_page()
        login(page, base, user)
        for path in paths:
            url = base + path.format(**ids)
            reply = page.goto(url)
            assert reply is not None and reply.status == 200, (url, reply and reply.status)
            problems += _problems(page, f"{path.format(**ids)} [{lang} {scheme} {width}]")
        context.close()
    return problems
