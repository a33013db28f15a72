"""Tool calls written as text: the four shapes, what is reported, and what stays text.

Pure tests of ``llm/text_call_filter.TextCallFilter`` on plain strings, each fed whole and one
character at a time (a stream may cut anywhere), plus how little it holds back.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from aria_desktop.adapters.llm.text_call_filter import TextCallFilter
from aria_desktop.domain.chat import (
    LLMChunk,
    TextDelta,
    ToolCall,
    ToolCallChunk,
    ToolCallRejected,
    ToolSpec,
)

WEATHER = ToolSpec(
    name="get_weather",
    description="Weather in a city.",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string", "minLength": 1}},
        "required": ["city"],
        "additionalProperties": False,
    },
)
CLOCK = ToolSpec(
    name="get_time", description="Now.", parameters={"type": "object", "properties": {}}
)
TOOLS = (WEATHER, CLOCK)


def run(text: str, *, piece: int) -> list[Any]:
    """What the filter lets out for ``text`` fed ``piece`` characters at a time (texts merged)."""
    reader = TextCallFilter(TOOLS)
    chunks: list[LLMChunk] = []
    for start in range(0, len(text), piece):
        chunks += reader.feed(text[start : start + piece])
    chunks += reader.finish()
    out: list[Any] = []
    for chunk in chunks:
        if isinstance(chunk, TextDelta):
            if out and isinstance(out[-1], str):
                out[-1] += chunk.text
            else:
                out.append(chunk.text)
        elif isinstance(chunk, ToolCallChunk):
            out.append((chunk.call.name, chunk.call.arguments))
        else:
            assert isinstance(chunk, ToolCallRejected)
            out.append(chunk)
    return out


def both(text: str) -> list[Any]:
    """The same result fed whole and one character at a time."""
    whole = run(text, piece=len(text))
    assert run(text, piece=1) == whole
    assert run(text, piece=7) == whole
    return whole


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "get_weather", "arguments": {"city": "Paris"}}',
        '  {"tool": "get_weather", "parameters": {"city": "Paris"}}',
        '{"type": "function", "function": {"name": "get_weather", '
        '"arguments": "{\\"city\\": \\"Paris\\"}"}}',
        '[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
        '```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```',
        '```\n{"name": "get_weather", "parameters": {"city": "Paris"}}\n```',
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        '<|python_tag|>{"type": "function", "name": "get_weather", '
        '"parameters": {"city": "Paris"}}<|eom_id|>',
    ],
    ids=[
        "bare-json",
        "bare-json-tool-parameters",
        "openai-function-object",
        "json-list",
        "qwen-hermes-tag",
        "fenced-json",
        "unlabelled-fence",
        "mistral-tool-calls",
        "llama-python-tag",
    ],
)
def test_each_shape_becomes_a_real_call_and_no_text(text: str) -> None:
    assert both(text) == [("get_weather", {"city": "Paris"})]


def test_several_tagged_calls_in_one_reply_are_all_read() -> None:
    text = (
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>\n'
        '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>\n'
    )
    assert both(text) == [("get_weather", {"city": "Oslo"}), ("get_time", {})]


def test_llama_calls_joined_by_semicolons_are_all_read() -> None:
    text = (
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Lima"}}; '
        '{"name": "get_time", "parameters": {}}'
    )
    assert both(text) == [("get_weather", {"city": "Lima"}), ("get_time", {})]


def test_prose_before_a_fenced_call_is_text_and_the_call_is_not() -> None:
    text = 'Let me look that up.\n```json\n{"name": "get_time", "arguments": {}}\n```\n'
    assert both(text) == ["Let me look that up.", ("get_time", {})]


def test_arguments_off_the_schema_are_reported_not_run() -> None:
    [rejected] = both('{"name": "get_weather", "arguments": {"town": "Paris"}}')
    assert isinstance(rejected, ToolCallRejected)
    assert rejected.name == "get_weather"
    assert "'city' is a required property" in rejected.reason
    assert rejected.text.startswith('{"name": "get_weather"')


def test_an_unknown_tool_is_reported_with_the_tools_offered() -> None:
    [rejected] = both('<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>')
    assert isinstance(rejected, ToolCallRejected)
    assert rejected.name == "rm_rf"
    assert "not one of the tools offered (get_time, get_weather)" in rejected.reason


def test_a_tag_holding_no_json_is_reported() -> None:
    [rejected] = both("<tool_call>get_weather(city='Paris')</tool_call>")
    assert isinstance(rejected, ToolCallRejected)
    assert rejected.reason == "the call is not valid JSON"


@pytest.mark.parametrize(
    "text",
    [
        'The API answers {"name": "get_weather"} style objects; see the docs.',
        '{"name": "Alice", "age": 31}',
        '```json\n{"temperature": 21, "unit": "C"}\n```\nThat is the reading.',
        "```python\nprint({'name': 'get_weather', 'arguments': {}})\n```\nRun it.",
        "Use [brackets] and {braces} freely.",
    ],
    ids=["prose", "json-answer", "json-data-fence", "code-fence", "brackets"],
)
def test_prose_and_json_that_is_not_a_call_stay_text(text: str) -> None:
    assert both(text) == [text]


def test_plain_text_is_let_through_at_once() -> None:
    reader = TextCallFilter(TOOLS)
    assert reader.feed("Hello") == [TextDelta(text="Hello")]
    # only a tail that may open a call waits
    assert reader.feed(" there <tool") == [TextDelta(text=" there")]
    assert reader.feed("box> ok") == [TextDelta(text=" <toolbox> ok")]


def test_a_code_fence_in_another_language_is_let_through_before_it_closes() -> None:
    reader = TextCallFilter(TOOLS)
    out = reader.feed("```bash\nls -la\n")
    assert "".join(c.text for c in out if isinstance(c, TextDelta)) == "```bash\nls -la"


def test_a_call_is_held_until_complete_then_comes_out_whole() -> None:
    reader = TextCallFilter(TOOLS)
    assert reader.feed('<tool_call>{"name": "get_time", ') == []
    [chunk] = reader.feed('"arguments": {}}</tool_call>')
    assert isinstance(chunk, ToolCallChunk)
    assert isinstance(chunk.call, ToolCall)
    assert chunk.call.id.startswith("call_")
    assert reader.found_call
    assert reader.finish() == []


def test_an_unfinished_call_at_the_end_is_reported_never_released_as_text() -> None:
    reader = TextCallFilter(TOOLS)
    assert reader.feed('<tool_call>{"name": "get_time", "argu') == []
    [rejected] = reader.finish()
    assert isinstance(rejected, ToolCallRejected)
    assert reader.released_text == ""


def test_a_long_json_answer_streamed_in_tiny_pieces_is_read_once_and_let_through_whole() -> None:
    # quotes, escapes and brackets inside strings must not end the value early
    rows = [{"label": f'row "{i}" \\ {{ [', "n": i, "tags": ["a]", "}b"]} for i in range(500)]
    answer = json.dumps({"rows": rows})
    reader = TextCallFilter(TOOLS)
    started = time.process_time()
    out: list[LLMChunk] = []
    for char in answer:
        out += reader.feed(char)
    out += reader.finish()
    assert "".join(c.text for c in out if isinstance(c, TextDelta)) == answer
    # one pass over the text (the old per-piece rescan took minutes for this)
    assert time.process_time() - started < 5.0
