"""The README stays true: every environment variable the code reads is documented."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _env_names_in_code() -> set[str]:
    names = set()
    for path in list((ROOT / "teamllm_web").rglob("*.py")) + list((ROOT / "scripts").glob("*.sh")):
        text = path.read_text()
        names |= set(re.findall(r'env(?:\.\w+)?\(\s*"([A-Z][A-Z0-9_]+)"', text))
        if path.suffix == ".sh":
            names |= set(re.findall(r"\$\{([A-Z][A-Z0-9_]+):-", text))
    return names


def test_readme_documents_every_environment_variable():
    readme = (ROOT / "README.md").read_text()
    names = _env_names_in_code()
    assert {"DATABASE_URL", "REDIS_URL", "SECRET_KEY"} <= names  # the scan works
    missing = sorted(n for n in names if f"`{n}`" not in readme)
    assert not missing, f"undocumented settings: {missing}"


def test_readme_names_the_two_commands():
    readme = (ROOT / "README.md").read_text()
    assert "make run" in readme and "make test" in readme
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_readme_module_map_names_only_paths_that_exist():
    readme = (ROOT / "README.md").read_text()
    table = readme.split("| where | what |", 1)[1].split("\n\n", 1)[0]
    paths = set(re.findall(r"^\| `([a-z_]+/[^`]*)`", table, flags=re.M))
    assert len(paths) >= 8  # the map was found
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert not missing, f"README module map names missing paths: {missing}"
    for app in ("studies", "scoring", "calibration", "research", "generation"):
        assert f"| `{app}/` |" in table, app
