"""Issue 25: the trainee's feedback item by item against the reference sheets, with the
rubric's text of both levels, differences marked, in English and Chinese."""

import html
import re

import pytest
from django.conf import settings

from scoring.models import Assignment, ScoreSheet, SheetLevel
from scoring.selectors import sheets_entries_get
from scoring.services.sheets import sheet_apply_changes, sheet_open, sheet_submit
from studies.rubric import load_rubric
from tests.factories import SHEET_TEXTS, rater, reference_changes
from training.services.training_set import training_enroll

pytestmark = pytest.mark.django_db


def _row(page: str, item: str) -> str:
    """The table row of one item (``1.3``: Step 1, item 3)."""
    match = re.search(rf'<tr[^>]*data-item="{re.escape(item)}"[^>]*>.*?</tr>', page, re.S)
    assert match, f"no row for item {item}"
    return match.group(0)


def _agreed_item(gold, rubric):
    """A Step-1 item both reference sheets accepted with the same Elaboration."""
    entries = sheets_entries_get(sheets=list(gold.reference_sheets.order_by("pk")), rubric=rubric)
    first, second = (entries[pk] for pk in sorted(entries))
    for pos, (a, b) in enumerate(zip(first.ideas[1], second.ideas[1], strict=True), start=1):
        if a.is_yes and b.is_yes and a.classification == b.classification and a.elaboration == b.elaboration:
            return pos, a
    raise AssertionError("the demo's reference sheets agree on no Step-1 item")


def _trainee_submits(gold, changes):
    trainee = rater("trainee", "H09")
    training_enroll(rater=trainee, study=gold.study)
    assignment = Assignment.objects.get(rater=trainee, role="training")
    sheet = sheet_open(assignment=assignment, actor=trainee)
    saved = sheet_apply_changes(sheet_id=sheet.pk, actor=trainee, changes=changes, expected_version=0)
    sheet_submit(sheet_id=sheet.pk, actor=trainee, expected_version=saved.version)
    return trainee, assignment


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_feedback_shows_each_item_beside_the_reference_with_both_level_texts(client, gold, lang):
    rubric = load_rubric()
    pos, agreed = _agreed_item(gold, rubric)
    mine = 0 if agreed.elaboration else 2  # another level than the reference's
    changes = [
        (p, mine if p == f"items.1.{pos}.elaboration" else v)
        for p, v in [*reference_changes(3), *SHEET_TEXTS]
    ]
    trainee, assignment = _trainee_submits(gold, changes)
    client.force_login(trainee)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    reply = client.get(f"/training/{assignment.blind_code}/feedback/")
    assert reply.status_code == 200
    page = html.unescape(reply.content.decode())
    section = page[page.index('id="training-items"') :]
    zh = lang.startswith("zh")
    # columns: the trainee's entry, then each reference sheet, unnamed
    for label in ("您的", "参考 1", "参考 2") if zh else ("Yours", "Reference 1", "Reference 2"):
        assert f'<th scope="col">{label}</th>' in section
    assert ("逐项对照参考" if zh else "Item by item against the reference") in page
    # the item the trainee scored otherwise: marked, with the level texts of both levels
    row = _row(section, f"1.{pos}")
    assert 'data-differs="1"' in row and "≠" in row
    spec = next(s for s in rubric.step(1).item_scores if s.key == "elaboration")
    texts = {lv.score: lv.text(lang) for lv in spec.levels}
    assert texts[mine] and texts[agreed.elaboration] and texts[mine] != texts[agreed.elaboration]
    assert texts[mine] in row and texts[agreed.elaboration] in row
    # every item of Steps 1, 3 and 4, the Step-2 texts and the Step-5/6 dimensions are there
    for step in (1, 3):
        for n in range(1, rubric.step(step).item_count + 1):
            _row(section, f"{step}.{n}")
    for n in range(1, rubric.step(4).item_count + 1):
        _row(section, f"4.{n}")
    for step in rubric.steps:
        for t in step.texts:
            assert t.label.text(lang) in section
        for d in step.scored_dimensions:
            assert d.label.text(lang) in section


def test_an_item_scored_as_the_references_did_is_not_marked(client, gold):
    """The H02 sheet itself: rows where H01 agrees are not marked; rows where they differ are."""
    rubric = load_rubric()
    pos, _agreed = _agreed_item(gold, rubric)
    trainee, assignment = _trainee_submits(gold, [*reference_changes(4), *SHEET_TEXTS])
    client.force_login(trainee)
    page = html.unescape(client.get(f"/training/{assignment.blind_code}/feedback/").content.decode())
    section = page[page.index('id="training-items"') :]
    row = _row(section, f"1.{pos}")
    assert 'data-differs="0"' in row and "≠" not in row
    entries = sheets_entries_get(sheets=list(gold.reference_sheets.order_by("pk")), rubric=rubric)
    first, second = (entries[pk] for pk in sorted(entries))
    differing = [
        n
        for n, (a, b) in enumerate(zip(first.ideas[1], second.ideas[1], strict=True), start=1)
        if (a.classification, a.elaboration, a.originality)
        != (b.classification, b.elaboration, b.originality)
    ]
    for n in differing:
        assert 'data-differs="1"' in _row(section, f"1.{n}")


def test_a_reference_scored_dimension_by_dimension_gives_no_empty_item_columns(client, gold):
    """Gold made from sheets imported in the study's Excel layout (dimension level, no items):
    the feedback compares totals and dimensions and says why there is no item comparison,
    instead of reference columns left empty (hostile pass 21)."""
    ScoreSheet.objects.filter(pk__in=gold.reference_sheets.all()).update(level=SheetLevel.DIMENSIONS)
    trainee, assignment = _trainee_submits(gold, [*reference_changes(3), *SHEET_TEXTS])
    client.force_login(trainee)
    page = html.unescape(client.get(f"/training/{assignment.blind_code}/feedback/").content.decode())
    section = page[page.index('id="training-items"') :]
    assert 'id="training-items-none"' in section and "it has no items to compare" in section
    assert "data-item=" not in section and "Reference 1" not in section
    assert 'id="training-dimensions"' in page  # the dimensions are still compared


def _comment_on_an_item(sheet: ScoreSheet, step: int, text: str) -> int:
    """Give the sheet's first item of ``step`` a comment (as if the rater had written it), in its
    rows and in its rows' copy; returns the item's position."""
    rows = sheet.entry_rows
    if rows is None:
        item = sheet.items.filter(step=step).order_by("position").first()
        item.comment = text
        item.save(update_fields=["comment"])
        return item.position
    row = min((r for r in rows["items"] if r["step"] == step), key=lambda r: r["position"])
    row["comment"] = text
    ScoreSheet.objects.filter(pk=sheet.pk).update(entry_rows=rows)
    return row["position"]


def test_reference_comments_that_name_a_model_or_a_person_are_withheld(client, gold):
    """Hostile pass 24 (A7): the reference sheets' comments reached trainees word for word, so a
    comment that signed itself or guessed the model broke the blind. Such a comment is replaced by a
    note; an ordinary one is shown as written."""
    source = gold.source
    model_name = source.model.name
    first, second = gold.reference_sheets.order_by("pk")
    author = first.assignment.rater
    ScoreSheet.objects.filter(pk=first.pk).update(
        comments={"2": f"Reads like {model_name} to me.", "5": "Clear and complete statement of the plan."}
    )
    ScoreSheet.objects.filter(pk=second.pk).update(comments={"6": f"Agreed with {author.username} on this."})
    criterion = _comment_on_an_item(ScoreSheet.objects.get(pk=second.pk), 4, f"-- {author.username}")
    idea = _comment_on_an_item(ScoreSheet.objects.get(pk=first.pk), 1, "An idea worth keeping.")
    trainee, assignment = _trainee_submits(gold, [*reference_changes(3), *SHEET_TEXTS])
    client.force_login(trainee)
    page = html.unescape(client.get(f"/training/{assignment.blind_code}/feedback/").content.decode())
    section = page[page.index('id="training-items"') :]
    assert model_name not in page and author.username not in section
    withheld = "A comment of the reference is withheld here"
    assert section.count(withheld) == 3, section.count(withheld)
    assert withheld in _row(section, f"4.{criterion}")
    assert "Clear and complete statement of the plan." in section
    assert "An idea worth keeping." in _row(section, f"1.{idea}")
