"""Double-blind: a rater crawls everything they can reach and finds nothing that
identifies the model, the condition/strategy, the research ID or the other rater."""

import io
import json
import re
import zipfile
from collections import deque
from urllib.parse import urljoin, urlsplit

import pytest
from django.contrib.auth import get_user_model

from demo.templates_seed import demo_templates_seed
from judging.services.judges import judge_create
from judging.services.sheets import judge_sheet_store
from scoring.models import Assignment
from scoring.services.sheets import sheet_apply_changes, sheet_open
from studies.models import Condition, ModelEndpoint, Response, Scenario, Strategy
from studies.services.responses import response_create
from studies.services.review import response_release, response_text_redact
from tests.factories import SHEET_TEXTS, code_for, own_sheet_id, reference_changes

SECRET_COMMENT = "R2-PRIVATE-COMMENT-7781"
SECRET_KVP = "R2-PRIVATE-KVP-5531"
JUDGE_NAME = "Crawl-Judge-4417"
JUDGE_SECRET = "JUDGE-PRIVATE-KVP-9902"
REDACTED_ROLE = "Environmentalist"
HOSTILE = '<script>alert("pwned")</script><img src=x onerror=alert(1)>'

ATTR_URL = re.compile(
    r"""(?:href|src|action|hx-get|hx-post|hx-put|hx-delete|data-url)\s*=\s*["']([^"']+)["']"""
)
JSON_URL = re.compile(r'"\w*_?url"\s*:\s*"([^"]+)"')
CELL_ADDRESS = re.compile(r'\s(?:r|ref|sqref)="[^"]*"|<(f|formula1|formula2)>[^<]*</\1>')
CSRF = re.compile(r'(csrfmiddlewaretoken" value="|"X-CSRFToken": ")[A-Za-z0-9]+')


@pytest.fixture
def blind_world(demo):
    study = demo.study
    fs10 = Scenario.objects.get(code="FS10", study__name="CGPST demo")
    a05 = Response.objects.get(research_id="A05_FS10")
    answers = [a05.answer(n) for n in range(1, 7)]
    answers[0] = "1. " + HOSTILE + "\n" + answers[0]
    b05 = response_create(study=study, scenario=fs10, model=ModelEndpoint.objects.get(model_number="05"),
                          condition=Condition.objects.get(letter="B"), answers=answers, source="imported")  # fmt: skip
    e07 = response_create(study=study, scenario=fs10, model=ModelEndpoint.objects.get(model_number="07"),
                          condition=Condition.objects.get(letter="E"), answers=answers, source="imported")  # fmt: skip
    users = {u.username: u for u in get_user_model().objects.all()}
    # a response that named its role and model, redacted on the held responses page, released
    named = list(answers)
    named[1] = f"As the {REDACTED_ROLE}, I frame it.\n[Reply · Step 2 · kimi-k2]\n" + named[1]
    d05 = response_create(study=study, scenario=fs10, model=ModelEndpoint.objects.get(model_number="05"),
                          condition=Condition.objects.get(letter="D"), answers=named, source="imported")  # fmt: skip
    assert d05.held
    response_text_redact(response_id=d05.pk, actor=users["admin"])
    response_release(response_id=d05.pk, actor=users["admin"])
    Assignment.objects.create(rater=users["rater1"], response=d05)
    Assignment.objects.create(rater=users["rater1"], response=b05, role="calibration")
    Assignment.objects.create(rater=users["rater2"], response=e07)
    # the other rater's scores and texts on the shared response
    other = sheet_open(
        assignment=Assignment.objects.get(rater=users["rater2"], response=a05), actor=users["rater2"]
    )
    sheet_apply_changes(sheet_id=other.pk, actor=users["rater2"], expected_version=0,
                        changes=[("comments.2", SECRET_COMMENT), ("texts.kvp", SECRET_KVP), ("dims.s2.focus", 9)])  # fmt: skip
    # an LLM judge's submitted sheets on the rater's own responses: never reachable
    judge = judge_create(name=JUDGE_NAME, endpoint=ModelEndpoint.objects.get(name="stub"))
    for response in (a05, b05):
        values = dict(
            [*reference_changes(3), *SHEET_TEXTS, ("texts.kvp", JUDGE_SECRET), ("comments.2", JUDGE_SECRET)]
        )
        judge_sheet_store(judge=judge, response=response, values=values, note=f"LLM judge {JUDGE_NAME}")
    # a test-retest probe of rater1's own A05_FS10, served again under a new code (beyond the study)
    first = Assignment.objects.get(rater=users["rater1"], response=a05)
    probe = Assignment.all_objects.create(rater=users["rater1"], response=a05, group=first.group,
                                          role="retest", retest_of=first)  # fmt: skip
    return {"own": [a05, b05, d05], "other_only": [e07], "judge": judge, "probe": probe, "first": first}


def codes_not_mine(me: str) -> list[str]:
    """Every blind code the rater ``me`` must never see: the codes the other raters, the
    calibrator and the LLM judge see for the same responses, and each response's own code."""
    codes = [a.blind_code for a in Assignment.all_objects.exclude(rater__username=me)]
    codes += [r.blind_code for r in Response.objects.all()]
    return [r"(?<![A-Z0-9])" + re.escape(code) + r"(?![A-Z0-9])" for code in codes]


def forbidden_patterns(me: str = "rater1"):
    patterns = codes_not_mine(me)
    for r in Response.objects.all():
        patterns.append(re.escape(r.research_id))
        # "A05" style prefixes, standing alone: not the same letters inside a blind code
        prefix = re.escape(r.research_id.split("_")[0])
        patterns.append(r"(?<![A-Z0-9])" + prefix + r"(?![A-Z0-9])")
    for m in ModelEndpoint.objects.all():
        for name in {m.name, m.model_name} - {""}:
            patterns.append(r"(?i)(?<![A-Za-z0-9])" + re.escape(name) + r"(?![A-Za-z0-9])")
    for c in Condition.objects.all():
        patterns.append(re.escape(c.name))
        patterns.append(r"(?i)condition\s*" + c.letter + r"\b")
    for label in Strategy.labels:
        patterns.append(re.escape(str(label)))
    # "kimi" as a word ("kimi-k2", "Kimi2"), not four letters inside a random token of the page (a
    # draft key, a nonce: "...aKiMi..." failed a crawl once by chance)
    patterns += [
        r"TeamLLM",
        r"(?i)belbin",
        r"(?i)\bablation\b",
        r"(?i)(?<![A-Za-z0-9])kimi(?![a-z])",
        r"(?i)research[ _]id",
    ]
    patterns.append(r"(?i)" + REDACTED_ROLE)  # the redacted text's role, in none of its versions
    patterns += [r"rater2", r"\bH02\b", re.escape(SECRET_COMMENT), re.escape(SECRET_KVP)]
    patterns += [r"(?i)\bre-?test", r"(?i)\bprobe"]  # a test-retest probe is never named as one
    # the LLM judge: its name, user, rater ID and sheet never reach a human rater
    patterns += [
        re.escape(JUDGE_NAME),
        re.escape(JUDGE_SECRET),
        r"(?i)judge-crawl",
        r"\bJ01\b",
        r"(?i)llm judge",
    ]
    return [re.compile(p) for p in patterns]


def leaks(text, patterns):
    text = CSRF.sub(r"\1", text)
    return sorted({p.pattern for p in patterns if p.search(text)})


def crawl(client, patterns):
    """Breadth-first over every same-site URL found in pages, scripts and JSON."""
    seen, queue, visited = set(), deque(["/"]), []
    crawl.texts = []
    downloads: list[str] = []
    post_targets = set()
    while queue:
        url = queue.popleft()
        if url in seen:
            continue
        seen.add(url)
        reply = client.get(url, follow=True)
        raw = b"".join(reply.streaming_content) if reply.streaming else reply.content
        body = raw.decode("utf-8", "replace")
        visited.append((url, reply.status_code))
        crawl.texts.append(body)
        headers = " ".join(f"{k}: {v}" for k, v in reply.headers.items())
        assert not leaks(headers, patterns), (url, leaks(headers, patterns))  # file names too
        if raw[:2] != b"PK":  # (compressed bytes hold "J01" by chance: a zip is read decompressed)
            assert not leaks(body, patterns), (url, leaks(body, patterns))
        else:  # a download (xlsx, zip): every part of it, decompressed
            with zipfile.ZipFile(io.BytesIO(raw)) as archive:
                for name in archive.namelist():
                    # cell addresses ("B90", "A1:B90") are no research IDs: what a cell holds is checked
                    part = CELL_ADDRESS.sub("", archive.read(name).decode("utf-8", "replace"))
                    assert not leaks(name + part, patterns), (url, name, leaks(name + part, patterns))
            downloads.append(url)
        assert "<script>alert" not in body and "<img src=x" not in body, url
        for found in ATTR_URL.findall(body) + JSON_URL.findall(body):
            found = found.replace("&amp;", "&")
            target = urlsplit(urljoin(url, found))
            if target.netloc and target.netloc != "testserver":
                continue
            path = target.path + (f"?{target.query}" if target.query else "")
            if path.startswith("/accounts/logout/"):
                continue  # would end the crawl; checked at the end
            if path.endswith(("/save/", "/submit/")) or path.startswith("/i18n/"):
                post_targets.add(path)
            elif path not in seen:
                queue.append(path)
    crawl.downloads = downloads
    return visited, post_targets


@pytest.mark.django_db
def test_rater_crawl_reaches_nothing_identifying(client, blind_world):
    client.login(username="rater1", password="demo-pass-2026")
    patterns = forbidden_patterns()
    visited, post_targets = crawl(client, patterns)
    urls = {u for u, _ in visited}
    for response in blind_world["own"]:
        assert f"/scoring/{code_for('rater1', response)}/" in urls  # the crawl did reach the sheets
    assert any("[已隐去], I frame it." in text for text in crawl.texts)  # and the redacted text
    # the probe is in the queue as any response; its page names neither its first code nor the role
    probe, first = blind_world["probe"], blind_world["first"]
    assert f"/scoring/{probe.blind_code}/" in urls
    page = client.get(f"/scoring/{probe.blind_code}/").content.decode()
    assert first.blind_code not in page and probe.blind_code in page
    assert any(u.startswith("/static/js/") for u in urls)
    assert any(
        u.startswith("/scoring/workbooks/") for u in crawl.downloads
    )  # the offline workbook was opened

    # the JSON endpoints: a save, a refused value, a stale version, an incomplete submit
    for response in blind_world["own"]:
        code = code_for("rater1", response)
        assert f"/scoring/{code}/save/" in post_targets and f"/scoring/{code}/submit/" in post_targets
        own = own_sheet_id(client, code)
        replies = [
            client.post(f"/scoring/{code}/save/", content_type="application/json",
                        data=json.dumps({"sheet": own, "batch_id": "c1", "expected_version": 0, "changes": [["dims.s2.focus", 3]]})),
            client.post(f"/scoring/{code}/save/", content_type="application/json",
                        data=json.dumps({"sheet": own, "batch_id": "c2", "expected_version": 1, "changes": [["dims.s2.focus", 99]]})),
            client.post(f"/scoring/{code}/save/", content_type="application/json",
                        data=json.dumps({"sheet": own, "batch_id": "c3", "expected_version": 0, "changes": [["dims.s2.focus", 4]]})),
            client.post(f"/scoring/{code}/submit/", content_type="application/json",
                        data=json.dumps({"sheet": own, "expected_version": 1})),
        ]  # fmt: skip
        assert [r.status_code for r in replies] == [200, 422, 409, 400]
        for r in replies:
            assert not leaks(r.content.decode(), patterns)
    # the other rater's code (of a response only they score, and of the shared one): a plain
    # 404 that says nothing; so is the response's own code
    a05 = blind_world["own"][0]
    for code in (code_for("rater2", blind_world["other_only"][0]), code_for("rater2", a05), a05.blind_code):
        typed = [p for p in patterns if code not in p.pattern]  # the 404 may repeat the code typed
        reply = client.get(f"/scoring/{code}/")
        assert reply.status_code == 404
        assert not leaks(reply.content.decode(), typed)
        reply = client.post(f"/scoring/{code}/save/", content_type="application/json", data="{}")
        assert reply.status_code == 404 and not leaks(reply.content.decode(), typed)

    # the same in Chinese
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/scoring/"})
    zh_visited, _ = crawl(client, patterns)
    assert len(zh_visited) >= len(blind_world["own"]) + 2
    reply = client.post("/accounts/logout/", follow=True)
    assert not leaks(reply.content.decode(), patterns)


@pytest.mark.django_db
def test_calibrator_crawl_after_submitting_reaches_nothing_identifying(client, blind_world):
    """After the calibration sheet is submitted the comparison opens; it still names no one."""
    from scoring.services.sheets import sheet_submit

    b05 = blind_world["own"][1]
    rater1 = get_user_model().objects.get(username="rater1")
    calibration = Assignment.objects.get(rater=rater1, response=b05, role="calibration")
    sheet = sheet_open(assignment=calibration, actor=rater1)
    saved = sheet_apply_changes(sheet_id=sheet.pk, actor=rater1, expected_version=0,
                                changes=[*reference_changes(4), *SHEET_TEXTS])  # fmt: skip
    sheet_submit(sheet_id=sheet.pk, actor=rater1, expected_version=saved.version)
    client.login(username="rater1", password="demo-pass-2026")
    visited, _ = crawl(client, forbidden_patterns())
    assert (f"/calibration/{calibration.blind_code}/", 200) in visited


@pytest.mark.django_db
def test_trainee_crawl_of_training_sheets_and_feedback_reaches_nothing_identifying(client, blind_world):
    """The training pages show the reference values, never the model, strategy, research ID
    or whose sheets made the reference (another rater)."""
    from studies.rubric import load_rubric
    from tests.factories import make_response, mirrored_changes, rater, reference_changes, sheet_submitted
    from training.services.training_set import training_enroll, training_response_add

    study = blind_world["own"][0].study
    experts = [rater("expert-one", "H05"), rater("expert-two", "H06")]
    golds = []
    for model, letter in (("03", "C"), ("04", "D")):
        source = make_response(study=study, model=ModelEndpoint.objects.get(model_number=model),
                               condition=Condition.objects.get(letter=letter), scenario=Scenario.objects.get(code="FS10", study__name="CGPST demo"))  # fmt: skip
        for expert, index in zip(experts, (3, 4), strict=True):
            sheet_submitted(expert, source, reference_changes(index))
        golds.append(training_response_add(study=study, research_id=source.research_id))
    rater1 = get_user_model().objects.get(username="rater1")
    training_enroll(rater=rater1, study=study)
    submitted = Assignment.objects.get(rater=rater1, response=golds[0].response)
    sheet_submitted(
        rater1, golds[0].response, mirrored_changes(reference_changes(3), load_rubric()), assignment=submitted
    )

    client.login(username="rater1", password="demo-pass-2026")
    patterns = forbidden_patterns() + [
        re.compile(p) for p in (r"expert-one", r"expert-two", r"\bH05\b", r"\bH06\b")
    ]
    visited, post_targets = crawl(client, patterns)
    reached = dict(visited)
    feedback, sheet = code_for(rater1, golds[0].response), code_for(rater1, golds[1].response)
    assert reached["/training/"] == 200
    assert reached[f"/training/{feedback}/feedback/"] == 200
    assert reached[f"/training/{sheet}/"] == 200
    assert f"/training/{sheet}/save/" in post_targets and f"/training/{sheet}/submit/" in post_targets
    page = client.get(f"/training/{feedback}/feedback/").content.decode()
    assert "PCC with the reference" in page and "Below the threshold" in page
    # the live page of a training code and the training page of a live code: refused, and mute
    for url in (f"/scoring/{sheet}/", f"/training/{code_for(rater1, blind_world['own'][0])}/"):
        reply = client.get(url)
        assert reply.status_code in (404, 409) and not leaks(reply.content.decode(), patterns)


@pytest.mark.django_db
def test_two_raters_of_one_response_see_different_codes_and_never_each_others(client, blind_world):
    """Issue 25: the raters of one response cannot compare notes by code. Each sees their own
    code, reaches their sheet by it, and no page, script, JSON or download either can reach
    holds the other's code (or the response's own)."""
    a05 = blind_world["own"][0]
    mine = {name: code_for(name, a05) for name in ("rater1", "rater2")}
    assert len({*mine.values(), a05.blind_code}) == 3
    for name, other in (("rater1", "rater2"), ("rater2", "rater1")):
        client.login(username=name, password="demo-pass-2026")
        patterns = [re.compile(p) for p in codes_not_mine(name)]
        visited, _ = crawl(client, patterns)  # asserts that no reply holds any of them
        assert (f"/scoring/{mine[name]}/", 200) in visited
        assert not any(mine[other] in text for text in crawl.texts)
        assert any(mine[name] in text for text in crawl.texts)
        assert client.get(f"/scoring/{mine[other]}/").status_code == 404
        client.logout()


@pytest.mark.django_db
def test_rater_crawl_of_text_and_pair_sheets_reaches_nothing_identifying(client, demo):
    """The other templates' sheets (seed_demo's): one text, and a pair's text A and text B, name
    neither system, nor the source responses' research IDs or codes."""
    studies = demo_templates_seed()
    client.login(username="rater1", password="demo-pass-2026")
    patterns = forbidden_patterns()
    visited, _ = crawl(client, patterns)
    urls = {u for u, _ in visited}
    reached = Assignment.objects.filter(rater__username="rater1", response__study__name__in=studies)
    assert reached.count() == 6  # four texts and two pairs
    for assignment in reached:
        assert f"/scoring/{assignment.blind_code}/" in urls
    pair = Response.objects.filter(study__name=studies[1]).select_related("pair__left", "pair__right").first()
    page = client.get(f"/scoring/{code_for('rater1', pair)}/").content.decode()
    assert pair.pair.left.step1.split("\n")[0] in page and pair.pair.right.step1.split("\n")[0] in page
