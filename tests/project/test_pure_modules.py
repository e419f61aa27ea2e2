"""The pure modules work without Django; the web processes load no heavy library (issue 9).

Pure modules (the rubric, response parsing, the agreement statistics, the results
tables, diversity, figures and the entry paths) take plain records and import
nothing that touches the ORM, so they run in a bare interpreter with no settings.
The ORM reads live in the selectors, which fetch the records and pass them in.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from studies.models import Response
from tests.factories import code_for
from tests.product import PRODUCT, ROOT, TOOLS, app_files, imports_of, module_name, where
from tests.workers import child_env

PURE_MODULES = (
    "studies.rubric",
    "studies.rubric.schema",
    "studies.rubric.loader",
    "studies.rubric.totals",
    "studies.rubric.checks",
    "studies.parsing",
    "calibration.statistics",
    "calibration.reliability",
    "calibration.generalizability",
    "calibration.severity",
    "calibration.dimensions",
    "research.records",
    "research.significance",
    "research.group_tables",
    "research.cost",
    "research.results",
    "research.diversity",
    "research.figures",
    "scoring.entries",
    "training.feedback",
    "training.drift",
    "judging.ppi",
    "judging.alt_test",
    "judging.sampling",
    "judging.self_preference",
    "judging.calibration_curve",
    "judging.estimates",
)
HEAVY = ("scipy", "matplotlib", "pingouin", "pandas", "openai", "nltk", "jieba")
# What a web process must not load either (issue 14): the spreadsheet libraries and numpy.
WEB_HEAVY = (*HEAVY, "openpyxl", "xlsxwriter", "numpy")


def _run_bare(code: str) -> dict:
    """Run ``code`` in a fresh interpreter without Django settings; it prints one JSON object."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env["PYTHONPATH"] = str(ROOT)
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def _allowed_in_pure(target: str, nested: bool) -> bool:
    """Other pure modules (at module level), Django's utilities (gettext) and third-party libraries."""
    top = target.split(".")[0]
    if top in (*PRODUCT, *TOOLS):
        return not nested and any(target == p or target.startswith(p + ".") for p in PURE_MODULES)
    if top == "django":
        return target.startswith("django.utils.")
    return True


def test_pure_modules_import_only_pure_project_modules_and_no_orm():
    offending = [
        i for module in PURE_MODULES for i in imports_of(module) if not _allowed_in_pure(i.target, i.nested)
    ]
    assert not offending, where(offending)


def test_pure_modules_work_without_django_settings():
    found = _run_bare(
        """
        import json, os, statistics, sys

        assert "DJANGO_SETTINGS_MODULE" not in os.environ

        from calibration.statistics import closer_primary, icc, long_rows, pcc
        from research.diversity import diversity_means
        from research.figures import figure_build, figure_bytes
        from research.results import ResponseRecord, ScoreRecord, fmt, results_compute
        from scoring.entries import entries_from_changes
        from studies.parsing import parse_response, split_numbered_items
        from studies.rubric import (
            CriterionEntry, IdeaEntry, SheetEntries, integrity_score, load_rubric,
            normalized_vector, sheet_totals,
        )

        out = {}
        rubric = load_rubric("cgpst-v1")

        # The rubric: an empty sheet scores 0 and lists what is missing; a sheet at
        # every maximum scores the rubric's maximum.
        empty = sheet_totals(SheetEntries.empty(rubric), rubric)
        full = SheetEntries.empty(rubric)
        for step in rubric.steps:
            if step.kind == "ideas":
                full.ideas[step.number] = [
                    IdeaEntry(
                        category=rubric.categories[i].key,
                        elaboration=step.item_score("elaboration").max,
                        originality=step.item_score("originality").max,
                    )
                    for i in range(step.item_count)
                ]
            elif step.kind == "criteria":
                full.criteria = [
                    CriterionEntry(**{s.key: s.max for s in step.item_scores})
                    for _ in range(step.item_count)
                ]
            for d in step.scored_dimensions:
                full.dimensions[d.key] = d.max
            for t in step.texts:
                full.texts[t.key] = "text"
        totals = sheet_totals(full, rubric)
        out["rubric"] = {
            "empty": [empty.overall, empty.complete, len(empty.missing) > 0],
            "full": [totals.overall, totals.complete, rubric.max_total],
            "steps": [totals.steps[s.number] for s in rubric.steps],
            "vector": sorted(set(normalized_vector(totals, rubric))),
            "integrity": integrity_score(totals, rubric),
        }

        # The entry paths build a sheet in memory.
        entries = entries_from_changes([("dims.s2.focus", 2)], rubric)
        out["entries"] = sheet_totals(entries, rubric).dimensions["s2.focus"]

        # Parsing a response's answers.
        parsed = parse_response(["1. one\\n2. two", "", "1. three", "", "", ""])
        out["parsing"] = [parsed.items[1], parsed.blank_items, split_numbered_items("1. a\\n2. b").count]

        # PCC on two vectors, the closer primary rater and ICC on a long table.
        a, b = [0.1, 0.5, 0.9, 0.3], [0.2, 0.6, 0.8, 0.3]
        result = pcc(a, b)
        out["pcc"] = [result.r, statistics.correlation(a, b), result.reason]
        out["closer"] = closer_primary(a, [0.9, 0.1, 0.2, 0.5], b).slot
        rows = [
            row
            for target in range(5)
            for rater, shift in (("r1", 0.0), ("r2", 0.05))
            for row in long_rows(target, rater, [target / 5 + shift, target / 6 + shift])
        ]
        agreement = icc(rows)
        out["icc"] = [agreement.reason, agreement.n_targets, agreement.n_raters, sorted(agreement.forms)]

        # The results tables on plain records.
        records = [
            ScoreRecord(
                response_id=n,
                research_id=f"{cond}0{m}_FS{sc}",
                scenario=f"FS{sc}",
                model_number=f"0{m}",
                model=f"model-{m}",
                condition=cond,
                overall=100.0 + 10 * m + sc + (5 if cond == "A" else 0),
                steps={s.number: float(s.max // 2) for s in rubric.steps},
                dimensions={d.key: float(d.max) for d in rubric.dimensions},
            )
            for n, (m, cond, sc) in enumerate(
                (m, cond, sc) for m in (1, 2) for cond in "AB" for sc in range(1, 7)
            )
        ]
        responses = [
            ResponseRecord(r.response_id, r.scenario, r.model_number, r.model, r.condition, 0, sc % 2)
            for sc, r in enumerate(records)
        ]
        results = results_compute(study=None, rubric=rubric, records=records, responses=responses)
        results.diversity = diversity_means(responses, {r.response_id: {1: {"released": 0.5}} for r in responses})
        totals_column = [c.key for c in results.columns].index("overall")
        out["results"] = {
            "conditions": results.conditions,
            "pair": list(results.overall.pair),
            "table1_rows": [len(t.rows) for t in results.table1],
            "table2_totals": [[fmt(r.values[totals_column]) for r in t.rows] for t in results.table2],
            "tests": [[t.model_number, t.n, fmt(t.p_value, 4), t.mark] for t in results.overall.tests],
            "blanks": [[g.condition, g.step, g.value, g.parser] for g in results.blanks],
            "diversity": sorted({(d.step, d.value) for d in results.diversity}),
        }

        # A figure from those tables.
        svg = figure_bytes(figure_build("steps", results), "svg")
        out["figure"] = svg.lstrip().startswith(b"<?xml") and b"<svg" in svg

        out["loaded"] = sorted(sys.modules)
        print(json.dumps(out))
        """
    )
    assert found["rubric"] == {
        "empty": [0, False, True],
        "full": [186, True, 186],
        "steps": [48, 30, 48, 20, 5, 35],
        "vector": [1.0],
        "integrity": found["rubric"]["integrity"],
    }
    assert found["rubric"]["integrity"] > 0
    assert found["entries"] == 2
    assert found["parsing"] == [["one", "two"], {"1": 6, "3": 7}, 2]
    r, expected, reason = found["pcc"]
    assert abs(r - expected) < 1e-12 and reason == ""
    assert found["closer"] == "b"
    assert found["icc"] == ["", 5, 2, sorted(["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"])]
    assert found["results"] == {
        "conditions": ["A", "B"],
        "pair": ["A", "B"],
        "table1_rows": [12, 12],
        "table2_totals": [["118.5", "128.5"], ["113.5", "123.5"]],
        "tests": [["01", 6, "0.0312", ""], ["02", 6, "0.0312", ""]],  # ** only, as printed
        "blanks": [[c, s, None, None] for s in (1, 3) for c in "ABAB"],  # no raters' sheets
        "diversity": [[1, 0.5], [3, None]],
    }
    assert found["figure"] is True

    loaded = set(found["loaded"])
    assert "django.db" not in loaded and "django.db.models" not in loaded
    models = sorted(m for m in loaded if m.split(".")[0] in PRODUCT and m.split(".")[-1] == "models")
    assert not models, models
    selectors = sorted(m for m in loaded if ".selectors" in m or ".services" in m or ".views" in m)
    assert not selectors, selectors


def test_importing_a_pure_module_loads_no_heavy_library():
    """Heavy libraries load inside the functions that use them, not on import."""
    loaded = _run_bare(
        f"""
        import json, sys
        for module in {list(PURE_MODULES)!r}:
            __import__(module)
        print(json.dumps(sorted(sys.modules)))
        """
    )
    heavy = sorted(m for m in loaded if m.split(".")[0] in (*HEAVY, "numpy"))
    assert not heavy, heavy
    assert not [m for m in loaded if m.startswith("django.db")]


def test_the_url_configuration_loads_no_heavy_library():
    script = (
        "import json, sys\nimport django\ndjango.setup()\nimport teamllm_web.urls\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=180
    )
    assert result.returncode == 0, result.stderr
    loaded = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert "research.views" in loaded and "research.figures" in loaded  # the check sees the pages
    assert "scoring.views.workbooks" in loaded and "research.workbook" in loaded
    heavy = sorted(m for m in loaded if m.split(".")[0] in WEB_HEAVY)
    assert not heavy, heavy


@pytest.mark.django_db(transaction=True)
def test_serving_the_scoring_page_and_an_autosave_loads_no_heavy_library(demo):
    """A web process that serves raters (page, autosave, queue) never loads a heavy library."""
    code = code_for("rater1", Response.objects.get(research_id="A05_FS10"))
    script = textwrap.dedent(
        f"""
        import json, sys
        import django
        django.setup()
        from django.contrib.auth import get_user_model
        from django.test import Client
        client = Client()
        client.force_login(get_user_model().objects.get(username="rater1"))
        statuses = [client.get("/scoring/").status_code, client.get("/scoring/{code}/").status_code]
        from scoring.models import ScoreSheet
        sheet = ScoreSheet.objects.get(
            assignment__rater__username="rater1", assignment__blind_code="{code}"
        ).pk
        body = {{"sheet": sheet, "batch_id": "b1", "expected_version": 0, "changes": [["dims.s2.focus", 3]]}}
        statuses.append(
            client.post("/scoring/{code}/save/", data=json.dumps(body), content_type="application/json").status_code
        )
        print(json.dumps({{"statuses": statuses, "loaded": sorted(sys.modules)}}))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=180
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert found["statuses"] == [200, 200, 200]
    heavy = sorted(m for m in found["loaded"] if m.split(".")[0] in WEB_HEAVY)
    assert not heavy, heavy


# --- no function-level imports of project modules ---------------------------------------


def _edited_elsewhere(module: str) -> bool:
    """Files other work rewrites at the moment (the workbooks and the sheet views)."""
    return (
        module.startswith("scoring.workbooks")
        or module.startswith("scoring.views.sheet_")
        or module == "research.workbook"
    )


def test_the_import_reader_sees_function_level_and_third_party_imports():
    found = {(i.target, i.nested) for i in imports_of("scoring.apps")}
    assert ("scoring.receivers", True) in found and ("django.apps", False) in found


def test_no_function_level_imports_of_project_modules():
    offending = [
        i
        for path in app_files()
        if not _edited_elsewhere(module_name(path))
        for i in imports_of(module_name(path))
        if i.nested and i.of_project and not (path.name == "apps.py" and i.target.endswith(".receivers"))
    ]
    assert not offending, where(offending)
