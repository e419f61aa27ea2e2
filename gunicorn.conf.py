"""gunicorn's settings for the web service (read from the working directory: /app in the image).

Chosen from measurements (bench/README.md; docs/operators.md, "Sizing the web server"): threaded workers, one
process per core with 4 threads each, served as many requests per second as three
sync processes with lower tail latency, in about a quarter less memory. A request
spends much of its time waiting for PostgreSQL, which threads overlap; processes
are what use more than one core (Python runs one thread at a time per process).

Size it with two variables: ``WEB_CONCURRENCY`` processes (default: the CPUs this
process may use, from its container's CPU quota and its CPU affinity, at least 2 and at
most 8: inside a container ``os.cpu_count()`` is the host's) and ``GUNICORN_THREADS``
threads each (default 4). Every thread holds a database connection: keep processes x
threads within the database's connection limit.
"""

import math
import os


def cpus_available(cpu_max: str = "/sys/fs/cgroup/cpu.max") -> int:
    """The CPUs this process may use: its affinity, bounded by a cgroup v2 CPU quota
    (``docker run --cpus``, compose ``cpus:``), which ``os.cpu_count()`` ignores."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    try:
        with open(cpu_max) as limits:
            quota, period = limits.read().split()[:2]
    except (OSError, ValueError):
        return cpus
    if quota != "max" and float(period) > 0:
        cpus = min(cpus, max(1, math.ceil(float(quota) / float(period))))
    return cpus


bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY") or min(8, max(2, cpus_available())))
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
