#!/usr/bin/env bash
# Create .venv and install the pinned dependencies (only when they changed).
#   scripts/bootstrap.sh        what running the app needs (make run)
#   scripts/bootstrap.sh dev    plus the development extras: pytest, Playwright, ruff, mypy (make test)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
extras="${1:-runtime}"
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv with $($PY --version)"
  "$PY" -m venv .venv
fi
stamp=.venv/.teamllm-installed
want="$(cat pyproject.toml requirements.lock | sha256sum | cut -d' ' -f1)"
have="$(cat "$stamp" 2>/dev/null || true)"
# A dev install contains the runtime one; a runtime install lacks the dev extras.
if [ "$have" = "$want dev" ] || { [ "$extras" = runtime ] && [ "$have" = "$want runtime" ]; }; then
  exit 0
fi
# A current pip: the one a new venv brings (23.x with Python 3.11) resolves and installs
# the same lock more slowly.
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
if [ "$extras" = dev ]; then
  echo "==> installing dependencies and development tools (pinned by requirements.lock)"
  .venv/bin/python -m pip install -q --disable-pip-version-check -c requirements.lock -e ".[dev]"
else
  echo "==> installing dependencies (pinned by requirements.lock; make test adds the development tools)"
  .venv/bin/python -m pip install -q --disable-pip-version-check -c requirements.lock -e .
fi
echo "$want $extras" > "$stamp"
