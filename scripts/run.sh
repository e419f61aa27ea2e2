#!/usr/bin/env bash
# Command 1: set up and run the whole app in the foreground (web + worker + LLM stub).
# Embedded defaults: SQLite in var/ and, as broker, a Redis this script starts itself in
# var/redis when `redis-server` is installed (else kombu's filesystem broker in var/broker,
# with remote control off: its concurrent control messages are what raced). If
# DATABASE_URL / REDIS_URL are set, they are used instead. The three processes are
# supervised: a worker or stub that dies is logged and restarted; the web server stays up.
# Ctrl-C stops everything.
# `scripts/run.sh --empty` (make start) is the same without the demo: its own data in var/lab,
# no demo accounts, and an admin account asked for on the terminal when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
EMPTY=0
if [ "${1:-}" = "--empty" ]; then
  EMPTY=1
  export DEMO_MODE=0
  export TEAMLLM_VAR_DIR="${TEAMLLM_VAR_DIR:-var/lab}"
fi
scripts/bootstrap.sh
export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-teamllm_web.settings.local}"
export DEMO_MODE="${DEMO_MODE:-1}"
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
STUB_PORT="${LLM_STUB_PORT:-8765}"
REDIS_PORT="${RUN_REDIS_PORT:-6390}"
VAR="${TEAMLLM_VAR_DIR:-var}"
export LLM_STUB_URL="${LLM_STUB_URL:-http://127.0.0.1:${STUB_PORT}/v1}"
PY=.venv/bin/python

# A taken port is said at once, with the setting that picks another.
port_taken() {
  $PY - "$1" "$2" <<'PYEOF'
import socket, sys
with socket.socket() as s:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind((sys.argv[1], int(sys.argv[2])))
    except OSError:
        sys.exit(0)
sys.exit(1)
PYEOF
}
check_port() {  # host port setting
  if port_taken "$1" "$2"; then
    echo "==> port $2 on $1 is taken (another 'make run'?): choose another with $3, e.g. $3=$(($2 + 1)) make run" >&2
    exit 2
  fi
}
check_port "$HOST" "$PORT" PORT
if [ -f devtools/llm_stub.py ] && [ "$LLM_STUB_URL" = "http://127.0.0.1:${STUB_PORT}/v1" ]; then
  check_port 127.0.0.1 "$STUB_PORT" LLM_STUB_PORT
fi

cleanup() {
  trap - INT TERM EXIT
  echo; echo "==> stopping"
  for pid in ${web:-} ${worker:-} ${stub:-} ${redis:-}; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap "cleanup; exit 0" INT TERM  # Ctrl-C is the normal way to stop: not an error

redis=""
if [ -z "${REDIS_URL:-}" ] && [ -z "${CELERY_BROKER_URL:-}" ]; then
  # RUN_BROKER=filesystem chooses the filesystem broker even where redis-server is installed.
  if [ "${RUN_BROKER:-}" != "filesystem" ] && command -v redis-server >/dev/null; then
    check_port 127.0.0.1 "$REDIS_PORT" RUN_REDIS_PORT
    mkdir -p "$VAR/redis"
    # Its own Redis, kept in var/redis (append-only file): the broker, cache and leases.
    redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$VAR/redis" --appendonly yes \
      --save "" --loglevel warning --logfile redis.log &
    redis=$!
    export REDIS_URL="redis://127.0.0.1:${REDIS_PORT}/0"
    for _ in $(seq 100); do
      redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break
      sleep 0.1
    done
  else
    echo "==> no redis-server (or RUN_BROKER=filesystem): kombu's filesystem broker in $VAR/broker (remote control off)"
    export CELERY_WORKER_REMOTE_CONTROL=0
  fi
fi

$PY manage.py migrate --noinput -v0
if [ "$EMPTY" = 1 ]; then
  if ! $PY manage.py shell -c "from django.contrib.auth import get_user_model as m; raise SystemExit(0 if m().objects.filter(is_superuser=True, is_active=True).exists() else 1)" 2>/dev/null; then
    if [ -t 0 ]; then
      echo "==> no admin account yet: make one (its password must pass the same checks as everyone's)"
      $PY manage.py createsuperuser
    else
      echo "==> no admin account yet, and no terminal to ask on: run" >&2
      echo "    TEAMLLM_VAR_DIR=$TEAMLLM_VAR_DIR DEMO_MODE=0 .venv/bin/python manage.py createsuperuser" >&2
    fi
  fi
else
  $PY manage.py seed_demo
fi

start_stub() {
  $PY -m devtools.llm_stub --port "$STUB_PORT" --latency-ms "${LLM_STUB_LATENCY_MS:-50}" &
  stub=$!
}
start_worker() {
  # --quiet: no banner, which would push the URL and logins off the screen
  $PY -m celery -A teamllm_web --quiet worker -l "${WORKER_LOG_LEVEL:-warning}" --pool=threads \
    -c "${WORKER_CONCURRENCY:-8}" &
  worker=$!
}
stub=""
# The stub is a development tool (devtools/), not part of the app: start it when it is there.
if [ -f devtools/llm_stub.py ]; then start_stub; fi
start_worker
$PY manage.py runserver "$HOST:$PORT" --noreload &
web=$!

# The URL is printed once the server answers (not before): /healthz, up to two minutes.
if ! $PY - "http://$HOST:$PORT/healthz" "$web" <<'PYEOF'
import os, sys, time, urllib.request
for _ in range(1200):
    try:
        os.kill(int(sys.argv[2]), 0)
    except OSError:
        sys.exit(1)  # the server exited: no use waiting
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=2) as reply:
            if reply.status == 200:
                sys.exit(0)
    except OSError:
        pass
    time.sleep(0.1)
sys.exit(1)
PYEOF
then
  echo "==> the web server did not answer on http://$HOST:$PORT/healthz" >&2
  exit 1
fi
# what a management command run from another shell needs to reach the same data and broker
BESIDE="TEAMLLM_VAR_DIR=$VAR${DATABASE_URL:+ DATABASE_URL=$DATABASE_URL}${REDIS_URL:+ REDIS_URL=$REDIS_URL} .venv/bin/python manage.py ..."
if [ "$EMPTY" = 1 ]; then
  cat <<MSG

  teamllm-web is running:  http://$HOST:$PORT/   (no demo; data in $TEAMLLM_VAR_DIR)
  health:                  http://$HOST:$PORT/healthz

  Log in with your admin account, then follow docs/admins.md ("Running your own study").
  The LLM stub answers at $LLM_STUB_URL for a first try of generation (endpoint base URL).

  Ctrl-C stops the web server, the worker and the LLM stub.
  A command beside it: $BESIDE
MSG
else
cat <<MSG

  teamllm-web is running:  http://$HOST:$PORT/
  health:                  http://$HOST:$PORT/healthz

  Demo logins (password demo-pass-2026):
    admin       manage studies, assignments, generation
    rater1      score the demo response (pair with rater2)
    rater2
    calibrator  third rater for calibration
    researcher  agreement, tables, figures, exports

  Ctrl-C stops the web server, the worker and the LLM stub.
  A command beside it: $BESIDE
MSG
fi

# Supervision: the web server's exit ends the run; a worker or stub that exits is logged and
# started again (a worker that keeps dying waits a little longer each time, up to 30 s).
restarts=0
while true; do
  if ! kill -0 "$web" 2>/dev/null; then
    wait "$web" && code=0 || code=$?
    echo "==> the web server exited (code $code): stopping" >&2
    exit 1
  fi
  if ! kill -0 "$worker" 2>/dev/null; then
    wait "$worker" && code=0 || code=$?
    restarts=$((restarts + 1))
    delay=$((restarts < 30 ? restarts : 30))
    echo "==> $(date '+%F %T') the Celery worker exited (code $code); restarting it in ${delay}s (restart $restarts)" >&2
    sleep "$delay"
    start_worker
  fi
  if [ -n "$stub" ] && ! kill -0 "$stub" 2>/dev/null; then
    wait "$stub" && code=0 || code=$?
    echo "==> $(date '+%F %T') the LLM stub exited (code $code); restarting it" >&2
    start_stub
  fi
  if [ -n "$redis" ] && ! kill -0 "$redis" 2>/dev/null; then
    echo "==> $(date '+%F %T') redis-server exited; restarting it (the outbox sends what it lost)" >&2
    redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$VAR/redis" --appendonly yes \
      --save "" --loglevel warning --logfile redis.log &
    redis=$!
  fi
  sleep 1
done
