#!/usr/bin/env bash
# Command 2: install what is missing, then run the gates (ruff check and format, import layers, mypy), the
# whole pytest suite, and the fault suite again on the embedded default.
# PostgreSQL and Redis are used when DATABASE_URL / REDIS_URL point at them
# (.ci/run does); if unset, the local ones are (started first when installed but down).
# With neither installed: SQLite and the filesystem broker.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh dev
# The suite starts hundreds of Python processes (pytest's, workers, servers, children): they keep the
# bytecode of the project's modules and of pytest's rewritten tests (in __pycache__, ignored by git
# and by the image), where this machine's PYTHONDONTWRITEBYTECODE would have each compile it again.
unset PYTHONDONTWRITEBYTECODE
PY=.venv/bin/python

# Debian packages the tests drive: Chromium for the browser tests (Playwright cannot
# download its own here), LibreOffice Calc, a real spreadsheet engine for the
# offline workbooks, PgBouncer between the two-host test's hosts and PostgreSQL, and node.
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -x /usr/bin/soffice ] || need+=(libreoffice-calc-nogui)
[ -x /usr/sbin/pgbouncer ] || need+=(pgbouncer)  # the two-host test's connection pooler
[ -x /usr/bin/node ] || need+=(nodejs)  # the scoring page's rules checked in node (tests/js)
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

# Each phase prints its time. Two processes (pytest-xdist, `TEST_PROCESSES`) share the machine's
# two cores, three in phase 2 (`BROWSER_PROCESSES`); each has its own test database
# (test_<name>_gw0, ...), Celery queue and Redis prefix.
started=$SECONDS
phase_done() { echo "==> $1: $((SECONDS - $2)) s"; }
N="${TEST_PROCESSES:-2}"
XDIST=(-n "$N" --dist load)
[ "$N" = 0 ] && XDIST=()
# Phase 2's browser tests leave the CPU idle a fifth of the time in two processes (waiting on pages,
# live servers and workers): one process more keeps the cores busy (docs/development.md).
case "$N" in
  0) N2=0 ;;
  *[!0-9]*) N2="${BROWSER_PROCESSES:-$N}" ;;  # pytest-xdist's own count (auto, logical)
  *) N2="${BROWSER_PROCESSES:-$((N + 1))}" ;;
esac
XDIST2=(-n "$N2" --dist load)
[ "$N2" = 0 ] && XDIST2=()
# Local runs keep the test databases between runs (--reuse-db: only new migrations are applied);
# CI (.ci/run sets TEST_FRESH_DB=1) builds them from the migrations every time.
DB_OPTS=(--reuse-db)
[ "${TEST_FRESH_DB:-0}" = 1 ] && DB_OPTS=(--create-db)
# Phase 2 takes the test databases phase 1 has just built, except where it runs more processes: the
# extra ones' databases may be an earlier run's. In CI they are dropped now (PostgreSQL), or else
# phase 2 builds all of its databases again.
PHASE2_DB=(--reuse-db)
if [ "${TEST_FRESH_DB:-0}" = 1 ] && [ "$N2" != "$N" ]; then
  PHASE2_DB=(--create-db)
  case "$N$N2" in *[!0-9]*) more="" ;; *) more=$((N2 > N)) ;; esac
  case "${more:-0}:${DATABASE_URL:-}" in 1:postgres*)
    db="${DATABASE_URL%%\?*}"
    db="${db%/}"
    dropped=1
    for i in $(seq "$N" $((N2 - 1))); do
      PGOPTIONS=--client-min-messages=warning dropdb --if-exists --force \
        --maintenance-db="$DATABASE_URL" "test_${db##*/}_gw$i" || dropped=""
    done
    [ -n "$dropped" ] && PHASE2_DB=(--reuse-db)
    ;;
  esac
fi

t=$SECONDS
echo "==> ruff"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
echo "==> import layers and cycles (import-linter)"
.venv/bin/lint-imports --no-cache
echo "==> types (mypy: every module; the exceptions are named in pyproject)"
.venv/bin/mypy
phase_done "gates" "$t"

if [ $# -gt 0 ]; then
  exec .venv/bin/pytest "${DB_OPTS[@]}" "$@"  # a chosen subset
fi
status=0
mkdir -p var/test-artefacts
# A phase in the background, its output kept in var/test-artefacts/<name>.log and printed after.
background() {
  local name=$1
  shift
  (
    t_bg=$SECONDS
    rc=0
    "$@" >"var/test-artefacts/$name.log" 2>&1 || rc=$?
    phase_done "$name" "$t_bg" >>"var/test-artefacts/$name.log"
    exit "$rc"
  ) &
}
finish() {  # wait for a background phase and print what it wrote
  local name=$1 pid=$2
  wait "$pid" || status=$?
  echo "==> $name's output:"
  cat "var/test-artefacts/$name.log"
}

# The lanes beside phases 1 and 2 run only on PostgreSQL (every SQLite test database is one file).
# Their sessions (Celery queue, Redis prefix) are named after this checkout unless CI names them,
# so two checkouts sharing a Redis never take each other's tasks.
lanes=""
case "${DATABASE_URL:-}" in postgres*) lanes=1 ;; esac
SESSION="${TEST_SESSION_ID:-local-$(pwd | md5sum | cut -c1-8)}"

# A lane beside phase 1: one process of its own, with its own test database (<url>_<name>) and session.
beside_phase1() {
  local name=$1 marker=$2 what=$3
  echo "==> pytest, $name (beside phase 1): $what, on ${DATABASE_URL%%://*}"
  background "$name" env DATABASE_URL="${DATABASE_URL%/}_$name" TEST_SESSION_ID="$SESSION-$name" \
    .venv/bin/pytest -n 0 "${DB_OPTS[@]}" -m "$marker" -p no:cacheprovider
  printf -v "${name}_pid" '%s' "$!"
}
# The fault suite (tests marked `fault`: workers killed, frozen and gone, the broker and the database
# away, the provider down 60 s) mostly waits out its outages; so do the other tests without a browser
# that wait on the processes they start (live Celery workers, the compose stack, two hosts, `make run`).
# Beside phase 1 they use the CPU phase 1 keeps busy (in phase 2 it sat idle).
WAITING="(worker or smoke) and not browser and not fault"
faults_pid=""
waiting_pid=""
if [ -n "$lanes" ]; then
  beside_phase1 faults "fault and not browser" "the fault suite's tests without a browser"
  beside_phase1 waiting "$WAITING" "worker and smoke tests without a browser"
fi

# Phase 1: everything that needs no browser, worker process or outage, in parallel.
SERIAL="browser or worker or fault or smoke"
t=$SECONDS
echo "==> pytest, phase 1: tests without a browser, worker or outage (${N} processes)"
.venv/bin/pytest "${XDIST[@]}" "${DB_OPTS[@]}" -m "not ($SERIAL)" || status=$?
phase_done "phase 1" "$t"

# Phase 3 (only after a run on PostgreSQL): the fault suite again on the embedded default `make
# run` uses (SQLite, the filesystem broker), beside phase 2.
phase3_pid=""
if [ -n "$lanes" ]; then
  echo "==> pytest, phase 3 (beside phase 2): the fault suite again on the embedded default (SQLite, filesystem broker)"
  background phase3 env -u DATABASE_URL -u REDIS_URL -u CELERY_BROKER_URL TEST_SESSION_ID="$SESSION-embedded" \
    .venv/bin/pytest "${XDIST[@]}" -m fault -p no:cacheprovider
  phase3_pid=$!
fi

# Phase 2: the browser tests (the worker, smoke and fault tests too when the lanes beside phase 1
# did not run): live servers, Chromium, Celery workers, brokers stopped and started.
# Each process has its own; the worker tests run last in each.
PHASE2="$SERIAL"
[ -n "$faults_pid" ] && PHASE2="($PHASE2) and not (fault and not browser)"
[ -n "$waiting_pid" ] && PHASE2="($PHASE2) and not ($WAITING)"
t=$SECONDS
echo "==> pytest, phase 2: $PHASE2 (${N2} processes)"
.venv/bin/pytest "${XDIST2[@]}" "${PHASE2_DB[@]}" -m "$PHASE2" || status=$?
phase_done "phase 2" "$t"
[ -n "$faults_pid" ] && finish faults "$faults_pid"
[ -n "$waiting_pid" ] && finish waiting "$waiting_pid"
[ -n "$phase3_pid" ] && finish phase3 "$phase3_pid"
phase_done "make test" "$started"
exit "$status"
