import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teamllm_web.settings.local")
application = get_wsgi_application()

# Imported once the apps are loaded. The scoring page's widgets take a second or two to build
# in each web process: build them now, in the background, not in the first raters' requests.
from scoring.views.sheet_widgets import sheet_widgets_warm  # noqa: E402

sheet_widgets_warm()
