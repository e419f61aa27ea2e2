"""`.ci/run` refuses commits whose subject is longer than 72 characters, after a fixed base commit."""

from __future__ import annotations

import subprocess

import pytest

from tests.product import ROOT

SCRIPT = ROOT / ".ci" / "commit-subjects"


def _git(repo, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "HOME": str(repo),
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def repo(tmp_path):
    """A repository with the script, an old commit with a long subject, and the base after it."""
    (tmp_path / ".ci").mkdir()
    (tmp_path / ".ci" / "commit-subjects").write_bytes(SCRIPT.read_bytes())
    (tmp_path / ".ci" / "commit-subjects").chmod(0o755)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "old " + "x" * 100)
    _git(tmp_path, "commit", "-q", "--allow-empty", "-m", "the base")
    return tmp_path


def _check(repo) -> subprocess.CompletedProcess:
    base = _git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    base = _git(repo, "rev-list", "--reverse", f"{base}..HEAD").split()[0]  # "the base"
    return subprocess.run([str(repo / ".ci" / "commit-subjects"), base], capture_output=True, text=True)


def test_new_commits_with_short_subjects_pass_and_old_long_ones_are_left_alone(repo):
    _git(repo, "commit", "-q", "--allow-empty", "-m", "y" * 72, "-m", "a body of any length " * 10)
    result = _check(repo)
    assert result.returncode == 0, result.stderr
    assert "1 commits after" in result.stdout


def test_a_new_commit_with_a_long_subject_fails(repo):
    _git(repo, "commit", "-q", "--allow-empty", "-m", "z" * 73)
    result = _check(repo)
    assert result.returncode == 1
    assert "z" * 73 in result.stderr


def test_ci_checks_the_subjects_from_the_recorded_base():
    assert ".ci/commit-subjects" in (ROOT / ".ci" / "run").read_text()
    result = subprocess.run([str(SCRIPT)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
