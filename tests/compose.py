"""docker-compose.yml's variable interpolation, as compose applies it to the values of
the file with the variables of ``.env`` (the subset the file uses: ``${VAR}``,
``${VAR:-default}``, ``${VAR:?error}`` and ``$$`` for a literal dollar)."""

from __future__ import annotations

import re
from pathlib import Path

_VARIABLE = re.compile(r"\$\$|\$\{(\w+)(?::([-?])([^}]*))?\}")


def dotenv(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def interpolate(value: str, variables: dict[str, str]) -> str:
    def substitute(match: re.Match) -> str:
        if match.group(0) == "$$":
            return "$"
        name, kind, word = match.groups()
        found = variables.get(name, "")
        if found or kind is None:
            return found
        if kind == "?":
            raise ValueError(f"compose refuses to start: {word}")
        return word

    return _VARIABLE.sub(substitute, value)


# Each env file compose names, as the operator makes it: a copy of the documented example.
EXAMPLES = {".env": ".env.example", "providers.env": "providers.env.example"}


def env_files(service: dict) -> list[str]:
    """The env files compose gives ``service`` (``env_file``: one name or a list)."""
    files = service.get("env_file") or []
    return [files] if isinstance(files, str) else list(files)
