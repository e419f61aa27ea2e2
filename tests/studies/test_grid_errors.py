from studies.parsing import grid_errors, implied_correctly_used, parse_grid

A06_FS1 = """Solution ID | Criterion 1 | Criterion 2 | Criterion 3 | Criterion 4 | Criterion 5 | Total Score |
1 | 8 | 6 | 7 | 9 | 5 | 35 |
2 | 5 | 8 | 9 | 7 | 8 | 37 |
3 | 9 | 5 | 6 | 8 | 9 | 37 |
4 | 6 | 9 | 8 | 6 | 7 | 36 |
5 | 7 | 7 | 5 | 9 | 6 | 34 |
6 | 4 | 4 | 9 | 8 | 8 | 33 |
7 | 3 | 9 | 7 | 5 | 9 | 33 |
8 | 2 | 6 | 8 | 7 | 5 | 28 |"""


def test_grid_errors_of_a05_fs10_is_one_tie_in_criterion_4(data_a):
    text = data_a[0][3]["Step-5"][0]["Content"]
    grid = parse_grid(text)
    assert grid is not None and grid.criteria == 5 and len(grid.rows) == 8
    errors = grid_errors(grid, expected_solutions=8)
    assert [(e.kind, e.where) for e in errors] == [("ties", "Criterion 4")]
    assert implied_correctly_used(errors) == 4  # what both raters gave


def test_grid_errors_of_the_papers_llama_example_floors_at_one():
    errors = grid_errors(parse_grid(A06_FS1), expected_solutions=8)
    assert len(errors) >= 4
    assert implied_correctly_used(errors) == 1


def test_grid_errors_counts_wrong_totals_and_missing_cells():
    text = "| Solution | Criterion 1 | Criterion 2 | Total |\n|---|---|---|---|\n| 1 | 1 | 2 | 4 |\n| 2 | 2 |  | 2 |"
    errors = grid_errors(parse_grid(text))
    kinds = sorted(e.kind for e in errors)
    assert kinds == ["missing_cells", "wrong_total"]
    assert implied_correctly_used(errors) == 3


def test_grid_errors_without_grid_implies_minimum():
    errors = grid_errors(parse_grid("We chose solution 2 because it is best."))
    assert errors[0].kind == "no_grid"
    assert implied_correctly_used(errors) == 1


def test_parse_grid_reads_a_perfect_markdown_grid():
    text = "| 方案 | 标准1 | 标准2 | 总分 |\n|---|---|---|---|\n| 1 | 2 | 1 | 3 |\n| 2 | 1 | 2 | 3 |"
    assert grid_errors(parse_grid(text), expected_solutions=2) == []
