"""Send Celery tasks by name once the current transaction commits.

Services enqueue through here so that they never import task modules (tasks import
services, never the other way round), and web processes never import a worker's code."""

from __future__ import annotations

from celery import current_app
from django.db import transaction


def task_send_on_commit(*, name: str, args: tuple = ()) -> None:
    app = current_app
    if app.conf.task_always_eager:  # debugging: run in-process like .delay() would
        transaction.on_commit(lambda: app.tasks[name].apply(args=args))
    else:
        transaction.on_commit(lambda: app.send_task(name, args=list(args)))
