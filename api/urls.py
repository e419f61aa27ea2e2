from django.urls import path

from api.views import batches, imports, pages, writes  # noqa: F401 - these add their endpoints to v1's API
from api.views.v1 import api

app_name = "api"

urlpatterns = [
    path("api/tokens/", pages.tokens_page, name="tokens"),
    path("api/tokens/<int:token_id>/revoke", pages.token_revoke_view, name="token_revoke"),
]

# the versioned API (its own namespace, "api-v1": docs at /api/v1/docs, schema at /api/v1/openapi.json)
api_urls = [path("api/v1/", api.urls)]
