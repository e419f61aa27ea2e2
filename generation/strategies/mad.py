"""Multi-Agent Debate baseline (Liang et al., 2024) with the role set of
``mad_roles.json``, on TeamLLM's step structure: the Moderator opens the warm-up,
initiates each step and writes the consensus answer; Debater A and Debater B argue
in turn for two rounds (a debate needs a rebuttal), each seeing the whole exchange."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generation.strategies.base import Protocol, TaskSpec, role_set
from generation.strategies.teamllm import team_protocol

ROLES_FILE = "mad_roles.json"
DEFAULTS: dict[str, Any] = {
    "language": "zh",
    "temperature": 0.6,
    "temperatures": {},
    "top_p": 0.9,
    "rounds": 2,
    "warm_up": True,
}


def protocol(*, task: TaskSpec, params: Mapping[str, Any]) -> Protocol:
    return team_protocol(task=task, params=params, roles=role_set(ROLES_FILE))
