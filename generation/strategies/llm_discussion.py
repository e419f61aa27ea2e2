"""LLM Discussion baseline (Lu et al., 2024) with the role set of
``llm_discussion_roles.json``, on TeamLLM's step structure: the first role
(Environmentalist) opens the warm-up, initiates each step and writes the consensus
answer; Creative Professional, Futurist and Startup Founder speak in turn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generation.strategies.base import Protocol, TaskSpec, role_set
from generation.strategies.teamllm import team_protocol

ROLES_FILE = "llm_discussion_roles.json"
DEFAULTS: dict[str, Any] = {
    "language": "zh",
    # No per-role values are given for this baseline: the study's baseline temperature.
    "temperature": 0.6,
    "temperatures": {},
    "top_p": 0.9,
    "rounds": 1,
    "warm_up": True,
}


def protocol(*, task: TaskSpec, params: Mapping[str, Any]) -> Protocol:
    return team_protocol(task=task, params=params, roles=role_set(ROLES_FILE))
