"""What the release's experiment code (Collaboration.py, agents.py) sends, written out
independently of the product's strategies: the tests compare the product's calls
and the requests the stub received with these message lists.

Strings the release's code adds to the templates are typed here literally, as the
release has them, so a change to the product's data files is caught."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "generation" / "data"
PROMPTS = json.loads((DATA / "prompts.json").read_text(encoding="utf-8"))
ROLES = json.loads((DATA / "team_role.json").read_text(encoding="utf-8"))
STEPS = json.loads((DATA / "CGPST.json").read_text(encoding="utf-8"))
TEMPERATURES = {"Co-Ordinator": 0.5, "Plant": 0.8, "Monitor Evaluator": 0.4, "Implementer": 0.4}

HISTORY = "The following is the historical record up to now: "
INTRODUCE = (
    "Please note, this stage does not involve tasks, only introduce yourself. "
    "Keep your introduction within 120 words."
)
SINGLE_SUFFIX = '\n\nPlease provide the answer directly that meets the "Step Output" requirement!'

Reply = Callable[[str, list[dict[str, str]]], str]  # (role, messages) -> reply


def step_prompt(n: int) -> str:
    s = STEPS[n - 1]
    return (
        PROMPTS["Task_Step"]
        .replace("{Step_Number}", str(s["Step_Number"]))
        .replace("{Step_Name}", s["Step_Name"])
        .replace("{Step_Description}", s["Step_Description"])
        .replace("{Step_Output}", s["Step_Output"])
    )


def scenario(text: str) -> str:
    return PROMPTS["Future_Scenario"].replace("{Future_Scenario}", text)


def teamllm(scenario_text: str, reply: Reply, rounds: int = 1) -> list[tuple[str, list[dict[str, str]]]]:
    """Every call of RoleplayCollaboration.run(0..6) in order: (agent, messages)."""
    names = [r["Agent_name"] for r in ROLES]
    role_play = [
        PROMPTS["Team_Role_Setting"]
        .replace("{Team_Role}", r["Agent_name"])
        .replace("{Role_Speciality}", r["Role_Speciality"])
        .replace("{Other_Members}", "、".join(n for n in names if n != r["Agent_name"]))
        .replace("{Role_Prompt}", r["Role_Prompt"])
        for r in ROLES
    ]
    system = (
        PROMPTS["FPSP_Overall_Description_Team"]
        + "\n\n"
        + scenario(scenario_text)
        + "\n\n"
        + PROMPTS["Emphasis_Team"]
    )
    memory = {n: [{"role": "system", "content": system}] for n in names}
    calls: list[tuple[str, list[dict[str, str]]]] = []

    def ask(i: int, content: str) -> str:
        name = names[i]
        memory[name].append({"role": "user", "content": content})
        calls.append((name, [dict(m) for m in memory[name]]))
        answer = reply(name, memory[name])
        memory[name].append({"role": "assistant", "content": answer})
        return answer

    history: list[str] = []
    history.append(names[0] + " says: " + ask(0, role_play[0] + "\n" + PROMPTS["Team_Warm_Up"]))
    for i in range(1, 4):
        text = ask(i, role_play[i] + "\n\n" + HISTORY + "\n".join(history) + "\n\n" + INTRODUCE)
        history.append(names[i] + " says: " + text)
    log = [HISTORY]
    for step in range(1, 7):
        sp = step_prompt(step)
        history = []
        opening = ask(0, role_play[0] + "\n\n" + sp + "\n\n" + PROMPTS["Task_Initiation"])
        history.append(names[0] + " says: " + opening)
        for _ in range(rounds):
            for i in range(1, 4):
                history.append(
                    names[i] + " says: " + ask(i, role_play[i] + "\n\n" + "\n\n".join(log + history))
                )
            converge = PROMPTS["Converge"].replace("{Step_Number}", str(step))
            answer = ask(0, role_play[0] + "\n\n" + sp + "\n\n" + "\n\n".join(log + history) + converge)
            history.append(names[0] + " says: " + answer)
        last = history[-1]
        # The release: the text after the first full-width colon. Without one it raises
        # ValueError; the product then keeps the whole answer (a named deviation).
        plain = last[last.index("：") + 1 :] if "：" in last else last[len(names[0] + " says: ") :]
        log.append("The answer of Step-" + str(step) + " is：\n" + plain.strip())
    return calls


def single(scenario_text: str, reply: Reply) -> list[tuple[str, list[dict[str, str]]]]:
    """Every call of Single.run(1..6): one conversation."""
    memory = [
        {
            "role": "system",
            "content": PROMPTS["FPSP_Overall_Description_Individual"]
            + "\n\n"
            + scenario(scenario_text)
            + "\n\n"
            + PROMPTS["Emphasis_Individual"],
        }
    ]
    calls = []
    for step in range(1, 7):
        memory.append({"role": "user", "content": step_prompt(step) + SINGLE_SUFFIX})
        calls.append(("Individual", [dict(m) for m in memory]))
        memory.append({"role": "assistant", "content": reply("Individual", memory)})
    return calls
