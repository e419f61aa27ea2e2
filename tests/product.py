"""The product's packages, derived once from ``INSTALLED_APPS``, for the checks that walk the tree.

A check that names its apps by hand drifts when an app is added; these lists grow with the
settings instead. ``test_the_product_packages_are_every_package_of_the_repository`` fails when
a new top-level package is neither an installed app nor named below.

Imports are read through grimp (the graph import-linter checks), one call per import with its
line, so a check needs no parser of its own.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import grimp
from django.apps import apps
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent


def _is_ours(path: str) -> bool:
    resolved = Path(path).resolve()
    return resolved.is_relative_to(ROOT) and ".venv" not in resolved.relative_to(ROOT).parts


# The project's own Django apps, in INSTALLED_APPS order (third-party apps live in the venv).
APPS: tuple[str, ...] = tuple(c.name for c in apps.get_app_configs() if _is_ours(c.path))
# The settings' package: URLs, settings, the admin site, the middleware.
PROJECT_PACKAGE: str = settings.SETTINGS_MODULE.split(".")[0]
# Everything that ships: the project package and its apps.
PRODUCT: tuple[str, ...] = (PROJECT_PACKAGE, *APPS)
# Top-level packages that are not the product: development tools, the suite, the benchmarks.
TOOLS: tuple[str, ...] = ("devtools",)
NOT_PRODUCT: tuple[str, ...] = (*TOOLS, "tests", "bench")


def app_files(packages: tuple[str, ...] = PRODUCT) -> list[Path]:
    """Every Python file of the packages, migrations left out (generated code)."""
    return sorted(
        path
        for package in packages
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    )


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_path(module: str) -> Path:
    base = ROOT.joinpath(*module.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module (a third-party import: its statement's module, e.g. django.db)
    line: int
    nested: bool  # indented: inside a function (imports under ``if TYPE_CHECKING:`` are left out)

    @property
    def of_project(self) -> bool:
        return self.target.split(".")[0] in (*PRODUCT, *TOOLS)


@functools.cache
def _graph() -> grimp.ImportGraph:
    return grimp.build_graph(
        *PRODUCT, *TOOLS, include_external_packages=True, exclude_type_checking_imports=True, cache_dir=None
    )


def _statement_module(contents: str) -> str:
    """``from django.db import models`` -> ``django.db``; ``import numpy as np`` -> ``numpy``."""
    words = contents.split()
    return words[1].rstrip(",") if len(words) > 1 else ""


def imports_of(module: str) -> list[Import]:
    """Every import statement of the module, at any depth, as grimp reads it."""
    graph = _graph()
    lines = module_path(module).read_text(encoding="utf-8").splitlines()
    found = []
    for target in graph.find_modules_directly_imported_by(module):
        for detail in graph.get_import_details(importer=module, imported=target):
            number = detail["line_number"]
            nested = lines[number - 1][:1].isspace()
            if target.split(".")[0] not in (*PRODUCT, *TOOLS):
                target = _statement_module(detail["line_contents"]) or target
            found.append(Import(module, target, number, nested))
    return sorted(found, key=lambda i: (i.line, i.target))


def where(imports: list[Import]) -> list[str]:
    return [f"{i.source}:{i.line} imports {i.target}" for i in imports]
