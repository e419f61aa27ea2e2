#!/usr/bin/env bash
# Create .venv and install the pinned dependencies (only when they changed).
#   scripts/bootstrap.sh        what running the app needs (make run)
#   scripts/bootstrap.sh dev    plus the development extras: pytest, Playwright, ruff, mypy (make test),
#                               and LiteLLM's proxy for the gateway tests in var/tools/litellm
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
gateway_tool() {
  # LiteLLM's proxy, the real gateway of the gateway tests (tests/gateway.py), in its own
  # environment: its pins (gunicorn<24, rich<14) conflict with requirements.lock.
  local dir=var/tools/litellm gwant
  gwant="$(sha256sum requirements-gateway.lock | cut -d' ' -f1)"
  if [ "$(cat "$dir/.teamllm-installed" 2>/dev/null || true)" = "$gwant" ]; then return; fi
  echo "==> installing LiteLLM's proxy for the gateway tests into $dir (requirements-gateway.lock)"
  mkdir -p var/tools
  [ -x "$dir/bin/python" ] || .venv/bin/python -m venv "$dir"
  if [ -x .venv/bin/uv ] || command -v uv >/dev/null; then
    "$(command -v uv || echo .venv/bin/uv)" pip install -q --python "$dir/bin/python" -r requirements-gateway.lock
  else
    "$dir/bin/python" -m pip install -q --disable-pip-version-check -r requirements-gateway.lock
  fi
  echo "$gwant" > "$dir/.teamllm-installed"
}
if [ "$have" = "$want dev" ] || { [ "$extras" = runtime ] && [ "$have" = "$want runtime" ]; }; then
  if [ "$extras" = dev ]; then gateway_tool; fi
  exit 0
fi
# uv installs the lock several times faster than pip (parallel downloads and unpacking; it
# compiles the bytecode too, below): the one on PATH, or one put into .venv by pip. pip installs
# it all itself when uv cannot be had (UV=0 forces that).
uv=""
if [ "${UV:-1}" != 0 ]; then
  if command -v uv >/dev/null; then
    uv="$(command -v uv)"
  elif [ -x .venv/bin/uv ] || .venv/bin/python -m pip install -q --disable-pip-version-check "uv>=0.5,<1" >/dev/null 2>&1; then
    uv=.venv/bin/uv
  fi
fi
install() {
  # --compile-bytecode: pip compiles every module at install, uv does not; where
  # PYTHONDONTWRITEBYTECODE is set (as on this project's machines and in the image) an
  # uncompiled venv compiles all of Django, Celery, redis, ... on every process start
  # (gunicorn's start took more than twice as long)
  if [ -n "$uv" ] && "$uv" pip install -q --compile-bytecode --python .venv/bin/python -c requirements.lock "$@"; then
    return
  fi
  # A current pip: the one a new venv brings (23.x with Python 3.11) resolves and installs
  # the same lock more slowly.
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install -q --disable-pip-version-check -c requirements.lock "$@"
}
if [ "$extras" = dev ]; then
  echo "==> installing dependencies and development tools (pinned by requirements.lock${uv:+, with uv})"
  install -e ".[dev]"
  gateway_tool
else
  echo "==> installing dependencies (pinned by requirements.lock${uv:+, with uv}; make test adds the development tools)"
  install -e .
fi
echo "$want $extras" > "$stamp"
