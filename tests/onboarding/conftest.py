import pytest


@pytest.fixture(autouse=True)
def _no_link_failures_counted(fresh_rate_counts):
    """Each test starts with no unusable invitation links counted (they live in the shared
    cache, across tests and runs)."""
