"""The benchmarks under bench/ run outside the suite, so a service that moves could break one
unnoticed (the agreement bench did, when the study-settings service left calibration.py): every
name a benchmark imports from the project must still be there."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT_PACKAGES = {p.parent.name for p in ROOT.glob("*/__init__.py")}
BENCHMARKS = sorted((ROOT / "bench").glob("*.py"))


def _project_imports(path: Path) -> list[tuple[str, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] in PROJECT_PACKAGES:
                found.extend((node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            found.extend(
                (alias.name, "") for alias in node.names if alias.name.split(".")[0] in PROJECT_PACKAGES
            )
    return found


def test_the_benchmarks_are_found():
    assert len(BENCHMARKS) >= 10
    assert "calibration" in PROJECT_PACKAGES and "bench" not in PROJECT_PACKAGES


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.name)
def test_every_name_a_benchmark_imports_exists(path):
    missing = []
    for module_name, name in _project_imports(path):
        module = importlib.import_module(module_name)
        if name and not hasattr(module, name):
            try:
                importlib.import_module(f"{module_name}.{name}")
            except ModuleNotFoundError:
                missing.append(f"{module_name}.{name}")
    assert missing == [], f"{path.name} imports what is no longer there: {missing}"
