from __future__ import annotations

from typing import Any

import pytest

from aria_desktop.core.schema import SchemaDefinitionError, validate
from aria_desktop.core.tools import Tool, ToolRegistry, default_policy
from aria_desktop.domain.chat import ToolCall
from aria_desktop.domain.errors import ToolArgumentsError, ToolNotFoundError

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "minLength": 1, "maxLength": 10},
        "count": {"type": "integer", "minimum": 1, "maximum": 3},
        "mode": {"enum": ["a", "b"]},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
    },
    "required": ["text"],
    "additionalProperties": False,
}


async def _echo(args: dict[str, Any]) -> str:
    return str(args)


def _tool(name: str = "echo", permission: Any = "read_only", schema: Any = None) -> Tool:
    return Tool(
        name=name,
        description="Echo",
        parameters=schema or SCHEMA,
        permission=permission,
        handler=_echo,
    )


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({}, "missing required property 'text'"),
        ({"text": ""}, "shorter than 1"),
        ({"text": "x" * 11}, "longer than 10"),
        ({"text": "x", "count": 0}, "below the minimum"),
        ({"text": "x", "count": True}, "expected integer"),
        ({"text": "x", "count": 1.5}, "expected integer"),
        ({"text": "x", "mode": "c"}, "must be one of"),
        ({"text": "x", "tags": ["a", 1]}, "$.tags[1]: expected string"),
        ({"text": "x", "tags": ["a", "b", "c"]}, "more than 2 items"),
        ({"text": "x", "other": 1}, "unexpected property 'other'"),
        ({"text": 5}, "expected string"),
    ],
)
def test_invalid_arguments_are_reported(args: dict[str, Any], problem: str) -> None:
    assert any(problem in p for p in validate(args, SCHEMA)), validate(args, SCHEMA)


def test_valid_arguments_pass() -> None:
    assert validate({"text": "hi", "count": 2, "mode": "a", "tags": ["x"]}, SCHEMA) == []


def test_registry_rejects_unsupported_schema_keywords() -> None:
    registry = ToolRegistry()
    with pytest.raises(SchemaDefinitionError):
        registry.register(_tool(schema={"type": "object", "properties": {"x": {"pattern": "a+"}}}))


def test_registry_validates_calls_before_execution() -> None:
    registry = ToolRegistry()
    registry.register(_tool())
    with pytest.raises(ToolArgumentsError, match="missing required property"):
        registry.validate(ToolCall(id="1", name="echo", arguments={}))
    with pytest.raises(ToolNotFoundError):
        registry.validate(ToolCall(id="1", name="nope", arguments={}))
    assert registry.validate(ToolCall(id="1", name="echo", arguments={"text": "a"})).name == "echo"


def test_registry_refuses_duplicate_names() -> None:
    registry = ToolRegistry()
    registry.register(_tool())
    with pytest.raises(ValueError, match="already registered"):
        registry.register(_tool())


@pytest.mark.parametrize(
    ("permission", "verdict"),
    [("read_only", "allow"), ("reversible", "allow"), ("consequential", "confirm")],
)
async def test_default_policy_by_permission_class(permission: Any, verdict: str) -> None:
    tool = _tool(permission=permission)
    decision = await default_policy(tool, ToolCall(id="1", name="echo", arguments={"text": "a"}))
    assert decision.verdict == verdict
    assert decision.rule == f"default:{permission}"
