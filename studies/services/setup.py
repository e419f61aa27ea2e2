"""The standard conditions, model endpoints and role groups every installation starts with."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from studies.condition_labels import DEFAULT_CONDITION_NAMES
from studies.models import Condition, ModelEndpoint, Strategy

DEFAULT_CONDITIONS = [
    ("A", DEFAULT_CONDITION_NAMES["A"], Strategy.TEAMLLM),
    ("B", DEFAULT_CONDITION_NAMES["B"], Strategy.SINGLE),
    ("C", DEFAULT_CONDITION_NAMES["C"], Strategy.ABLATION),
    ("D", DEFAULT_CONDITION_NAMES["D"], Strategy.LLM_DISCUSSION),
    ("E", DEFAULT_CONDITION_NAMES["E"], Strategy.MAD),
    ("F", DEFAULT_CONDITION_NAMES["F"], Strategy.TEAMFUSION),
]

# The ten models of the paper's Table 3, numbered as in its research IDs (A05 = kimi-k2).
PAPER_MODELS = [
    ("01", "qwen3-instruct", "qwen3-235b-a22b-instruct-2507"),
    ("02", "qwen3-thinking", "qwen3-235b-a22b-thinking-2507"),
    ("03", "deepseek-v3", "DeepSeek-V3-0324"),
    ("04", "deepseek-r1", "deepseek-r1"),
    ("05", "kimi-k2", "kimi-k2-0711-preview"),
    ("06", "llama-4-scout", "llama-4-scout-17b-16e-instruct"),
    ("07", "gpt-4o", "gpt-4o"),
    ("08", "gpt-5", "gpt-5"),
    ("09", "claude-4-opus", "claude-opus-4-1-20250805"),
    ("10", "gemini-2.5-pro", "gemini-2.5-pro"),
]
STUB_MODEL_NUMBER = "90"


def conditions_ensure_defaults() -> list[Condition]:
    with transaction.atomic():
        return [
            Condition.objects.get_or_create(letter=letter, defaults={"name": name, "strategy": strategy})[0]
            for letter, name, strategy in DEFAULT_CONDITIONS
        ]


def endpoints_ensure_paper_models() -> list[ModelEndpoint]:
    """The paper's models, without a base URL until an admin configures one."""
    with transaction.atomic():
        return [
            ModelEndpoint.objects.get_or_create(
                model_number=number, defaults={"name": name, "model_name": model_name}
            )[0]
            for number, name, model_name in PAPER_MODELS
        ]


def endpoint_ensure_stub() -> ModelEndpoint:
    """The demo's `stub` endpoint: the bundled OpenAI-compatible stub server, no key needed."""
    endpoint, _ = ModelEndpoint.objects.update_or_create(
        name="stub",
        defaults={
            "model_number": STUB_MODEL_NUMBER,
            "base_url": settings.LLM_STUB_URL,
            "model_name": "stub-cgpst",
            "api_key_env": "",
            "concurrency_limit": 8,
            "notes": "Synthetic answers from `python -m devtools.llm_stub`; for demos and tests.",
        },
    )
    return endpoint
