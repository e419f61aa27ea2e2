"""gunicorn's settings for the web service (read from the working directory: /app in the image).

Chosen from measurements (bench/README.md; docs/operators.md, "Sizing the web server"): threaded workers, one
process per core with 4 threads each, served as many requests per second as three
sync processes with lower tail latency, in about a quarter less memory. A request
spends much of its time waiting for PostgreSQL, which threads overlap; processes
are what use more than one core (Python runs one thread at a time per process).

Size it with two variables: ``WEB_CONCURRENCY`` processes (default: the number of
cores, at least 2) and ``GUNICORN_THREADS`` threads each (default 4). Every thread
holds a database connection: keep processes x threads within the database's
connection limit.
"""

import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY") or max(2, os.cpu_count() or 1))
threads = int(os.environ.get("GUNICORN_THREADS") or 4)
timeout = 120

# Prometheus (docs/operators.md, "Metrics"): with PROMETHEUS_MULTIPROC_DIR set, every process
# writes its request and database metrics there and /metrics adds them up; the directory is
# emptied when gunicorn starts and a dead process's live gauges are dropped.
_metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")


def on_starting(server):
    if _metrics_dir:
        os.makedirs(_metrics_dir, exist_ok=True)
        for name in os.listdir(_metrics_dir):
            if name.endswith(".db"):
                os.remove(os.path.join(_metrics_dir, name))


def child_exit(server, worker):
    if _metrics_dir:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
