"""The Dockerfile and its build context: no hidden failures, no secrets, non-root,
dependencies from the lock file, and a context that holds everything the services import."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text()
    logical, current = [], ""
    for line in text.splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        logical.append(current + line)
        current = ""
    out = []
    for line in logical:
        word, _, rest = line.strip().partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def _dependency_name(spec: str) -> str:
    return re.split(r"[\s\[<>=!~;]", spec, maxsplit=1)[0].lower().replace("_", "-")


# --- .dockerignore, with Docker's rules: patterns relative to the context root, `*` within
# one path segment, `**` across segments, a match on a directory excludes what is inside,
# `!` re-includes, the last matching line wins.


def _ignore_patterns() -> list[tuple[bool, re.Pattern]]:
    rules = []
    for raw in (ROOT / ".dockerignore").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        line = line.lstrip("!").strip().strip("/")
        regex = ""
        i = 0
        while i < len(line):
            if line.startswith("**/", i):
                regex += "(?:.*/)?"
                i += 3
            elif line.startswith("**", i):
                regex += ".*"
                i += 2
            elif line[i] == "*":
                regex += "[^/]*"
                i += 1
            elif line[i] == "?":
                regex += "[^/]"
                i += 1
            else:
                regex += re.escape(line[i])
                i += 1
        rules.append((negate, re.compile(regex + r"\Z")))
    return rules


def ignored(path: str, rules=None) -> bool:
    rules = _ignore_patterns() if rules is None else rules
    parts = path.strip("/").split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    excluded = False
    for negate, pattern in rules:
        if any(pattern.match(prefix) for prefix in prefixes):
            excluded = not negate
    return excluded


def context_files() -> list[str]:
    """The files `docker build .` sends (what COPY . . puts in the image)."""
    rules = _ignore_patterns()
    found = []
    for folder, dirs, files in os.walk(ROOT):
        rel = Path(folder).relative_to(ROOT).as_posix()
        rel = "" if rel == "." else rel + "/"
        dirs[:] = [d for d in dirs if not ignored(rel + d, rules)]
        found += [rel + f for f in files if not ignored(rel + f, rules)]
    return sorted(found)


# --- the Dockerfile -----------------------------------------------------------------


def test_dockerfile_hides_no_failure():
    for word, args in instructions():
        if word != "RUN":
            continue
        shell = re.sub(r"\"[^\"]*\"|'[^']*'", "''", args)  # quoted arguments aside
        # commands are chained with && only: `a || true`, `a; b` or `set +e` would let a
        # failing command pass
        assert "||" not in shell, args
        assert ";" not in shell, args
        assert "set +e" not in shell, args


def test_dockerfile_collects_static_files_and_runs_the_deploy_checks():
    runs = " ".join(args for word, args in instructions() if word == "RUN")
    assert "manage.py collectstatic --noinput" in runs
    assert "check --deploy" in runs
    if "compilemessages" in runs:  # then gettext must be installed in the image
        assert "gettext" in runs
    else:  # the compiled catalogue is committed and copied
        assert (ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.mo").is_file()


def test_dockerfile_runs_as_a_non_root_user():
    users = [args for word, args in instructions() if word == "USER"]
    assert users, "no USER instruction: the services would run as root"
    assert users[-1].split(":")[0] not in ("root", "0")
    words = [word for word, _ in instructions()]
    assert words.index("USER") < words.index("CMD")
    assert "useradd" in " ".join(args for word, args in instructions() if word == "RUN")


def test_dockerfile_installs_the_runtime_dependencies_pinned_by_the_lock_file():
    runs = [args for word, args in instructions() if word == "RUN" and "pip install" in args]
    assert runs
    joined = " ".join(runs)
    assert re.search(r"(-c|--constraint|-r|--requirement)\s+requirements\.lock", joined), joined
    assert "COPY pyproject.toml requirements.lock" in " ".join(f"{w} {a}" for w, a in instructions())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = [_dependency_name(spec) for spec in project["dependencies"]]
    # no package is listed by hand in the Dockerfile: the list comes from pyproject.toml ...
    pip_args = re.findall(r"pip install ([^&]*)", joined)
    for args in pip_args:
        for name in names:
            assert not re.search(rf"(^|\s|\"){re.escape(name)}([\s\[<>=\"]|$)", args.lower()), (name, args)
    # ... and the command that writes it prints exactly the runtime dependencies
    command = re.search(r"python -c \"(.*?)\" > /tmp/requirements.txt", joined).group(1)
    printed = subprocess.run(
        [sys.executable, "-c", command], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert printed == project["dependencies"]
    # every runtime dependency is pinned in the lock file
    locked = {
        _dependency_name(line): line.split("==", 1)[1]
        for line in (ROOT / "requirements.lock").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    }
    missing = [name for name in names if name not in locked]
    assert not missing, f"not pinned in requirements.lock: {missing}"


def test_dockerfile_adds_the_s3_extra_when_asked_and_the_lock_pins_it():
    joined = " ".join(args for word, args in instructions() if word == "RUN" and "pip install" in args)
    assert any(word == "ARG" and args.startswith("EXTRAS") for word, args in instructions())
    command = re.search(r"python -c \"(.*?)\" > /tmp/requirements.txt", joined).group(1)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    printed = subprocess.run(
        [sys.executable, "-c", command], cwd=ROOT, capture_output=True, text=True, check=True,
        env={**os.environ, "EXTRAS": "s3"},
    ).stdout.splitlines()  # fmt: skip
    assert printed == project["dependencies"] + project["optional-dependencies"]["s3"]
    assert any(spec.startswith("django-storages[s3]") for spec in printed)
    locked = {_dependency_name(line) for line in (ROOT / "requirements.lock").read_text().splitlines()}
    assert {"django-storages", "boto3", "botocore", "s3transfer"} <= locked
    unknown = subprocess.run(
        [sys.executable, "-c", command], cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "EXTRAS": "nosuchextra"},
    )  # fmt: skip
    assert unknown.returncode != 0  # a misspelt extra fails the build


def test_dockerfile_keeps_gunicorn_with_the_production_settings():
    ins = dict(instructions())
    assert "DJANGO_SETTINGS_MODULE=teamllm_web.settings.production" in ins["ENV"]
    assert ins["CMD"].startswith('["gunicorn", "teamllm_web.wsgi:application"')


# --- .dockerignore ------------------------------------------------------------------


def test_dockerignore_keeps_secrets_local_data_and_the_dev_environment_out():
    assert (ROOT / ".dockerignore").is_file()
    for path in (
        ".env",
        ".env.local",
        "providers.env",
        "var/db.sqlite3",
        "var/secret_key",
        "var/media/exports/1/results.xlsx",
        ".venv/bin/python",
        ".git/HEAD",
        "tests/conftest.py",
        "bench/README.md",
        "devtools/llm_stub.py",
        "scoring/__pycache__/models.cpython-311.pyc",
    ):
        assert ignored(path), path
    for path in (
        "manage.py",
        "teamllm_web/settings/production.py",
        "studies/rubric/cgpst-v1.json",
        "studies/data/data_A.json",
        "locale/zh_Hans/LC_MESSAGES/django.mo",
        "static/css/app.css",
        "templates/base.html",
        "requirements.lock",
        "pyproject.toml",
    ):
        assert not ignored(path), path


def test_the_build_context_holds_everything_the_services_import(tmp_path):
    """Copy what `docker build` would send and run the image's build steps and imports
    there under production settings: collectstatic, check --deploy, every task module,
    the URLconf (all views), the WSGI application."""
    context = tmp_path / "app"
    files = context_files()
    assert "manage.py" in files and not any(f.startswith(("tests/", ".git/", "var/")) for f in files)
    for rel in files:
        target = context / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "teamllm_web.settings.production",
        "SECRET_KEY": "build-only-key-build-only-key-build-only-key-build-only-key",
        "TEAMLLM_VAR_DIR": str(tmp_path / "var"),
        "STATIC_ROOT": str(tmp_path / "staticfiles"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }

    def run(*args):
        result = subprocess.run(
            [sys.executable, *args], cwd=context, env=env, capture_output=True, text=True, timeout=300
        )
        assert result.returncode == 0, f"{args}\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
        return result

    run("manage.py", "collectstatic", "--noinput")
    assert (tmp_path / "staticfiles" / "css" / "app.css").is_file()
    run("manage.py", "check", "--deploy", "--fail-level", "WARNING")
    run(
        "-c",
        "import django; django.setup()\n"
        "from teamllm_web.celery import app\n"
        "app.loader.import_default_modules()\n"
        "import teamllm_web.urls, teamllm_web.wsgi\n"
        "from django.urls import get_resolver\n"
        "get_resolver().url_patterns\n"
        "names = sorted(n for n in app.tasks if not n.startswith('celery.'))\n"
        "assert names, names\n",
    )


@pytest.mark.parametrize("name", ["docker-compose.yml", "Dockerfile", ".dockerignore"])
def test_deployment_files_are_in_the_repository(name):
    assert (ROOT / name).is_file()


def test_gunicorn_runs_threaded_workers_sized_by_the_environment(monkeypatch):
    """The image's CMD leaves the worker class and counts to gunicorn.conf.py (bench/README.md)."""
    import runpy

    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    monkeypatch.delenv("GUNICORN_THREADS", raising=False)
    default = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert default["worker_class"] == "gthread"
    assert default["workers"] >= 2 and default["threads"] == 4
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    monkeypatch.setenv("GUNICORN_THREADS", "6")
    sized = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert (sized["workers"], sized["threads"]) == (3, 6)
    cmd = dict(instructions())["CMD"]
    assert "--workers" not in cmd and "--worker-class" not in cmd and "--threads" not in cmd
