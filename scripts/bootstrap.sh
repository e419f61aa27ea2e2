#!/usr/bin/env bash
# Create .venv and install the pinned dependencies (only when they changed).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv with $($PY --version)"
  "$PY" -m venv .venv
fi
stamp=.venv/.teamllm-installed
want="$(cat pyproject.toml requirements.lock | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "==> installing dependencies (pinned by requirements.lock)"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -c requirements.lock -e ".[dev]"
  echo "$want" > "$stamp"
fi
