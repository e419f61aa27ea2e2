#!/usr/bin/env bash
# Paired load runs of two checkouts on one machine, the sides alternating every run, so that a
# change in the machine's speed falls on both: both servers up (each its own database, Redis
# and port), then ROUNDS rounds of whole-sheet runs (1 rater: before, after; 8 raters: after,
# before) and DAY_ROUNDS rounds of 8-rater days (before, after). One JSON line per run in OUT.
#
#   bench/load_pairs.sh BEFORE_DIR [OUT.jsonl]
# BEFORE_DIR: a checkout of the old commit sharing this venv (see bench/README.md).
# Environment: ROUNDS (3), DAY_ROUNDS (2), WHOLE_SECONDS (20), RATER_SECONDS (60).
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
BEFORE="$(cd "$1" && pwd)"
OUT="${2:-$HERE/var/load/pairs.jsonl}"
export SHEET_SAVES_PER_SECOND=0  # the whole-sheet mode saves faster than the ceiling allows
(cd "$BEFORE" && PORT=8111 REDIS_PORT=6393 LOAD_DB=teamllm_load_before bash bench/load_server.sh)
(cd "$HERE" && bash bench/load_server.sh)

run() {  # SIDE LABEL load_test.py arguments...
  local side=$1 label=$2 port=8100 db=teamllm_load dir="$HERE"
  shift 2
  if [ "$side" = before ]; then port=8111 db=teamllm_load_before dir="$BEFORE"; fi
  echo "$(date +%T) load $(cut -d' ' -f1 /proc/loadavg): $side $label" >&2
  "$HERE/.venv/bin/python" "$HERE/bench/load_test.py" --url "http://127.0.0.1:$port" \
    --server-pid "$(cat "$dir/var/load/gunicorn.pid")" --pg-database "$db" --label "$side-$label" \
    --json "$OUT" "$@"
}
for i in $(seq 1 "${ROUNDS:-3}"); do
  run before "w1-$i" --mode whole --raters 1 --duration "${WHOLE_SECONDS:-20}"
  run after "w1-$i" --mode whole --raters 1 --duration "${WHOLE_SECONDS:-20}"
  run after "w8-$i" --mode whole --raters 8 --duration "${WHOLE_SECONDS:-20}"
  run before "w8-$i" --mode whole --raters 8 --duration "${WHOLE_SECONDS:-20}"
done
for i in $(seq 1 "${DAY_ROUNDS:-2}"); do
  run before "r8-$i" --mode rater --raters 8 --duration "${RATER_SECONDS:-60}"
  run after "r8-$i" --mode rater --raters 8 --duration "${RATER_SECONDS:-60}"
done
kill "$(cat "$BEFORE/var/load/gunicorn.pid")" "$(cat "$HERE/var/load/gunicorn.pid")"
