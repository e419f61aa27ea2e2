"""Scraping /metrics in tests: the exposition parsed by prometheus_client's own parser."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

TOKEN = "metrics-test-token-0123456789"


def scrape(client, token: str = TOKEN) -> dict[tuple[str, frozenset], float]:
    """Every sample of /metrics, by (sample name, labels)."""
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def families(client, token: str = TOKEN) -> set[str]:
    """The names of the metric families /metrics exports (with and without samples)."""
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {token}")
    return {family.name for family in text_string_to_metric_families(response.content.decode())}


def value(samples: dict, name: str, **labels: str) -> float:
    """One sample's value; 0 when absent (a counter with no rows yet)."""
    return samples.get((name, frozenset(labels.items())), 0.0)
