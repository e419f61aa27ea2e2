"""The reads of an autosave: the sheet found by rater and blind code (only the rater's own live
or calibration sheet; the training page saves its own), the sheets' entries (a draft's from its
copy of its rows; the item and dimension rows written at submit), the parsed paths (kept
per rubric version, errors never kept)."""

import json

import pytest
from django.utils import timezone, translation

from core.accounts.roles import ADMIN
from scoring.entries import EntryError, parse_path
from scoring.models import Assignment, DimensionScore, ItemScore, ScoreSheet
from scoring.selectors import _ITEM_SCORE_FIELDS, sheet_entries_get, sheets_entries_get
from scoring.services.sheets import (
    sheet_apply_changes,
    sheet_correct,
    sheet_open,
    sheet_reopen,
    sheet_submit,
)
from studies.rubric import load_rubric
from tests.factories import UserFactory, assign, make_response, maximal_changes, rater

pytestmark = pytest.mark.django_db


def _code(response) -> str:
    """The code of the one assignment each case's response has (mine, or the other rater's)."""
    return Assignment.all_objects.get(response=response).blind_code


@pytest.fixture
def sheets():
    """One rater's sheets of every kind, and another rater's."""
    me, other = rater("fast-me"), rater("fast-other")
    cases = {}
    for role in ("primary", "calibration", "training", "judge"):
        response = make_response()
        cases[role] = (response, sheet_open(assignment=assign(me, response, role=role)))
    archived = make_response()
    sheet = sheet_open(assignment=assign(me, archived))
    Assignment.all_objects.filter(pk=sheet.assignment_id).update(archived_at=timezone.now())
    cases["archived"] = (archived, sheet)
    theirs = make_response()
    cases["other rater's"] = (theirs, sheet_open(assignment=assign(other, theirs)))
    return me, cases


def _save(client, code: str, sheet_id: int, batch: str):
    body = {"sheet": sheet_id, "expected_version": 0, "batch_id": batch, "changes": [["dims.s2.focus", 2]]}
    return client.post(f"/scoring/{code}/save/", json.dumps(body), content_type="application/json")


def test_the_save_reaches_only_the_rater_s_own_live_and_calibration_sheets(sheets, client):
    me, cases = sheets
    client.force_login(me)
    statuses = {}
    for name, (response, sheet) in cases.items():
        statuses[name] = _save(
            client, _code(response), sheet.pk, f"b-{name}".replace(" ", "-").replace("'", "")
        ).status_code
        stored = sheet_entries_get(sheet=ScoreSheet.all_objects.get(pk=sheet.pk)).dimensions["s2.focus"]
        assert stored == (2 if statuses[name] == 200 else None), name
    assert statuses == {
        "primary": 200, "calibration": 200, "training": 404, "judge": 404, "archived": 404, "other rater's": 404,
    }  # fmt: skip
    # the rater's own code with another of their sheets (a page left open): refused, nothing written
    primary_code = _code(cases["primary"][0])
    calibration_sheet = cases["calibration"][1]
    refused = _save(client, primary_code, calibration_sheet.pk, "b-left-open")
    assert refused.status_code == 409 and refused.json()["error"] == "other_sheet"
    assert ScoreSheet.objects.get(pk=calibration_sheet.pk).version == 1  # its own save above only


def _stored_rows(sheet_ids):
    items = ItemScore.objects.filter(sheet_id__in=sheet_ids).values_list("sheet_id", *_ITEM_SCORE_FIELDS)
    dims = DimensionScore.objects.filter(sheet_id__in=sheet_ids).values_list("sheet_id", "dimension", "value")
    return sorted(items), sorted(dims)


def admin_user():
    return UserFactory(username="rows-admin", role=ADMIN)


def _submit(sheet, user):
    return sheet_submit(sheet_id=sheet.pk, actor=user, expected_version=None, require_texts=False)


def _assert_rows_are_entries(sheets, rubric):
    """Every item and dimension row of ``sheets`` holds what their entries hold."""
    entries = sheets_entries_get(sheets=sheets, rubric=rubric)
    items, dims = _stored_rows([s.pk for s in sheets])
    assert len(items) == len(sheets) * sum(step.item_count for step in rubric.steps if step.has_items)
    assert len(dims) == sum(len(entries[s.pk].dimensions) for s in sheets)
    for (
        sheet_id,
        step_no,
        position,
        category,
        invalid,
        elab,
        orig,
        written,
        relevance,
        others,
        comment,
    ) in items:
        step = rubric.step(step_no)
        if step.kind == "ideas":
            idea = entries[sheet_id].ideas[step_no][position - 1]
            assert (idea.category, idea.invalid, idea.elaboration, idea.originality, idea.comment) == (
                category, invalid, elab, orig, comment,
            )  # fmt: skip
        else:
            crit = entries[sheet_id].criteria[position - 1]
            assert (crit.correctly_written, crit.relevance, crit.other_scores, crit.comment) == (
                written, relevance, others, comment,
            )  # fmt: skip
    for sheet_id, key, value in dims:
        assert entries[sheet_id].dimensions[key] == value
    return entries


def test_a_draft_is_kept_on_its_sheet_and_its_rows_are_written_at_submit():
    rubric = load_rubric()
    user = rater("fast-rows")
    sheets = [sheet_open(assignment=assign(user, make_response())) for _ in range(3)]
    assert _stored_rows([s.pk for s in sheets]) == ([], [])  # a first open writes no rows
    for sheet in sheets:
        sheet_apply_changes(
            sheet_id=sheet.pk, actor=user, changes=maximal_changes(rubric), expected_version=0
        )
    sheet_apply_changes(
        sheet_id=sheets[1].pk,
        actor=user,
        changes=[
            ("items.1.2.classification", "invalid:duplicate"),
            ("items.1.2.comment", "it's 'quoted' 想法"),
        ],
        expected_version=1,
    )
    # drafts: the entries are on the sheet (durable, read back from the database), no rows yet
    drafts = [ScoreSheet.all_objects.get(pk=s.pk) for s in sheets]
    assert _stored_rows([s.pk for s in sheets]) == ([], [])
    assert (
        sheets_entries_get(sheets=drafts, rubric=rubric)[sheets[1].pk].ideas[1][1].comment
        == "it's 'quoted' 想法"
    )
    # submitted: every row holds the sheet's entries, for the readers of rows (research)
    submitted = [_submit(s, user) for s in sheets[:2]]
    entries = _assert_rows_are_entries(submitted, rubric)
    assert entries[sheets[1].pk].ideas[1][1].comment == "it's 'quoted' 想法"
    assert entries[sheets[1].pk].ideas[1][1].invalid == "duplicate"
    assert any(v is not None for v in entries[sheets[0].pk].dimensions.values())
    assert _stored_rows([sheets[2].pk]) == ([], [])  # the draft still has none


def test_a_correction_and_a_resubmit_after_a_reopen_rewrite_the_rows():
    rubric = load_rubric()
    user, admin = rater("rows-fix"), admin_user()
    sheet = sheet_open(assignment=assign(user, make_response()))
    sheet_apply_changes(sheet_id=sheet.pk, actor=user, changes=maximal_changes(rubric), expected_version=0)
    sheet = _submit(sheet, user)
    # a correction of a submitted sheet writes the rows it touched, at once
    sheet_correct(
        sheet_id=sheet.pk,
        actor=admin,
        changes=[("items.3.2.originality", 1), ("dims.s2.focus", 1)],
        reason="typo",
    )
    sheet = ScoreSheet.all_objects.get(pk=sheet.pk)
    assert ItemScore.objects.get(sheet=sheet, step=3, position=2).originality == 1
    assert DimensionScore.objects.get(sheet=sheet, dimension="s2.focus").value == 1
    _assert_rows_are_entries([sheet], rubric)
    # reopened: the rater's changes stay on the sheet until the next submit writes the rows
    sheet_reopen(sheet_id=sheet.pk, actor=admin, reason="look again")
    sheet = ScoreSheet.all_objects.get(pk=sheet.pk)
    sheet_apply_changes(
        sheet_id=sheet.pk, actor=user, changes=[("items.4.3.relevance", 1)], expected_version=sheet.version
    )
    assert ItemScore.objects.get(sheet=sheet, step=4, position=3).relevance == 3  # the last submit's
    sheet = _submit(ScoreSheet.all_objects.get(pk=sheet.pk), user)
    assert ItemScore.objects.get(sheet=sheet, step=4, position=3).relevance == 1
    _assert_rows_are_entries([sheet], rubric)


def test_a_parsed_path_is_the_same_as_a_fresh_parse_and_errors_are_never_kept():
    rubric = load_rubric()
    first = parse_path(rubric, "items.3.4.originality")
    assert parse_path(rubric, "items.3.4.originality") is first  # kept
    assert (first.kind, first.step, first.position, first.field) == ("items", 3, 4, "originality")
    assert parse_path(rubric, "dims.s2.focus").key == "s2.focus"
    messages = []
    for language in ("en", "zh-hans", "en"):
        with translation.override(language), pytest.raises(EntryError) as refused:
            parse_path(rubric, "items.3.99.originality")
        messages.append(refused.value.message)
    assert messages[0] == messages[2] != messages[1]  # each in the language of its request
    with pytest.raises(EntryError):
        parse_path(rubric, ["items", "1"])  # not text: refused, not a crash of the cache


def test_the_rows_copy_on_the_sheet_is_the_rows_and_a_sheet_without_one_reads_the_rows():
    rubric = load_rubric()
    user = rater("rows-copy")
    sheet = sheet_open(assignment=assign(user, make_response()))
    sheet_apply_changes(sheet_id=sheet.pk, actor=user, changes=maximal_changes(rubric), expected_version=0)
    _submit(sheet, user)  # the rows written
    sheet_reopen(sheet_id=sheet.pk, actor=admin_user(), reason="again")
    sheet = ScoreSheet.all_objects.get(pk=sheet.pk)
    from_copy = sheets_entries_get(sheets=[sheet], rubric=rubric)[sheet.pk]
    ScoreSheet.all_objects.filter(pk=sheet.pk).update(entry_rows=None)  # a sheet from before the copy
    bare = ScoreSheet.all_objects.get(pk=sheet.pk)
    assert sheets_entries_get(sheets=[bare], rubric=rubric)[sheet.pk] == from_copy
    # its next save reads the rows and writes the copy again, from them and the change
    sheet_apply_changes(
        sheet_id=sheet.pk, actor=user, changes=[("comments.1", "again")], expected_version=bare.version
    )
    saved = ScoreSheet.all_objects.get(pk=sheet.pk)
    assert saved.entry_rows is not None
    with_copy = sheets_entries_get(sheets=[saved], rubric=rubric)[sheet.pk]
    saved.entry_rows = None
    assert sheets_entries_get(sheets=[saved], rubric=rubric)[sheet.pk] == with_copy
    assert with_copy.comments[1] == "again"
