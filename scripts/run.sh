#!/usr/bin/env bash
# Command 1: set up and run the whole app in the foreground (web + worker + LLM stub).
# Embedded defaults: SQLite in var/, the filesystem broker in var/broker. If
# DATABASE_URL / REDIS_URL are set, they are used instead. Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-teamllm_web.settings.local}"
export DEMO_MODE="${DEMO_MODE:-1}"
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
STUB_PORT="${LLM_STUB_PORT:-8765}"
export LLM_STUB_URL="${LLM_STUB_URL:-http://127.0.0.1:${STUB_PORT}/v1}"
PY=.venv/bin/python

$PY manage.py migrate --noinput -v0
$PY manage.py seed_demo

pids=()
cleanup() {
  trap - INT TERM EXIT
  echo; echo "==> stopping"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap "cleanup; exit 0" INT TERM  # Ctrl-C is the normal way to stop: not an error

# The stub is a development tool (devtools/), not part of the app: start it when it is there.
if [ -f devtools/llm_stub.py ]; then
  $PY -m devtools.llm_stub --port "$STUB_PORT" --latency-ms "${LLM_STUB_LATENCY_MS:-50}" &
  pids+=($!)
fi
$PY -m celery -A teamllm_web worker -l "${WORKER_LOG_LEVEL:-warning}" --pool=threads -c "${WORKER_CONCURRENCY:-8}" &
pids+=($!)
$PY manage.py runserver "$HOST:$PORT" --noreload &
pids+=($!)

# The URL is printed once the server answers (not before): /healthz, up to two minutes.
if ! $PY - "http://$HOST:$PORT/healthz" <<'PYEOF'
import sys, time, urllib.request
for _ in range(1200):
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
MSG
wait -n "${pids[@]}"
