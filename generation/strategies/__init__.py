"""Generation strategies: one module per strategy, one interface (see ``base``).

Each module has ``DEFAULTS`` (its settings), ``SOURCES`` (where each default comes from:
"paper", "release", "method" (the method's published code), "study" (the study's own
settings) or "ours", the product's choice) and ``protocol(task=, params=)``.
A run's parameters are resolved once, when it is created: strategy defaults, then
the study's response language, then the condition's parameters; the result is
stored on the run, so a resumed run replays exactly the protocol it started with.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from generation.strategies import ablation, llm_discussion, mad, single, teamfusion, teamllm
from generation.strategies.base import (
    TEXT_TASK,
    Call,
    Done,
    Protocol,
    ProtocolError,
    TaskSpec,
    merge_params,
    protocol_next,
    protocol_run,
    role_set,
    task_for,
)

STRATEGIES: dict[str, ModuleType] = {
    "single": single,
    "teamllm": teamllm,
    "ablation": ablation,
    "llm_discussion": llm_discussion,
    "mad": mad,
    "teamfusion": teamfusion,
}

# The team strategies are the papers' CGPST protocols, step by step: they have no single-text form.
TEXT_TASK_STRATEGIES = ("single",)

__all__ = [
    "STRATEGIES",
    "TEXT_TASK",
    "TEXT_TASK_STRATEGIES",
    "strategy_role_names",
    "Call",
    "Done",
    "ParameterError",
    "Protocol",
    "ProtocolError",
    "TaskSpec",
    "protocol_for",
    "protocol_length",
    "protocol_next",
    "protocol_run",
    "resolve_params",
    "strategy_settings",
    "task_for",
]


# How a model answering in Chinese writes the names it is given in English (the prompts give them
# in English; the demo study's responses are in Chinese): for the blind-text check only.
ROLE_NAMES_ZH: dict[str, tuple[str, ...]] = {
    "Environmentalist": ("环保主义者", "环保人士", "环境保护主义者"),
    "Creative Professional": ("创意专业人士", "创意人士", "创意工作者"),
    "Futurist": ("未来学家", "未来主义者"),
    "Startup Founder": ("创业者", "初创企业创始人", "创业公司创始人"),
    "Moderator": ("主持人",),
    "Debater A": ("辩手A", "辩论者A", "辩方A", "辩手甲", "正方"),
    "Debater B": ("辩手B", "辩论者B", "辩方B", "辩手乙", "反方"),
    "Judge": ("裁判", "裁判员", "评判者"),
    "Affirmative side": ("正方",),
    "Negative side": ("反方",),
    "Debater": ("辩手", "辩论者", "辩友"),
    "Co-Ordinator": ("协调者", "协调员", "协调人"),
    "Plant": ("智多星", "创新者", "播种者"),
    "Monitor Evaluator": ("监督评估者", "监察评估者", "审议者", "审议员", "监督者"),
    "Implementer": ("执行者", "实干家", "实施者"),
    "Member 1": ("成员1", "成员一", "1号成员", "一号成员", "第一位成员"),
    "Member 2": ("成员2", "成员二", "2号成员", "二号成员", "第二位成员"),
    "Member 3": ("成员3", "成员三", "3号成员", "三号成员", "第三位成员"),
    "Member 4": ("成员4", "成员四", "4号成员", "四号成员", "第四位成员"),
    "Synthesizer": ("综合者", "整合者", "综合员"),
}


def strategy_role_names() -> tuple[str, ...]:
    """Every name the strategies give their agents and tell the model: the role sets
    (TeamLLM's Belbin roles and the role sets a condition may choose, LLM Discussion's and
    the debate's roles, its judge, its sides and the key of the judge's answer), the ablation's
    members and TeamFusion's synthesizer. (The single
    model's agent is told no name.) A study's member profiles come on top."""
    files = {*teamllm.ROLE_SETS.values(), llm_discussion.ROLES_FILE, mad.ROLES_FILE}
    names = [role["Agent_name"] for filename in sorted(files) for role in role_set(filename)]
    return tuple(
        dict.fromkeys(
            [*names, mad.JUDGE, *mad.SIDES, mad.ANSWER_KEY, *ablation.MEMBERS, teamfusion.SYNTHESIZER]
        )
    )


def strategy_settings(strategy: str) -> list[dict[str, Any]]:
    """A strategy's settings for the condition page: key, default and where it comes from.
    Long values (prompt texts, lists) are summarised; their full text is in the run's snapshot."""
    module = STRATEGIES.get(strategy)
    if module is None:
        return []
    return [
        {
            "key": key,
            "default": json.dumps(value, ensure_ascii=False),
            "prompts": len(value) if key == "prompts" else None,
            "source": module.SOURCES[key],
        }
        for key, value in module.DEFAULTS.items()
    ]


class ParameterError(ValueError):
    """A condition's parameters do not fit its strategy."""


def _number(params: Mapping[str, Any], key: str, low: float, high: float) -> None:
    value = params.get(key)
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ParameterError(f"{key} must be a number from {low} to {high}")


def _validate(strategy: str, params: Mapping[str, Any]) -> None:
    unknown = set(params) - set(STRATEGIES[strategy].DEFAULTS)
    if unknown:
        raise ParameterError(
            f"unknown parameter(s) for {strategy}: {', '.join(sorted(unknown))}; "
            f"known: {', '.join(sorted(STRATEGIES[strategy].DEFAULTS))}"
        )
    for key in ("temperature", "proxy_temperature", "synthesizer_temperature"):
        _number(params, key, 0, 2)
    _number(params, "top_p", 0, 1)
    for key in ("rounds", "iterations", "turns"):
        value = params.get(key)
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 10
        ):
            raise ParameterError(f"{key} must be a whole number from 1 to 10")
    if not isinstance(params.get("answer_from", ""), str):
        raise ParameterError("answer_from must be a member's name")
    temps = params.get("temperatures", {})
    if not isinstance(temps, Mapping):
        raise ParameterError("temperatures must be an object {role: temperature}")
    for role in temps:
        _number(temps, role, 0, 2)
    if not isinstance(params.get("language", ""), str) or not params.get("language", "x").strip():
        raise ParameterError("language must be a language code or name, e.g. zh or en")
    profiles = params.get("profiles", [])
    if not isinstance(profiles, list) or not all(
        isinstance(p, Mapping) and isinstance(p.get("name"), str) and isinstance(p.get("preferences"), str)
        for p in profiles
    ):
        raise ParameterError('profiles must be a list of {"name": ..., "preferences": ...}')
    check = getattr(STRATEGIES[strategy], "validate", None)
    if check is not None:  # a strategy's own settings (TeamFusion's prompts)
        try:
            check(params)
        except ValueError as exc:
            raise ParameterError(str(exc)) from exc


def resolve_params(
    *,
    strategy: str,
    overrides: Mapping[str, Any] | None = None,
    language: str | None = None,
    profiles: list[dict[str, str]] | None = None,
    top_p_as_released: bool = False,
    kind: str = "cgpst",
) -> dict[str, Any]:
    """The complete parameters of a run. Raises :class:`ParameterError`.

    ``top_p_as_released`` (a batch's choice) sends no top_p, as the release's code;
    by default the strategies send the paper's 0.9."""
    if strategy not in STRATEGIES:
        raise ParameterError(f"unknown strategy {strategy!r}")
    overrides = dict(overrides or {})
    _validate(strategy, overrides)
    defaults = dict(STRATEGIES[strategy].DEFAULTS)
    if language:
        defaults["language"] = language
    if strategy == "teamfusion" and profiles is not None:
        defaults["profiles"] = profiles
    if top_p_as_released and "top_p" not in overrides:
        defaults["top_p"] = None  # the release's code sends no top_p
    if "temperature" in overrides and "temperatures" not in overrides and "temperatures" in defaults:
        # A single temperature set by the condition applies to every role.
        defaults["temperatures"] = {}
    params = merge_params(defaults, overrides)
    protocol_length(strategy=strategy, params=params, kind=kind)  # fails early on an unusable combination
    return params


def protocol_for(*, strategy: str, task: TaskSpec, params: Mapping[str, Any]) -> Protocol:
    if task.kind == TEXT_TASK and strategy not in TEXT_TASK_STRATEGIES:
        raise ParameterError(
            f"{strategy} works on CGPST tasks only: a single-text task is answered by the single model"
        )
    return STRATEGIES[strategy].protocol(task=task, params=params)


def protocol_length(*, strategy: str, params: Mapping[str, Any], kind: str = "cgpst") -> int:
    """How many calls the protocol makes (it does not depend on the replies)."""
    try:
        calls, _ = protocol_run(
            protocol_for(strategy=strategy, task=task_for("", kind), params=params), lambda call: ""
        )
    except (KeyError, ValueError, TypeError) as exc:
        raise ParameterError(str(exc)) from exc
    return len(calls)
