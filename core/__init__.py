"""Shared infrastructure under every app: the task outbox and periodic jobs (``core.tasks``),
the roles (``core.accounts``) and the LLM client and endpoint leases (``core.llm``). It imports
no product app; the apps import it."""
