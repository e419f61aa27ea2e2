import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _no_link_failures_counted():
    """Each test starts with no unusable invitation links counted (django-ratelimit's counts,
    keys starting "rl:", live in the shared cache across tests; this process's own prefix)."""
    cache.delete_pattern("rl:*")
