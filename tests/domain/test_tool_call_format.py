"""The structured output that holds a model without native tool calls to a required call."""

from __future__ import annotations

from aria_desktop.domain.chat import ToolChoice, ToolSpec
from aria_desktop.domain.tool_call_format import tool_call_format

WEATHER = ToolSpec(
    name="get_weather",
    description="Weather.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)
CLOCK = ToolSpec(name="get_time", description="Now.", parameters={})


def test_a_named_tool_gives_one_object_schema_with_its_arguments() -> None:
    fmt = tool_call_format((WEATHER, CLOCK), ToolChoice(mode="tool", name="get_weather"))
    assert fmt is not None
    assert fmt.name == "tool_call"
    assert fmt.schema == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "const": "get_weather"},
            "arguments": WEATHER.parameters,
        },
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }


def test_required_offers_any_tool_and_a_tool_without_schema_takes_an_object() -> None:
    fmt = tool_call_format((WEATHER, CLOCK), ToolChoice(mode="required"))
    assert fmt is not None
    assert fmt.schema is not None
    second = fmt.schema["anyOf"][1]
    assert second["properties"]["name"]["const"] == "get_time"
    assert second["properties"]["arguments"] == {"type": "object"}


def test_a_named_tool_that_is_not_offered_gives_nothing() -> None:
    assert tool_call_format((WEATHER,), ToolChoice(mode="tool", name="delete_all")) is None
