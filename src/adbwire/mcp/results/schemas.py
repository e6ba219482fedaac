"""Compact JSON schemas for tools/list.

The whole catalogue must stay small (an agent reads all of it at the start of a session), so
pydantic's schemas are trimmed to what helps a caller: titles and model docstrings go (names
say it), a flag's ``default: false`` goes, ``X | None = None`` becomes ``X`` (the key is
simply optional: outputs are dumped without ``None`` values and inputs treat a missing key
as ``None``), length and range limits go (the server enforces them and says so in its
error),
definitions used once are inlined, and
output schemas keep only types and required keys.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel

_SCHEMA_MAPS = ("properties", "$defs", "patternProperties")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_VALUES = ("items", "additionalProperties", "not")
_ALWAYS_DROPPED = frozenset(
    {
        "title",
        "maxLength",
        "maxItems",
        "minLength",
        "minItems",
        "minimum",
        "maximum",
        "additionalProperties",
    }
)
_OUTPUT_DROPPED = frozenset({"description", "default", "minimum", "maximum"})


def model_schema(
    model: type[BaseModel], mode: Literal["validation", "serialization"]
) -> dict[str, Any]:
    schema = model.model_json_schema(mode=mode)
    schema.pop("description", None)  # the model's docstring: for developers, not callers
    for definition in schema.get("$defs", {}).values():
        definition.pop("description", None)
    dropped = _ALWAYS_DROPPED | (_OUTPUT_DROPPED if mode == "serialization" else frozenset())
    result = _inline_single_use(compact(schema, dropped))
    return _shallow(result) if mode == "serialization" else result


def _shallow(schema: dict[str, Any]) -> dict[str, Any]:
    """An output schema cut down to its field names and their non-string types.

    Clients validate structured results against it; the values themselves show the nested
    shape, so spelling it out in the catalogue would cost more than it tells. A string field
    is written ``{}`` (any), the shortest schema a string satisfies.
    """

    def outline(node: dict[str, Any]) -> dict[str, Any]:
        kind = node.get("type")
        if "anyOf" in node or kind in (None, "string"):
            return {}
        return {"type": kind}

    properties = schema.get("properties", {})
    return {
        "type": "object",
        "properties": {name: outline(sub) for name, sub in properties.items()},
    }


def compact(schema: Any, dropped: frozenset[str] = _ALWAYS_DROPPED) -> Any:
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key in dropped or (key == "default" and value is None):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            result[key] = {name: compact(sub, dropped) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            result[key] = [compact(sub, dropped) for sub in value]
        elif key in _SCHEMA_VALUES:
            result[key] = compact(value, dropped)
        else:
            result[key] = value
    if result.get("type") == "boolean" and result.get("default") is False:
        del result["default"]  # an optional flag is off unless given
    return _drop_null_arm(result)


def _drop_null_arm(schema: dict[str, Any]) -> dict[str, Any]:
    arms = schema.get("anyOf")
    if not isinstance(arms, list):
        return schema
    kept = [arm for arm in arms if arm != {"type": "null"}]
    if len(kept) == len(arms):
        return schema
    rest = {key: value for key, value in schema.items() if key != "anyOf"}
    if len(kept) == 1:
        return {**kept[0], **rest}
    return {**rest, "anyOf": kept}


def _inline_single_use(schema: dict[str, Any]) -> dict[str, Any]:
    definitions = schema.get("$defs")
    if not definitions:
        return schema
    text = json.dumps({k: v for k, v in schema.items() if k != "$defs"})
    text += json.dumps(definitions)
    single = {name for name in definitions if text.count(f'"#/$defs/{name}"') == 1}

    def replace(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.removeprefix("#/$defs/") in single:
                return replace(
                    {
                        **definitions[ref.removeprefix("#/$defs/")],
                        **{k: v for k, v in node.items() if k != "$ref"},
                    }
                )
            return {key: replace(value) for key, value in node.items()}
        if isinstance(node, list):
            return [replace(item) for item in node]
        return node

    result = replace({k: v for k, v in schema.items() if k != "$defs"})
    kept = {name: replace(d) for name, d in definitions.items() if name not in single}
    if kept:
        result["$defs"] = kept
    return dict(result)
