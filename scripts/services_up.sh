#!/usr/bin/env bash
# Start the local PostgreSQL (5432) and Redis (6379) when they are installed but not running;
# do nothing for a service that answers or is not installed. Used by .ci/run and scripts/test.sh.
set -uo pipefail

pg_up() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ] && ! pg_up; then
  echo "==> starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | tail -1)" main start || true
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
fi
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }
if command -v redis-server >/dev/null && ! redis_up; then
  echo "==> starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
  for _ in $(seq 1 30); do redis_up && break; sleep 1; done
fi
exit 0
