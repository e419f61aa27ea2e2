"""The Step 5 grid is found by its shape (a header row, then a row of numbers per
solution), not by the word "criter" in its header (issue 24, finding 5); and the parse
warnings that hold a response for review."""

from __future__ import annotations

import pytest

from studies.parsing import ParseWarning, grid_errors, parse_grid, parse_response
from tests.factories import SAMPLE_ANSWERS

OTHER_NAMES = (
    "| Solution | Originality | Feasibility | Cost | Impact | Fairness | Total |\n"
    "|---|---|---|---|---|---|---|\n"
    "| 1 | 2 | 1 | 3 | 1 | 2 | 9 |\n"
    "| 2 | 1 | 3 | 2 | 2 | 3 | 11 |\n"
    "| 3 | 3 | 2 | 1 | 3 | 1 | 10 |"
)
CHINESE = (
    "| 方案 | 新颖性 | 可行性 | 影响力 | 总分 |\n"
    "|---|---|---|---|---|\n"
    "| 方案一 | 3 | 1 | 2 | 6 |\n"
    "| 方案二 | 1 | 3 | 3 | 7 |\n"
    "| 方案三 | 2 | 2 | 1 | 5 |"
)
CHINESE_FULLWIDTH = "方案｜新颖性｜可行性\n一｜1｜2\n二｜2｜1"
PLAIN_PIPES = "ID | A | B | C\n1 | 1 | 2 | 3\n2 | 2 | 3 | 1\n3 | 3 | 1 | 2"
ALIGNED = (
    "Scores of the solutions:\n\n"
    "Solution    Novelty    Feasibility    Impact    Total\n"
    "--------    -------    -----------    ------    -----\n"
    "1           3          2              1         6\n"
    "2           2          3              3         8\n"
    "3           1          1              2         4\n\n"
    "Solution 2 scores highest."
)
SPACED_CHINESE = "方案 新颖性 可行性 影响力\n方案一 3 2 1\n方案二 2 3 3\n方案三 1 1 2"
LABELS_WITH_SPACES = "             C1  C2  C3  Sum\nSolution 1   3   2   1   6\nSolution 2   2   3   3   8\nSolution 3   1   1   2   4"
TABS = "Solution\tA\tB\n1\t1\t2\n2\t2\t1"


def _rows(grid):
    return [(r["solution"], r["scores"], r["total"]) for r in grid.rows]


def test_a_grid_whose_header_has_no_criterion_word_is_found():
    grid = parse_grid(OTHER_NAMES)
    assert grid is not None and grid.criteria == 5 and len(grid.rows) == 3
    assert _rows(grid)[0] == ("1", [2, 1, 3, 1, 2], 9)
    assert grid_errors(grid, expected_solutions=3) == []


def test_a_chinese_grid_is_found():
    grid = parse_grid(CHINESE)
    assert grid is not None and grid.criteria == 3
    assert _rows(grid) == [("方案一", [3, 1, 2], 6), ("方案二", [1, 3, 3], 7), ("方案三", [2, 2, 1], 5)]
    full = parse_grid(CHINESE_FULLWIDTH)
    assert full is not None and _rows(full) == [("一", [1, 2], None), ("二", [2, 1], None)]


def test_a_plain_pipe_table_without_a_total_is_found():
    grid = parse_grid(PLAIN_PIPES)
    assert grid is not None and grid.criteria == 3 and grid_errors(grid, expected_solutions=3) == []


@pytest.mark.parametrize(
    ("text", "criteria", "first"),
    [
        (ALIGNED, 3, ("1", [3, 2, 1], 6)),
        (SPACED_CHINESE, 3, ("方案一", [3, 2, 1], None)),
        (LABELS_WITH_SPACES, 3, ("Solution 1", [3, 2, 1], 6)),
        (TABS, 2, ("1", [1, 2], None)),
    ],
)
def test_a_table_aligned_with_whitespace_is_found(text, criteria, first):
    grid = parse_grid(text)
    assert grid is not None and grid.criteria == criteria
    assert _rows(grid)[0] == first


def test_an_unnamed_last_column_that_is_every_rows_sum_is_the_total():
    text = "| ID | A | B | C | D |\n|--|--|--|--|--|\n| 1 | 1 | 2 | 3 | 6 |\n| 2 | 3 | 1 | 2 | 6 |\n| 3 | 2 | 3 | 1 | 6 |"
    grid = parse_grid(text)
    assert grid is not None and grid.criteria == 3 and [r["total"] for r in grid.rows] == [6, 6, 6]


def test_a_named_total_that_is_wrong_is_still_an_error():
    text = "| Solution | Novelty | Cost | Total |\n|---|---|---|---|\n| 1 | 1 | 2 | 4 |\n| 2 | 2 | 1 | 3 |"
    assert [e.kind for e in grid_errors(parse_grid(text))] == ["wrong_total"]


@pytest.mark.parametrize(
    "text",
    [
        "We chose solution 2 because it is best.",
        "Solution 2 is best: it scored 4 and 5.\nSolution 1 came second.",
        "1 | 2 | 1 | 2\n2 | 1 | 2 | 1",  # numbers without a header row
        "| Solution | Description |\n|---|---|\n| 1 | Sieves |\n| 2 | Laws |",  # no numbers
        "",
    ],
)
def test_text_without_the_shape_is_not_a_grid(text):
    assert parse_grid(text) is None


def test_a_grid_after_a_table_of_words_is_the_one_found():
    text = (
        "| Solution | Description |\n|---|---|\n| 1 | Sieves |\n\n"
        "| Solution | Novelty | Cost |\n|---|---|---|\n| 1 | 1 | 2 |\n| 2 | 2 | 1 |"
    )
    grid = parse_grid(text)
    assert (
        grid is not None and grid.criteria == 2 and _rows(grid) == [("1", [1, 2], None), ("2", [2, 1], None)]
    )


def test_the_papers_grid_parses_exactly_as_before(data_a):
    """A05_FS10's grid: what the word-based parser found (8 rows of 5 criteria and a total)."""
    text = data_a[0][3]["Step-5"][0]["Content"]
    grid = parse_grid(text)
    assert grid is not None and grid.criteria == 5 and len(grid.rows) == 8
    assert [r["solution"] for r in grid.rows] == [str(n) for n in range(1, 9)]
    assert all(r["total"] == sum(r["scores"]) for r in grid.rows)
    assert [(e.kind, e.where) for e in grid_errors(grid, expected_solutions=8)] == [("ties", "Criterion 4")]


# --- parse warnings -------------------------------------------------------------------


def test_a_scoreable_answer_has_no_warning(data_a):
    assert parse_response(list(SAMPLE_ANSWERS)).warnings == []
    steps = [
        "\n".join(it["Content"] for it in data_a[0][3][f"Step-{n}"] if "Content" in it) for n in range(1, 7)
    ]
    assert parse_response(steps).warnings == []


def test_a_mock_answer_repeating_one_sentence_warns_of_everything():
    warnings = parse_response(["This is a mock response."] * 6).warnings
    assert warnings == [
        ParseWarning("no_items", 1),
        ParseWarning("repeated_step", 2, 1),
        ParseWarning("no_items", 3),
        ParseWarning("repeated_step", 3, 1),
        ParseWarning("repeated_step", 4, 1),
        ParseWarning("no_grid", 5),
        ParseWarning("repeated_step", 5, 1),
        ParseWarning("repeated_step", 6, 1),
    ]


def test_empty_steps_and_a_step_repeated_with_other_layout():
    answers = list(SAMPLE_ANSWERS)
    answers[1] = "   \n"
    answers[5] = "**" + answers[3].upper().replace("\n", "\n\n") + "**"  # Step 6 repeats Step 4
    assert parse_response(answers).warnings == [
        ParseWarning("empty_step", 2),
        ParseWarning("repeated_step", 6, 4),
    ]


def test_a_grid_without_the_word_criter_gives_no_warning():
    answers = list(SAMPLE_ANSWERS)
    answers[2] = "1. Sieves.\n2. Laws.\n3. Boats."
    answers[4] = OTHER_NAMES
    parsed = parse_response(answers)
    assert parsed.grid is not None and parsed.warnings == []
