#!/usr/bin/env bash
# The server side of the load test: a fresh database with the load data, a private
# Redis (the broker the submits' tasks go to: never a shared one), and gunicorn with the
# production settings, as the Dockerfile runs it. Prints gunicorn's pid; stop with
#   kill "$(cat var/load/gunicorn.pid)" "$(cat var/load/redis.pid)"
#
#   bench/load_server.sh [CODE_DIR]     (CODE_DIR: a checkout to serve, default this one)
# Environment: PGURL (server, default postgres://postgres@127.0.0.1:5432), LOAD_DB
# (default teamllm_load), KEEP_DB (1: keep the data, restart gunicorn only), PORT (8100), REDIS_PORT (6391), and gunicorn's own
# GUNICORN_ARGS, e.g. "--workers 3" or "--worker-class gthread --workers 2 --threads 4" (default:
# none, so gunicorn.conf.py of the served checkout decides).
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
CODE="$(cd "${1:-$HERE}" && pwd)"
PGURL="${PGURL:-postgres://postgres@127.0.0.1:5432}"
LOAD_DB="${LOAD_DB:-teamllm_load}"
PORT="${PORT:-8100}"
REDIS_PORT="${REDIS_PORT:-6391}"
RUN="$HERE/var/load"
mkdir -p "$RUN"
PY="$HERE/.venv/bin/python"

# A gunicorn this script started before is stopped first (and waited for: the port is freed).
if [ -s "$RUN/gunicorn.pid" ] && kill -0 "$(cat "$RUN/gunicorn.pid")" 2>/dev/null; then
  old="$(cat "$RUN/gunicorn.pid")"
  kill "$old"
  while kill -0 "$old" 2>/dev/null; do sleep 0.2; done
fi
if [ -z "${KEEP_DB:-}" ]; then  # KEEP_DB=1: restart gunicorn on the data as it is
  psql "$PGURL/postgres" -qc "DROP DATABASE IF EXISTS $LOAD_DB WITH (FORCE)" -c "CREATE DATABASE $LOAD_DB"
fi

# A Redis on REDIS_PORT (the one an earlier run started, on that port: a Redis left on another
# port is not this server's broker).
if ! redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; then
  redis-server --port "$REDIS_PORT" --save "" --appendonly no --daemonize yes \
    --pidfile "$RUN/redis.pid" --logfile "$RUN/redis.log"
  for _ in $(seq 1 50); do redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
fi

export DJANGO_SETTINGS_MODULE=teamllm_web.settings.production
export SECRET_KEY="load-test-only-key-4f9c2a7e1b8d6035-not-for-any-real-server"
export DATABASE_URL="$PGURL/$LOAD_DB" REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
export SECURE_SSL_REDIRECT=0 SECURE_HSTS_SECONDS=0 ALLOWED_HOSTS=127.0.0.1,localhost
export TEAMLLM_VAR_DIR="$RUN/var" STATIC_ROOT="$RUN/static" CELERY_QUEUE=load LOG_LEVEL=WARNING
export AXES_FAILURE_LIMIT=1000 MPLCONFIGDIR="$RUN/mpl"
cd "$CODE"
if [ -z "${KEEP_DB:-}" ]; then
  "$PY" manage.py migrate --noinput -v0
  "$PY" manage.py collectstatic --noinput -v0
  "$PY" "$HERE/bench/load_seed.py" --raters "${RATERS:-50}" --responses "${RESPONSES:-12}"
fi
started=$(date +%s.%N)
# shellcheck disable=SC2086
"$HERE/.venv/bin/gunicorn" teamllm_web.wsgi:application --bind "127.0.0.1:$PORT" --timeout 120 \
  --pid "$RUN/gunicorn.pid" --daemon --error-logfile "$RUN/gunicorn.log" ${GUNICORN_ARGS:-}
for _ in $(seq 1 300); do
  curl -fs "http://127.0.0.1:$PORT/accounts/login/" >/dev/null 2>&1 && break
  sleep 0.1
done
echo "gunicorn answered the login page after $(echo "$(date +%s.%N) - $started" | bc) s" >&2
cat "$RUN/gunicorn.pid"
