"""Limits on what a client may claim when it saves (issue 22, finding 7): a ceiling on
autosave batches per account per second (429 with Retry-After, nothing written), and a
batch id re-sent with other changes refused (409) instead of answered "replayed"."""

import json
import time

import pytest

from scoring.models import ScoreSheet, SheetEvent
from studies.models import Response
from studies.rubric import load_rubric
from teamllm_web.cache import redis_cache
from tests.caches import in_one_clock_second
from tests.factories import assign, code_for, make_response, own_sheet_id
from tests.scoring.test_sheet_statement_counts import whole_sheet

pytestmark = pytest.mark.django_db

CEILING = 5


def _save(client, code, sheet_id, changes, version, batch_id):
    body = {"sheet": sheet_id, "batch_id": batch_id, "expected_version": version, "changes": changes}
    return client.post(f"/scoring/{code}/save/", data=json.dumps(body), content_type="application/json")


@pytest.fixture
def opened(demo, client, settings, fresh_rate_counts):
    settings.SHEET_SAVES_PER_SECOND = CEILING
    response = Response.objects.get(research_id="A05_FS10")
    client.login(username="rater1", password="demo-pass-2026")
    sheet_id = own_sheet_id(client, code_for("rater1", response))
    sheet = ScoreSheet.objects.get(pk=sheet_id)
    return code_for("rater1", response), sheet


def _many_changes(n: int) -> list[list]:
    """Every text field of the sheet (comments and rater texts) set to a value of round n:
    each one a real change, so each applied batch writes one event per field."""
    fields = [
        path
        for path, _value in whole_sheet(load_rubric())
        if path.endswith(".comment") or path.startswith(("comments.", "texts."))
    ]
    return [[path, f"round {n} {path}"] for path in fields]


def test_forty_rapid_saves_cannot_write_more_than_the_ceiling_allows(client, opened):
    code, sheet = opened
    version = sheet.version
    ok = refused = 0
    last_refused = None
    started = time.monotonic()
    for n in range(40):
        changes = _many_changes(n)
        reply = _save(client, code, sheet.pk, changes, version, batch_id=f"flood-{n}")
        if reply.status_code == 200:
            ok += 1
            version = reply.json()["version"]
            continue
        assert reply.status_code == 429, reply.content
        assert reply.json()["error"] == "throttled" and int(reply["Retry-After"]) >= 1
        refused += 1
        last_refused = (changes, f"flood-{n}")
    seconds = time.monotonic() - started
    per_batch = len(_many_changes(0))
    events = list(SheetEvent.objects.filter(sheet=sheet, kind="change").values_list("changes", flat=True))
    # at most the ceiling's worth of batches in each clock second the flood touched
    assert ok <= CEILING * (int(seconds) + 2) and refused >= 40 - ok > 0
    assert len(events) == ok and all(len(changes) == per_batch for changes in events)
    saved = ScoreSheet.objects.get(pk=sheet.pk)
    assert saved.version == version == sheet.version + ok  # refused batches changed nothing
    # the page sends a refused batch again after Retry-After: then it is applied
    assert last_refused is not None
    time.sleep(1.1)
    changes, batch_id = last_refused
    again = _save(client, code, sheet.pk, changes, version, batch_id=batch_id)
    assert again.status_code == 200 and not again.json()["replayed"] and again.json()["changed"] == per_batch


def test_the_ceiling_is_per_account_so_nobody_uses_up_another_raters_saves(client, opened):
    code, sheet = opened
    client.logout()
    client.login(username="rater2", password="demo-pass-2026")
    # rater2 scores the same response (the pair), under a code of their own
    other_code = code_for("rater2", sheet.assignment.response)
    for n in range(3 * CEILING):  # naming rater1's sheet: refused, and counted for rater2 only
        reply = _save(client, other_code, sheet.pk, [["comments.1", f"x{n}"]], 0, batch_id=f"o{n}")
        assert reply.status_code in (409, 429)
    client.logout()
    client.login(username="rater1", password="demo-pass-2026")
    reply = _save(client, code, sheet.pk, [["comments.1", "mine"]], sheet.version, batch_id="mine")
    assert reply.status_code == 200, reply.content


def test_all_of_a_raters_sheets_share_one_ceiling(client, opened):
    """Saving on several sheets at once cannot multiply the ceiling (a hostile pass saved on
    seven sheets in parallel at seven times it)."""
    code, sheet = opened
    other = assign(sheet.assignment.rater, make_response(answers=[f"another answer {n}" for n in range(6)]))
    other_code = other.blind_code
    other_id = own_sheet_id(client, other_code)
    versions = {sheet.pk: sheet.version, other_id: ScoreSheet.objects.get(pk=other_id).version}
    attempts = iter(range(10))

    def ceiling_then_other_sheet() -> tuple[list[int], str]:
        """Saves up to the ceiling on the first sheet, then one on the other."""
        attempt = next(attempts)
        statuses = []
        for n in range(CEILING):
            reply = _save(
                client,
                code,
                sheet.pk,
                [["comments.1", f"{attempt} {n}"]],
                versions[sheet.pk],
                f"a{attempt}-{n}",
            )
            statuses.append(reply.status_code)
            versions[sheet.pk] = reply.json().get("version", versions[sheet.pk])
        refused = f"x{attempt}"
        reply = _save(
            client, other_code, other_id, [["comments.1", refused]], versions[other_id], f"b{attempt}"
        )
        statuses.append(reply.status_code)
        versions[other_id] = reply.json().get("version", versions[other_id])
        return statuses, refused

    statuses, refused = in_one_clock_second(ceiling_then_other_sheet)
    assert statuses == [200] * CEILING + [429]  # the other sheet's save waits for the next second
    assert ScoreSheet.objects.get(pk=other_id).comments.get("1") != refused


def test_a_batch_id_resent_with_other_changes_is_refused_and_the_same_batch_replayed(client, opened):
    code, sheet = opened
    first = _save(client, code, sheet.pk, [["comments.1", "first"]], sheet.version, batch_id="b-1")
    assert first.status_code == 200 and first.json()["changed"] == 1
    version = first.json()["version"]
    # the same batch again (a lost reply): answered from the current state, not applied twice
    replay = _save(client, code, sheet.pk, [["comments.1", "first"]], sheet.version, batch_id="b-1")
    assert replay.status_code == 200 and replay.json()["replayed"] and replay.json()["version"] == version
    # the same id with other changes: 409 with a message, and nothing of it is written
    reused = _save(client, code, sheet.pk, [["comments.1", "second"], ["comments.2", "x"]], version, "b-1")
    assert reused.status_code == 409
    assert reused.json()["error"] == "batch_reused" and "different changes" in reused.json()["message"]
    saved = ScoreSheet.objects.get(pk=sheet.pk)
    assert saved.version == version and saved.comments.get("1") == "first" and not saved.comments.get("2")
    assert SheetEvent.objects.filter(sheet=sheet, kind="change").count() == 1
    # under a new id the changes are saved
    fresh = _save(client, code, sheet.pk, [["comments.1", "second"]], version, batch_id="b-2")
    assert fresh.status_code == 200 and fresh.json()["changed"] == 1


def test_a_cache_that_is_away_never_stops_a_save(client, opened, settings):
    """The ceiling counts in Redis; with Redis away (django-redis ignores its errors) the
    saves go through, every one of them, rather than being refused."""
    code, sheet = opened
    settings.CACHES = {"default": redis_cache(url="redis://127.0.0.1:1/0", prefix="away", timeout=0.2)}
    version = sheet.version
    for n in range(3 * CEILING):
        reply = _save(client, code, sheet.pk, [["comments.1", f"away {n}"]], version, batch_id=f"away-{n}")
        assert reply.status_code == 200, reply.content
        version = reply.json()["version"]
    assert ScoreSheet.objects.get(pk=sheet.pk).comments["1"] == f"away {3 * CEILING - 1}"
