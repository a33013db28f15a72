"""A small, strict JSON-Schema validator for tool arguments.

Tools describe their arguments with a subset of JSON Schema (what models are given anyway).
Arguments from a model are untrusted, so they are validated before any tool runs. Keywords
outside the supported subset are rejected when a tool is registered, so nothing is ever
silently left unchecked.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SchemaDefinitionError", "check_schema", "validate"]

_ANNOTATIONS = {"description", "title", "default", "examples", "$schema"}
_SUPPORTED = _ANNOTATIONS | {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "items",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
}
_TYPES = {"string", "integer", "number", "boolean", "object", "array", "null"}


class SchemaDefinitionError(ValueError):
    """A tool's schema uses something this validator does not check (a programming error)."""


def check_schema(schema: dict[str, Any], where: str = "$") -> None:
    """Raise SchemaDefinitionError if ``schema`` uses unsupported keywords or types."""
    unknown = set(schema) - _SUPPORTED
    if unknown:
        raise SchemaDefinitionError(f"{where}: unsupported schema keywords {sorted(unknown)}")
    types = schema.get("type")
    for type_name in types if isinstance(types, list) else [types] if types else []:
        if type_name not in _TYPES:
            raise SchemaDefinitionError(f"{where}: unknown type {type_name!r}")
    for name, sub in schema.get("properties", {}).items():
        check_schema(sub, f"{where}.{name}")
    if isinstance(schema.get("items"), dict):
        check_schema(schema["items"], f"{where}[]")
    if isinstance(schema.get("additionalProperties"), dict):
        check_schema(schema["additionalProperties"], f"{where}.*")


def _type_ok(value: Any, type_name: str) -> bool:
    if type_name == "string":
        return isinstance(value, str)
    if type_name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name == "object":
        return isinstance(value, dict)
    if type_name == "array":
        return isinstance(value, list)
    return value is None


#: The inclusive bounds of each kind of value: (keyword, what a value past it is), lower first.
_STRING_BOUNDS = (
    ("minLength", "shorter than {} characters"),
    ("maxLength", "longer than {} characters"),
)
_NUMBER_BOUNDS = (("minimum", "below the minimum {}"), ("maximum", "above the maximum {}"))
_ARRAY_BOUNDS = (("minItems", "fewer than {} items"), ("maxItems", "more than {} items"))


def _out_of_bounds(
    size: float, schema: dict[str, Any], where: str, bounds: tuple[tuple[str, str], ...]
) -> list[str]:
    """Problems with ``size`` (a length, or the number itself) against the schema's bounds.

    Strings, numbers and arrays are all limited the same way (a lower and an upper inclusive
    keyword, each optional), so one check serves them; ``bounds`` names the keywords and says
    in words what a value past each one is.
    """
    (low_key, low_text), (high_key, high_text) = bounds
    problems: list[str] = []
    if low_key in schema and size < schema[low_key]:
        problems.append(f"{where}: " + low_text.format(schema[low_key]))
    if high_key in schema and size > schema[high_key]:
        problems.append(f"{where}: " + high_text.format(schema[high_key]))
    return problems


def validate(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """Return a list of human-readable problems (empty when ``value`` matches ``schema``)."""
    problems: list[str] = []
    types = schema.get("type")
    if types is not None:
        allowed = types if isinstance(types, list) else [types]
        if not any(_type_ok(value, t) for t in allowed):
            return [f"{where}: expected {' or '.join(allowed)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{where}: must be one of {schema['enum']}")
    if isinstance(value, str):
        problems.extend(_out_of_bounds(len(value), schema, where, _STRING_BOUNDS))
    if _type_ok(value, "number"):
        problems.extend(_out_of_bounds(value, schema, where, _NUMBER_BOUNDS))
    if isinstance(value, list):
        problems.extend(_out_of_bounds(len(value), schema, where, _ARRAY_BOUNDS))
        item_schema = schema.get("items")
        if isinstance(item_schema, dict):
            for index, item in enumerate(value):
                problems.extend(validate(item, item_schema, f"{where}[{index}]"))
    if isinstance(value, dict):
        properties: dict[str, Any] = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                problems.append(f"{where}: missing required property {name!r}")
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                problems.extend(validate(item, properties[name], f"{where}.{name}"))
            elif extra is False:
                problems.append(f"{where}: unexpected property {name!r}")
            elif isinstance(extra, dict):
                problems.extend(validate(item, extra, f"{where}.{name}"))
    return problems
