"""What the LLM client reads of an endpoint: the settings of studies' ``ModelEndpoint`` (the
infrastructure imports no product app), or of an unsaved copy a connection test builds."""

from __future__ import annotations

from typing import Any, Protocol


class Endpoint(Protocol):
    """The endpoint settings a call needs. The pacing fields (``requests_per_minute``,
    ``tokens_per_minute``, ``retry_budget_seconds``) are optional and read with ``getattr``."""

    @property
    def pk(self) -> Any: ...  # None on an unsaved copy

    @property
    def name(self) -> str: ...

    @property
    def base_url(self) -> str: ...

    @property
    def model_name(self) -> str: ...

    @property
    def api_key_env(self) -> str: ...

    @property
    def timeout_seconds(self) -> float: ...

    @property
    def extra_params(self) -> Any: ...  # a JSON object, or None
