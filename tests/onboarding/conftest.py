import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _no_link_failures_counted():
    """Each test starts with no unusable invitation links counted for the test client's
    address (the counter lives in the shared cache, across tests and runs)."""
    for address in ("127.0.0.1", "unknown", "203.0.113.7"):
        cache.delete(f"onboarding:link-failures:{address}")
