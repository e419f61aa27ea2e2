#!/usr/bin/env bash
# The load-test runs of bench/README.md against a server started by bench/load_server.sh:
#   bench/load_runs.sh LABEL [OUT.jsonl]
# PORT and LOAD_DB as given to load_server.sh (defaults 8100, teamllm_load); RUN_DIR: the var/load of
# the checkout load_server.sh ran in (its gunicorn.pid), default this one's.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
LABEL="$1"
OUT="${2:-$HERE/var/load/results.jsonl}"
PID="$(cat "${RUN_DIR:-$HERE/var/load}/gunicorn.pid")"
run() {
  "$HERE/.venv/bin/python" "$HERE/bench/load_test.py" --url "http://127.0.0.1:${PORT:-8100}" --server-pid "$PID" \
    --pg-database "${LOAD_DB:-teamllm_load}" --label "$LABEL" --json "$OUT" "$@"
}
run --mode whole --raters 1 --duration "${WHOLE_SECONDS:-20}"
run --mode whole --raters 8 --duration "${WHOLE_SECONDS:-20}"
run --mode rater --raters 1 --duration "${RATER_SECONDS:-60}"
run --mode rater --raters 8 --duration "${RATER_SECONDS:-60}"
run --mode rater --raters 50 --duration "${RATER_SECONDS:-60}"
