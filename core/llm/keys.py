"""Which environment variables an endpoint may read its API key from."""

from __future__ import annotations

from django.conf import settings


def api_key_env_allowed(name: str) -> bool:
    """Whether an endpoint may read its key from the environment variable ``name``: only
    variables whose name starts with ``settings.LLM_KEY_ENV_PREFIX`` (and goes on after
    it); an empty name means no key (local servers such as the bundled stub)."""
    prefix = settings.LLM_KEY_ENV_PREFIX
    return not name or bool(prefix and name.startswith(prefix) and len(name) > len(prefix))
