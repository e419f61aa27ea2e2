"""Which environment variables an endpoint may read its API key from."""

from __future__ import annotations

from django.conf import settings

# Keyless local servers (the stub, vLLM, Ollama) still need a non-empty string.
NO_KEY = "not-needed"

# ``<key variable>_HOSTS`` binds a key to its hosts (core.llm.egress): a binding, never a key.
BINDING_SUFFIX = "_HOSTS"


def api_key_env_allowed(name: str) -> bool:
    """Whether an endpoint may read its key from the environment variable ``name``: only
    variables whose name starts with ``settings.LLM_KEY_ENV_PREFIX`` (and goes on after
    it) and that are not a key's host binding (``..._HOSTS``); an empty name means no key
    (local servers such as the bundled stub)."""
    prefix = settings.LLM_KEY_ENV_PREFIX
    if not name:
        return True
    return bool(
        prefix and name.startswith(prefix) and len(name) > len(prefix) and not name.endswith(BINDING_SUFFIX)
    )
