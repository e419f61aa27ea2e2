"""No import cycles in ``generation``, not even inside functions (issue 9).

Infrastructure (the lease keeper) takes callbacks instead of importing domain code,
tasks import services and never the other way round, and the development tools
stay out of the apps. The scan reads every import statement at any nesting level,
so a function-level import cannot hide a cycle.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.workers import ROOT, child_env

GENERATION = ROOT / "generation"
# Top-level packages of this repository: "project modules" (generation, scoring, ...).
PROJECT = {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()}
DYNAMIC_IMPORTS = {"import_module", "__import__", "autodiscover_modules"}


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module (for ``from m import name``: m.name if that is a module)
    line: int
    nested: bool  # inside a function, not at module level

    @property
    def of_project(self) -> bool:
        return self.target.split(".")[0] in PROJECT


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports_of(path: Path) -> list[Import]:
    """Every import statement of the file, at any depth, relative imports resolved."""
    source = module_name(path)
    package = source if path.name == "__init__.py" else source.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.extend(Import(source, alias.name, child.lineno, nested) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in child.names:
                    target = f"{base}.{alias.name}"
                    found.append(Import(source, target if is_module(target) else base, child.lineno, nested))
            inner = nested or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            visit(child, inner)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)), False)
    return found


def python_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def where(imports: list[Import]) -> list[str]:
    return [f"{i.source}:{i.line} imports {i.target}" for i in imports]


def test_the_scan_sees_nested_and_relative_imports(tmp_path, monkeypatch):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("")
    (package / "high.py").write_text(
        "from . import low\n\ndef f():\n    if True:\n        from pkg.low import x\n    import json\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = [(i.target, i.line, i.nested) for i in imports_of(package / "high.py")]
    assert found == [("pkg.low", 1, False), ("pkg.low", 5, True), ("json", 6, True)]


def test_the_lease_keeper_imports_no_project_module():
    """Infrastructure: the heartbeat and the sweep come in as callbacks."""
    offending = [i for i in imports_of(GENERATION / "leases.py") if i.of_project]
    assert not offending, where(offending)


def test_services_never_import_tasks():
    """Tasks import services; services enqueue through the ``enqueue`` their caller passes."""
    offending = [
        i
        for path in python_files(GENERATION / "services")
        for i in imports_of(path)
        if i.target == "generation.tasks" or i.target.startswith("generation.tasks.")
    ]
    assert not offending, where(offending)


def test_no_function_level_imports_of_project_modules_in_generation():
    offending = [
        i for path in python_files(GENERATION) for i in imports_of(path) if i.nested and i.of_project
    ]
    assert not offending, where(offending)


def test_no_dynamic_imports_in_generation():
    """``importlib.import_module("generation.tasks")`` would hide an import from the scan."""
    offending = []
    for path in python_files(GENERATION):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name in DYNAMIC_IMPORTS:
                    offending.append(f"{module_name(path)}:{node.lineno} calls {name}")
    assert not offending, offending


def test_the_generation_import_graph_has_no_cycle():
    graph: dict[str, set[str]] = {}
    for path in python_files(GENERATION):
        for i in imports_of(path):
            if i.target.split(".")[0] == "generation" and i.target != i.source:
                graph.setdefault(i.source, set()).add(i.target)
    cycles = []
    state: dict[str, str] = {}  # "open" while on the DFS stack, then "done"

    def visit(module: str, stack: list[str]) -> None:
        state[module] = "open"
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                cycles.append(" -> ".join([*stack[stack.index(target) :], target]))
            elif target not in state:
                visit(target, [*stack, target])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert len(graph) > 10  # the scan found the app's modules
    assert not cycles, cycles


def test_the_apps_never_import_the_development_tools():
    offending = [
        i
        for app in ("generation", "scoring", "teamllm_web")
        for path in python_files(ROOT / app)
        for i in imports_of(path)
        if i.target.split(".")[0] == "devtools"
    ]
    assert not offending, where(offending)


def _loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running ``code``."""
    script = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return set(result.stdout.split())


def test_importing_the_leases_loads_no_domain_code():
    loaded = _loaded_after("import generation.leases")
    assert "generation.leases" in loaded
    domain = sorted(m for m in loaded if m.startswith(("generation.services", "generation.tasks")))
    assert not domain, domain


def test_web_processes_load_neither_the_openai_sdk_nor_the_development_tools():
    loaded = _loaded_after("import django\ndjango.setup()\nimport teamllm_web.urls")
    assert "generation.views" in loaded and "generation.services.runs" in loaded
    unwanted = sorted(m for m in loaded if m.split(".")[0] in ("openai", "devtools"))
    assert not unwanted, unwanted
