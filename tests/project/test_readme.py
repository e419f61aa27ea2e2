"""The docs stay true: the README is short and points at docs/, every environment variable the code
reads is documented for operators, the architecture page names every app and only files that exist,
its import layers are import-linter's, and every relative link leads to a file (and heading) that exists.

The app list is derived from the project (INSTALLED_APPS and the top-level packages), never kept by hand.
"""

import re
import tomllib
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = ("admins", "raters", "researchers", "operators", "architecture", "development")


def _apps() -> set[str]:
    """The project's own packages: every local app of INSTALLED_APPS and every top-level package."""
    installed = {entry.split(".", 1)[0] for entry in settings.INSTALLED_APPS}
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests"}
    return {name for name in installed if (ROOT / name / "__init__.py").exists()} | packages


def _without_code_blocks(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


def _section(text: str, heading: str) -> str:
    return text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def _env_names_in_code() -> set[str]:
    files = [p for app in _apps() for p in (ROOT / app).rglob("*.py")]
    files += [ROOT / "gunicorn.conf.py", ROOT / "manage.py", *(ROOT / "scripts").glob("*.sh")]
    names = set()
    for path in files:
        text = path.read_text()
        names |= set(re.findall(r'\benv(?:\.\w+)?\(\s*"([A-Z][A-Z0-9_]+)"', text))
        names |= set(re.findall(r'os\.(?:environ(?:\.get)?[(\[]|getenv\()\s*"([A-Z][A-Z0-9_]+)"', text))
        if path.suffix == ".sh":
            names |= set(re.findall(r"\$\{([A-Z][A-Z0-9_]+):-", text))
    return names


def test_the_app_list_is_derived():
    apps = _apps()
    assert {"teamllm_web", "studies", "scoring", "judging", "training", "onboarding", "devtools"} <= apps
    assert "tests" not in apps and "django" not in apps


def test_operators_page_documents_every_environment_variable():
    page = (DOCS / "operators.md").read_text()
    names = _env_names_in_code()
    assert {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "WEB_CONCURRENCY"} <= names  # the scan works
    missing = sorted(n for n in names if f"`{n}`" not in page)
    assert not missing, f"settings missing from docs/operators.md: {missing}"


def test_readme_names_the_two_commands():
    readme = README.read_text()
    assert "make run" in readme and "make test" in readme
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^run:", makefile, flags=re.M) and re.search(r"^test:", makefile, flags=re.M)


def test_readme_is_short_and_links_every_docs_page():
    readme = README.read_text()
    assert len(readme.splitlines()) <= 220
    on_disk = {p.stem for p in DOCS.glob("*.md")}
    assert set(PAGES) <= on_disk
    unlinked = sorted(name for name in on_disk if f"](docs/{name}.md)" not in readme)
    assert not unlinked, f"docs pages the README does not link: {unlinked}"


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = _without_code_blocks(path.read_text())
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


def test_every_relative_link_in_the_docs_leads_somewhere():
    sources = [README, ROOT / "bench" / "README.md", *sorted(DOCS.glob("*.md"))]
    broken = []
    checked = 0
    for source in sources:
        for target in re.findall(r"\]\(([^)\s]+)\)", _without_code_blocks(source.read_text())):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            file_part, _, anchor = target.partition("#")
            path = (source.parent / file_part).resolve() if file_part else source
            checked += 1
            if not path.exists():
                broken.append(f"{source.relative_to(ROOT)}: {target}")
            elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
                broken.append(f"{source.relative_to(ROOT)}: {target} (no such heading)")
    assert checked >= 20  # the links were found
    assert not broken, broken


def test_architecture_page_draws_and_maps_every_app():
    page = (DOCS / "architecture.md").read_text()
    drawing = _section(page, "## The picture")
    table = page.split("| where | what |", 1)[1].split("\n\n", 1)[0]
    for app in sorted(_apps()):
        assert f"{app}/" in drawing, f"{app} missing from the drawing"
        assert f"| `{app}/` |" in table, f"{app} missing from the module map"


def test_architecture_module_map_names_only_files_that_exist():
    page = (DOCS / "architecture.md").read_text()
    table = page.split("| where | what |", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| (.*) \|$", table, flags=re.M)
    assert len(rows) >= len(_apps())  # the map was found
    missing = []
    for where, what in rows:
        base = ROOT / where
        if not base.exists():
            missing.append(where)
            continue
        for name in re.findall(r"`(\w[\w./-]*(?:/|\.(?:py|json|txt|html|css|js|md|sh)))`", what):
            found = (base / name).exists() or (ROOT / name).exists()
            if not found and "/" not in name.rstrip("/"):
                found = any(base.rglob(name.rstrip("/")))
            if not found:
                missing.append(f"{where}: {name}")
    assert not missing, f"the module map names missing files: {missing}"


def test_architecture_behaviour_index_names_only_files_that_exist():
    page = (DOCS / "architecture.md").read_text()
    table = page.split("| behaviour | file |", 1)[1].split("\n\n", 1)[0]
    names = re.findall(r"`(\w[\w./-]*(?:/|\.(?:py|json|js)))`", table)
    assert len(names) >= 30  # the index was found
    missing = sorted(name for name in names if not (ROOT / name).exists())
    assert not missing, f"the behaviour index names missing files: {missing}"


def test_architecture_layers_are_import_linters():
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    apps_layers = next(c for c in contracts if c["type"] == "layers" and "containers" not in c)
    drawn = _section((DOCS / "architecture.md").read_text(), "## Import layers")
    block = drawn.split("```", 2)[1].strip().splitlines()
    assert block == apps_layers["layers"]
