from django.urls import path, re_path

from api.views import batches, imports, pages, writes  # noqa: F401 - these add their endpoints to v1's API
from api.views.auth import api_unknown
from api.views.v1 import api

app_name = "api"

urlpatterns = [
    path("api/tokens/", pages.tokens_page, name="tokens"),
    path("api/tokens/<id:token_id>/revoke", pages.token_revoke_view, name="token_revoke"),
]

# the versioned API (its own namespace, "api-v1": docs at /api/v1/docs, schema at /api/v1/openapi.json)
# (its root and every address that is no endpoint: JSON, and 401 to an anonymous caller)
api_urls = [
    path("api/v1/", api_unknown),
    path("api/v1/", api.urls),
    re_path(r"^api/v1/(?P<rest>.*)$", api_unknown),
]
