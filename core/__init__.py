"""Shared infrastructure under every app: the task outbox and periodic jobs (``core.tasks``),
the roles (``core.accounts``), the LLM client and endpoint leases (``core.llm``) and database
helpers (``core.db``). It imports no product app; the apps import it."""
