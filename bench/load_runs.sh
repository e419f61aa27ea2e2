#!/usr/bin/env bash
# The load-test runs of bench/README.md against a server started by bench/load_server.sh:
#   bench/load_runs.sh LABEL [OUT.jsonl]
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
LABEL="$1"
OUT="${2:-$HERE/var/load/results.jsonl}"
PID="$(cat "$HERE/var/load/gunicorn.pid")"
run() { "$HERE/.venv/bin/python" "$HERE/bench/load_test.py" --server-pid "$PID" --label "$LABEL" --json "$OUT" "$@"; }
run --mode whole --raters 1 --duration "${WHOLE_SECONDS:-20}"
run --mode whole --raters 8 --duration "${WHOLE_SECONDS:-20}"
run --mode rater --raters 1 --duration "${RATER_SECONDS:-60}"
run --mode rater --raters 8 --duration "${RATER_SECONDS:-60}"
run --mode rater --raters 50 --duration "${RATER_SECONDS:-60}"
