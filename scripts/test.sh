#!/usr/bin/env bash
# Command 2: install what is missing, then run the gates (ruff check and format, import layers, mypy), the
# whole pytest suite, and the fault suite again on the embedded default.
# PostgreSQL and Redis are used when DATABASE_URL / REDIS_URL point at them
# (.ci/run does); if unset, the local ones are (started first when installed but down).
# With neither installed: SQLite and the filesystem broker.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh dev
PY=.venv/bin/python

# Debian packages the tests drive: Chromium for the browser tests (Playwright cannot
# download its own here), LibreOffice Calc, a real spreadsheet engine for the
# offline workbooks, and PgBouncer between the two-host test's hosts and PostgreSQL.
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -x /usr/bin/soffice ] || need+=(libreoffice-calc-nogui)
[ -x /usr/sbin/pgbouncer ] || need+=(pgbouncer)  # the two-host test's connection pooler
if [ ${#need[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "==> installing ${need[*]} (Debian) for the tests"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "${need[@]}" >/dev/null 2>&1 || (apt-get update -q >/dev/null && apt-get install -y -q "${need[@]}" >/dev/null)
fi

probe() { $PY - "$1" "$2" <<'PYEOF'
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=1).close()
except OSError:
    sys.exit(1)
PYEOF
}
if [ -z "${DATABASE_URL:-}" ] || { [ -z "${REDIS_URL:-}" ] && [ -z "${CELERY_BROKER_URL:-}" ]; }; then
  scripts/services_up.sh
fi
if [ -z "${DATABASE_URL:-}" ] && probe 127.0.0.1 5432; then
  # a name of this checkout: two checkouts on one server never share a test database
  export DATABASE_URL="postgres://postgres@127.0.0.1:5432/teamllm_$(pwd | md5sum | cut -c1-8)"
fi
if [ -z "${REDIS_URL:-}" ] && [ -z "${CELERY_BROKER_URL:-}" ] && probe 127.0.0.1 6379; then
  export REDIS_URL="redis://127.0.0.1:6379/0"
fi
echo "==> database: ${DATABASE_URL:-sqlite (var/)}   broker: ${REDIS_URL:-${CELERY_BROKER_URL:-filesystem (var/broker)}}"

echo "==> ruff"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
echo "==> import layers and cycles (import-linter)"
.venv/bin/lint-imports --no-cache
echo "==> types (mypy: every module; the exceptions are named in pyproject)"
.venv/bin/mypy
echo "==> pytest"
if [ $# -gt 0 ] || [ -z "${DATABASE_URL:-}" ]; then
  exec .venv/bin/pytest "$@"  # a chosen subset, or the whole suite already on the embedded default
fi
status=0
.venv/bin/pytest || status=$?
# The fault suite (tests marked `fault`: workers killed, frozen and gone, the broker and the
# database away, the provider down 60 s) again on the embedded default `make run` uses.
echo "==> the fault suite again on the embedded default (SQLite, filesystem broker)"
env -u DATABASE_URL -u REDIS_URL -u CELERY_BROKER_URL TEST_SESSION_ID="${TEST_SESSION_ID:-local}-embedded" \
  .venv/bin/pytest -m fault || status=$?
exit "$status"
