#!/usr/bin/env bash
# Clone to login page: `git clone` of a checkout into a new folder, then `make run` until
# GET /accounts/login/ answers 200. Prints each line of `make run` with the seconds since
# the clone started, then the total; stops everything it started.
#
#   bench/clone_to_login.sh [SOURCE] [BRANCH]     # defaults: this checkout, its current branch
#   PORT=8123 LLM_STUB_PORT=8799 ...              # ports of the web server and the LLM stub
#   PIP_NO_CACHE_DIR=1 ...                        # pip without its cache ("cold"); uv: UV_NO_CACHE=1
#
# The app's defaults are used (SQLite and the filesystem broker under var/): DATABASE_URL and
# REDIS_URL are unset for the run.
set -euo pipefail
SOURCE="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
BRANCH="${2:-$(git -C "$SOURCE" rev-parse --abbrev-ref HEAD)}"
PORT="${PORT:-8123}"
export LLM_STUB_PORT="${LLM_STUB_PORT:-8799}"
DEST="$(mktemp -d /tmp/clone-to-login.XXXXXX)"
LOG="$DEST.log"
unset DATABASE_URL REDIS_URL CELERY_BROKER_URL

stop_all() {
  cd /  # this script's own folder is under DEST too
  for p in /proc/[0-9]*; do
    cwd="$(readlink "$p/cwd" 2>/dev/null || true)"
    [[ "$cwd" == "$DEST"* ]] && kill -9 "${p#/proc/}" 2>/dev/null || true
  done
}
trap stop_all EXIT

url="http://127.0.0.1:$PORT/accounts/login/"
if curl -s -o /dev/null "$url"; then
  echo "something already answers on port $PORT: choose another PORT" >&2
  exit 1
fi
start=$(date +%s.%N)
since() { awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.1f", a - b }'; }
git clone -q --branch "$BRANCH" "$SOURCE" "$DEST/app"
printf '%6.1f s  cloned %s (%s)\n' "$(since)" "$SOURCE" "$BRANCH"
cd "$DEST/app"
(PORT="$PORT" make run 2>&1 | while IFS= read -r line; do
  printf '%6.1f s  %s\n' "$(since)" "$line"
done) >"$LOG" &
for _ in $(seq 1 6000); do
  code="$(curl -s -o /dev/null -w '%{http_code}' "$url" 2>/dev/null || true)"
  if [ "$code" = 200 ]; then
    answered=$(since)
    break
  fi
  sleep 0.2
done
sleep 1
cat "$LOG"
if [ -z "${answered:-}" ]; then
  echo "the login page did not answer" >&2
  exit 1
fi
printf 'clone to login page: %s s; .venv %s; load average %s\n' \
  "$answered" "$(du -sh .venv | cut -f1)" "$(cut -d' ' -f1-3 /proc/loadavg)"
