"""A rubric document: read from JSON or YAML, and checked against the format's JSON Schema.

``rubric_document_read`` turns a file's text into the document (a dict) or a RubricError
naming what is wrong with the text itself; ``format_problems`` lists every place where the
document breaks the schema (``format/rubric-1.schema.json``, explained in docs/rubric-format.md).
The checks a schema cannot state (maxima that add up, key prefixes, texts in every declared
language) are ``studies.rubric.loader``'s.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from studies.rubric.schema import RubricError

FORMAT_SCHEMA_PATH = Path(__file__).resolve().parent / "format" / "rubric-1.schema.json"
# A rubric of twenty full steps is far below this; a bigger upload is not a rubric.
MAX_DOCUMENT_BYTES = 2_000_000
YAML_SUFFIXES = (".yaml", ".yml")
MAX_DEPTH = 32
# libyaml's safe loader where PyYAML has it: linear, and it refuses deep nesting itself (the pure
# Python one took 52 s over 100 KB of nested brackets)
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@cache
def format_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(FORMAT_SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


@cache
def _validator() -> jsonschema.protocols.Validator:
    schema = format_schema()
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator: jsonschema.protocols.Validator = validator_class(schema)
    return validator


def _object_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise RubricError([f"the key {key!r} is given twice in one object" for key in repeated])
    return dict(pairs)


def _not_a_number(name: str) -> float:
    raise ValueError(f"{name} is not a number a rubric holds")


def _depth_checked(data: Any) -> None:
    """A rubric nests about eight levels deep: refuse a document nested far deeper (it would
    only exhaust the checks' recursion), walking it without recursion."""
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise RubricError([f"the document is nested more than {MAX_DEPTH} levels deep; a rubric is not"])
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, depth + 1) for child in children)


def _yaml_document(text: str) -> Any:
    # Anchors and aliases let a small file stand for a huge document: refused, not expanded.
    try:
        for event in yaml.parse(text, Loader=_YAML_LOADER):
            if isinstance(event, yaml.AliasEvent):
                raise RubricError(
                    ["YAML anchors and aliases (&name, *name) are not accepted; write each part out"]
                )
        return yaml.load(text, Loader=_YAML_LOADER)  # noqa: S506 - a safe loader
    except (RecursionError, ValueError) as exc:  # nested past Python's limit; a 5,000-digit number
        raise RubricError([f"the file is not a YAML document a rubric can be: {str(exc)[:120]}"]) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise RubricError([f"the file is not valid YAML{where}: {problem}"]) from exc


def rubric_document_read(*, content: bytes, name: str) -> dict[str, Any]:
    """The rubric document in a file's bytes: YAML for a .yaml/.yml name, else JSON.
    RubricError names what is wrong with the text (size, encoding, syntax, a repeated key)."""
    if len(content) > MAX_DOCUMENT_BYTES:
        raise RubricError(
            [f"the file is larger than {MAX_DOCUMENT_BYTES // 1_000_000} MB; a rubric is far smaller"]
        )
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RubricError([f"the file is not UTF-8 text (byte {exc.start + 1})"]) from exc
    if name.lower().endswith(YAML_SUFFIXES):
        data = _yaml_document(text)
    else:
        try:
            data = json.loads(text, object_pairs_hook=_object_without_repeats, parse_constant=_not_a_number)
        except json.JSONDecodeError as exc:
            raise RubricError(
                [f"the file is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"]
            ) from exc
        except (RecursionError, ValueError) as exc:  # nested past Python's limit; NaN; a 5,000-digit number
            raise RubricError([f"the file is not a JSON document a rubric can be: {str(exc)[:120]}"]) from exc
    if not isinstance(data, dict):
        raise RubricError(["the rubric must be an object of named fields (version, title, steps...)"])
    _depth_checked(data)
    return data


_ITEM_NAMES = {
    "steps": "step",
    "categories": "category",
    "dimensions": "dimension",
    "levels": "level",
    "item_scores": "item score",
    "invalid_types": "invalid type",
    "texts": "text",
    "checks": "check",
}


def _place(data: Any, path: Sequence[str | int]) -> str:
    """A schema error's place in words: "step 3 › dimension s3.fluency › max"."""
    words: list[str] = []
    node = data
    for part in path:
        if isinstance(node, dict):
            node = node.get(part)
        else:
            node = node[part] if isinstance(node, list) and isinstance(part, int) else None
        if isinstance(part, int) and words:
            key = node.get("key") if isinstance(node, dict) else None
            name = _ITEM_NAMES.get(words[-1], words[-1])
            words[-1] = (
                f"{name} {key}" if isinstance(key, str) and key and name != "step" else f"{name} {part + 1}"
            )
        else:
            words.append(str(part))
    return " › ".join(words) or "the document"


def _order(path: Sequence[str | int]) -> list[tuple[int, str]]:
    return [(part, "") if isinstance(part, int) else (-1, part) for part in path]


def format_problems(data: Any) -> list[str]:
    """Every place where ``data`` breaks the format's JSON Schema, in document order."""
    errors = sorted(_validator().iter_errors(data), key=lambda e: _order(list(e.absolute_path)))
    return [f"{_place(data, list(error.absolute_path))}: {_message(error)}" for error in errors]


def _message(error: jsonschema.ValidationError) -> str:
    """jsonschema's message, without repeating a whole list or a long text back."""
    size = len(error.instance) if isinstance(error.instance, (list, str)) else 0
    if error.validator == "maxItems":
        return f"{size} items; at most {error.validator_value}"
    if error.validator == "maxLength":
        return f"{size} characters; at most {error.validator_value}"
    return error.message if len(error.message) <= 300 else error.message[:297] + "..."
