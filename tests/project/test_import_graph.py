"""The import graph is checked by import-linter alone (``lint-imports``, contracts in pyproject):
app layers, layers inside each app, no cycles between sibling modules at any depth (function-level
imports included: grimp reads every import statement), the lease keeper and the command modules.

These tests hold the contracts and the type check to the whole tree: their package lists must be
the product's apps as ``INSTALLED_APPS`` names them, so a new app cannot be left out."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

from tests.product import APPS, NOT_PRODUCT, PRODUCT, PROJECT_PACKAGE, ROOT, TOOLS
from tests.workers import child_env

LINT_IMPORTS = str(Path(sys.executable).parent / "lint-imports")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
CONTRACTS = PYPROJECT["tool"]["importlinter"]["contracts"]


def _contract(kind: str) -> list[dict]:
    return [c for c in CONTRACTS if c["type"] == kind]


def test_the_app_list_comes_from_the_settings():
    assert PROJECT_PACKAGE == "teamllm_web"
    assert {"studies", "scoring", "judging", "onboarding", "training"} <= set(APPS)
    assert "django.contrib.admin" not in APPS and "axes" not in APPS


def test_the_product_packages_are_every_package_of_the_repository():
    """A new top-level package is an installed app or is named as a tool: nothing escapes the checks."""
    packages = {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()}
    assert packages - set(NOT_PRODUCT) == set(PRODUCT)


def test_import_linter_sees_every_package():
    assert set(PYPROJECT["tool"]["importlinter"]["root_packages"]) == {*PRODUCT, *TOOLS}
    (acyclic,) = _contract("acyclic_siblings")
    assert set(acyclic["ancestors"]) == {*PRODUCT, *TOOLS}
    inside_apps = [c for c in _contract("layers") if "containers" in c]
    assert inside_apps and all(set(c["containers"]) == set(APPS) for c in inside_apps)
    app_layers = [c for c in _contract("layers") if "containers" not in c]
    for contract in app_layers:
        named = {name.strip() for layer in contract["layers"] for name in layer.split("|")}
        assert named == set(PRODUCT), contract["name"]
    (no_tools,) = [c for c in _contract("forbidden") if c["forbidden_modules"] == list(TOOLS)]
    assert set(no_tools["source_modules"]) == set(PRODUCT)


def test_mypy_checks_every_package():
    assert set(PYPROJECT["tool"]["mypy"]["files"]) == {*PRODUCT, *TOOLS}


def test_import_linter_contracts_hold():
    result = subprocess.run(
        [LINT_IMPORTS, "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_a_function_level_import_cycle_breaks_the_acyclic_contract(tmp_path):
    """The cycle contract sees an import inside a function, between two modules of one layer."""
    package = tmp_path / "app"
    (package / "services").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "services" / "__init__.py").write_text("")
    (package / "services" / "runs.py").write_text("from app.services import turns\n")
    (package / "services" / "turns.py").write_text("def f():\n    from app.services import runs\n")
    config = tmp_path / "contracts.toml"
    config.write_text(
        textwrap.dedent(
            """
            [tool.importlinter]
            root_packages = ["app"]

            [[tool.importlinter.contracts]]
            name = "No cycles"
            type = "acyclic_siblings"
            ancestors = ["app"]
            """
        )
    )
    env = {**child_env(), "PYTHONPATH": str(tmp_path)}
    result = subprocess.run(
        [LINT_IMPORTS, "--no-cache", str(config)], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "No cycles are allowed in app.services" in result.stdout
    assert ".turns -> .runs" in result.stdout or ".runs -> .turns" in result.stdout


def test_web_processes_load_neither_the_openai_sdk_nor_the_development_tools():
    script = "import sys\nimport django\ndjango.setup()\nimport teamllm_web.urls\nprint('\\n'.join(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    loaded = set(result.stdout.split())
    assert "generation.views" in loaded and "generation.services.runs" in loaded
    unwanted = sorted(m for m in loaded if m.split(".")[0] in ("openai", *TOOLS))
    assert not unwanted, unwanted


def test_ruff_refuses_a_dynamic_import_in_the_product():
    """``importlib.import_module("generation.tasks")`` would hide an edge from the contracts above."""
    ruff = str(Path(sys.executable).parent / "ruff")
    source = 'import importlib\n\ntasks = importlib.import_module("generation.tasks")\n'
    found = subprocess.run(
        [ruff, "check", "--no-cache", "--stdin-filename", "generation/loader.py", "-"],
        cwd=ROOT,
        input=source,
        capture_output=True,
        text=True,
    )
    assert found.returncode == 1 and "TID251" in found.stdout, found.stdout + found.stderr
