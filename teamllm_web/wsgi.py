import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teamllm_web.settings.local")
application = get_wsgi_application()

# Imported once the apps are loaded. The scoring page's widgets take a second or two to build
# in each web process: build them now, in the background, not in the first raters' requests.
from scoring.views.sheet_widgets import sheet_widgets_warm  # noqa: E402

sheet_widgets_warm()

# With every worker gone nobody sweeps stuck runs: the web processes give them their deadline.
import functools  # noqa: E402

from django.conf import settings  # noqa: E402

from core.tasks.periodic import periodic  # noqa: E402
from generation.services.recovery import jobs_fail_orphaned  # noqa: E402

periodic().every(
    30.0,
    name="orphan deadlines",
    run=functools.partial(jobs_fail_orphaned, queue=settings.CELERY_TASK_DEFAULT_QUEUE),
    now=False,
)
