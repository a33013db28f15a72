"""Tool calls that models write as text: the shapes, and reading them (pure, no I/O).

Small local models often answer a tool request with the call written into the reply's text
instead of the server's structured ``tool_calls`` (their chat template, or the server's parser,
does not turn it into one). Four shapes cover what real models write:

1. **Bare JSON** as the whole start of the reply — ``{"name": ..., "arguments": {...}}``,
   ``{"tool": ..., "parameters": ...}``, OpenAI's ``{"type": "function", "function": {...}}``,
   Llama 3.x's ``{"name": ..., "parameters": ...}``, or a list of those.
2. **Tags** (Qwen 2.5/3, Hermes, NousResearch templates): ``<tool_call>{...}</tool_call>``,
   several in one reply.
3. **Fenced JSON**: a Markdown block opened by a fence labelled json (or unlabelled) whose body
   is a call.
4. **Llama 3.x / Mistral markers**: ``<|python_tag|>{...}`` (calls separated by ``;``) and
   ``[TOOL_CALLS] [{...}, ...]``.

A marker (tag, ``<|python_tag|>``, ``[TOOL_CALLS]``) says the text is a call, so unreadable
content after it is a bad call. Bare JSON and fences are calls only when their JSON has a call's
shape; anything else (an answer that happens to be JSON, a code example) stays text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "OPENERS",
    "Candidate",
    "JsonEnd",
    "SegmentEnd",
    "SegmentKind",
    "fence_is_json",
    "json_end",
    "read_segment",
]

SegmentKind = Literal["tag", "mistral", "python_tag", "fence", "json"]

#: Text that opens a possible call anywhere in a reply, and the kind of segment it opens.
OPENERS: dict[str, SegmentKind] = {
    "<tool_call>": "tag",
    "[TOOL_CALLS]": "mistral",
    "<|python_tag|>": "python_tag",
    "```": "fence",
}
_TAG_CLOSE = "</tool_call>"
_END_TOKENS = ("<|eom_id|>", "<|eot_id|>")
_NAME_KEYS = ("name", "tool", "tool_name")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input", "tool_input")
_JSON_FENCES = ("", "json", "tool_call", "tool_code", "tool")


@dataclass(frozen=True, kw_only=True)
class Candidate:
    """One call read from text, before it is checked against the request's tools.

    Attributes:
        name: the tool named ("" when the text named none).
        arguments: the arguments as written (a dict when they were an object).
        problem: why the text is not a readable call ("" when it is one).
        loose: only a name was written (``{"name": "x"}``, no arguments, no marker): a call
            only if that names an offered tool, else the JSON is just an answer.
    """

    name: str
    arguments: Any
    problem: str = ""
    loose: bool = False


_JSON_MARKS = re.compile(r'[\\"{}\[\]]')


class JsonEnd:
    """Where a JSON object or array starting at ``start`` ends, read incrementally.

    Only brackets, quotes and backslashes are looked at (a regular expression skips the rest),
    and each call goes on where the last one stopped, so a long value streamed in small pieces
    costs one pass, not one per piece.
    """

    def __init__(self, start: int) -> None:
        """Scan from ``start`` (the value's first character)."""
        self._next = start
        self._depth = 0
        self._in_string = False

    def find(self, text: str) -> int | None:
        """Index just past the value in ``text`` (the same text, grown); None while it is open."""
        position = self._next
        while True:
            match = _JSON_MARKS.search(text, position)
            if match is None:
                self._next = len(text)
                return None
            index = match.start()
            char = text[index]
            position = index + 1
            if self._in_string:
                if char == "\\":
                    if position >= len(text):
                        self._next = index  # the escaped character has not arrived
                        return None
                    position += 1
                elif char == '"':
                    self._in_string = False
            elif char == '"':
                self._in_string = True
            elif char in "{[":
                self._depth += 1
            elif char in "}]":
                self._depth -= 1
                if self._depth == 0:
                    return position


def json_end(text: str, start: int) -> int | None:
    """Index just past the JSON object or array at ``text[start]``; None while it is open."""
    return JsonEnd(start).find(text)


class SegmentEnd:
    """Where a segment of ``kind`` (starting at the text's first character) ends.

    Called again as the text grows; remembers how far it looked.
    """

    def __init__(self, kind: SegmentKind) -> None:
        """Start looking at the segment's beginning."""
        self._kind = kind
        self._checked = 0
        self._json: JsonEnd | None = None

    def find(self, text: str, *, final: bool) -> int | None:
        """The segment's end in ``text``; None while it may go on (the text's end if ``final``)."""
        end = self._end(text)
        if end is None and final:
            return len(text)
        return end

    def _end(self, text: str) -> int | None:
        kind = self._kind
        if kind in ("tag", "fence"):
            return self._closing(text)
        if self._json is None:
            marker = {"mistral": "[TOOL_CALLS]", "python_tag": "<|python_tag|>"}.get(kind, "")
            body = len(marker)
            while body < len(text) and text[body].isspace():
                body += 1
            if body >= len(text):
                return None
            if text[body] not in "{[":
                return body
            self._json = JsonEnd(body)
        end = self._json.find(text)
        if end is not None and kind == "python_tag":
            return _after_more_calls(text, end)
        return end

    def _closing(self, text: str) -> int | None:
        """A tag's ``</tool_call>`` or a fence's closing backticks, searched from where it left."""
        close_mark = _TAG_CLOSE if self._kind == "tag" else "```"
        first = 0
        if self._kind == "fence":
            newline = text.find("\n")
            if newline < 0:
                return None
            first = newline + 1
        close = text.find(close_mark, max(first, self._checked - len(close_mark)))
        self._checked = len(text)
        return close + len(close_mark) if close >= 0 else None


def _after_more_calls(text: str, end: int) -> int | None:
    """Llama's ``<|python_tag|>`` may hold several calls joined by ``;``: wait for them all."""
    rest = text[end:].lstrip()
    if not rest:
        return None  # a ";" and another call may follow
    if rest.startswith(";"):
        start = text.index(";", end) + 1
        while start < len(text) and text[start].isspace():
            start += 1
        if start >= len(text):
            return None
        following = json_end(text, start) if text[start] == "{" else start
        return None if following is None else _after_more_calls(text, following)
    for token in _END_TOKENS:
        if rest.startswith(token):
            return text.index(token, end) + len(token)
        if token.startswith(rest):
            return None
    return end


def fence_is_json(text: str) -> bool | None:
    """Whether a fence starting ``text`` may hold a call: labelled JSON, body starting ``{``/``[``.

    None while the opening line or the body's first character has not arrived.
    """
    newline = text.find("\n")
    if newline < 0:
        return None
    label = text[3:newline].strip().lower()
    if label not in _JSON_FENCES:
        return False
    body = text[newline + 1 :].lstrip()
    if not body:
        return None
    return body[0] in "{["


def read_segment(kind: SegmentKind, segment: str) -> list[Candidate] | None:
    """The calls a segment of ``kind`` holds; None when it is plain text, not a call.

    A marker segment always yields candidates (a bad one with its ``problem``).
    """
    payload = _payload(kind, segment)
    values = _json_values(payload)
    marked = kind in ("tag", "mistral", "python_tag")
    if values is None:
        if marked:
            return [Candidate(name="", arguments=None, problem="the call is not valid JSON")]
        return None
    candidates: list[Candidate] = []
    for value in values:
        found = _candidates(value, marked=marked)
        if found is None:
            if marked:
                return [_shapeless()]
            return None
        candidates.extend(found)
    if not candidates:
        return [_shapeless()] if marked else None
    return candidates


def _shapeless() -> Candidate:
    return Candidate(
        name="",
        arguments=None,
        problem='the call has no tool name; write {"name": "<tool>", "arguments": {...}}',
    )


def _payload(kind: SegmentKind, segment: str) -> str:
    if kind == "tag":
        body = segment[len("<tool_call>") :]
        return body.removesuffix(_TAG_CLOSE)
    if kind == "fence":
        newline = segment.find("\n")
        body = segment[newline + 1 :] if newline >= 0 else ""
        return body.rstrip().removesuffix("```")
    if kind == "mistral":
        return segment[len("[TOOL_CALLS]") :]
    if kind == "python_tag":
        body = segment[len("<|python_tag|>") :]
        for token in _END_TOKENS:
            body = body.replace(token, "")
        return body
    return segment


def _json_values(payload: str) -> list[Any] | None:
    """Every JSON value in ``payload`` (separated by space, ``,`` or ``;``); None if any fails."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    index = 0
    while True:
        while index < len(payload) and (payload[index].isspace() or payload[index] in ",;"):
            index += 1
        if index >= len(payload):
            return values or None
        try:
            value, index = decoder.raw_decode(payload, index)
        except ValueError:
            return None
        values.append(value)


def _candidates(value: Any, *, marked: bool) -> list[Candidate] | None:
    """The calls a JSON value stands for; None when it does not have a call's shape."""
    if isinstance(value, list):
        found: list[Candidate] = []
        for item in value:
            one = _candidates(item, marked=marked)
            if one is None:
                return None
            found.extend(one)
        return found or None
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("tool_calls"), list):
        return _candidates(value["tool_calls"], marked=True)
    function = value.get("function")
    if isinstance(function, dict):
        return _candidates(function, marked=True)
    name = next((value[k] for k in _NAME_KEYS if isinstance(value.get(k), str)), None)
    if name is None and isinstance(function, str):
        name = function
    key = next((k for k in _ARGUMENT_KEYS if k in value), None)
    if not isinstance(name, str):
        return None
    loose = key is None and not marked
    if loose and set(value) - {"name", "type"}:
        return None
    arguments = value.get(key, {}) if key is not None else {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return [Candidate(name=name, arguments=arguments, problem="arguments are not JSON")]
    if not isinstance(arguments, dict):
        return [Candidate(name=name, arguments=arguments, problem="arguments are not an object")]
    return [Candidate(name=name, arguments=arguments, loose=loose)]
