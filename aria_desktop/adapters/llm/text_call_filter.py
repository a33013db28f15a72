"""The stream filter that turns tool calls written as text into real ones (or reports them).

The router passes every reply to a request that offers tools through
:func:`recognise_text_calls` (ARCHITECTURE.md: tool calls written as text), so whichever backend
answers, a call a model wrote as text (the shapes are in ``adapters/llm/text_calls.py``) becomes a
``ToolCallChunk`` when it names one of the request's tools and its arguments validate against
that tool's JSON schema (``jsonschema``), or a ``ToolCallRejected`` when not. Either way the
text never reaches the consumer as a ``TextDelta``: it is not shown in the chat window and never
spoken.

Hold-back is kept small: text is held only from an opener (``<tool_call>``, ``[TOOL_CALLS]``,
``<|python_tag|>``, a code fence, or ``{``/``[`` as the first thing in the reply) until the
segment it opens is complete, or from a tail that may be the start of an opener. A fence labelled
with another language, or whose body does not start with ``{``/``[``, is let through at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from aria_desktop.adapters.llm import text_calls as shapes
from aria_desktop.adapters.llm._backend import new_call_id
from aria_desktop.domain import chat
from aria_desktop.domain.errors import StreamInterruptedError

__all__ = ["TextCallFilter", "recognise_text_calls"]

_LOGGER = logging.getLogger(__name__)
_REJECTED_TEXT_CHARS = 2000


class TextCallFilter:
    """Text pieces in, chunks out: text that is not a call, calls, and rejected calls.

    Args:
        tools: the tools the request offered (names and JSON schemas).
    """

    def __init__(self, tools: Sequence[chat.ToolSpec]) -> None:
        """Start at the beginning of a reply."""
        self._tools = {tool.name: tool for tool in tools}
        self._validators: dict[str, Any] = {}
        self._buffer = ""
        self._kind: shapes.SegmentKind | None = None
        self._end: shapes.SegmentEnd | None = None
        self._at_start = True
        self._in_code = False
        self._space = ""
        self._released: list[str] = []
        self.found_call = False
        """Whether a call was read from the text (the reply's stop reason becomes tool_use)."""

    @property
    def released_text(self) -> str:
        """All text let through so far (what a consumer has seen)."""
        return "".join(self._released)

    def feed(self, text: str) -> list[chat.LLMChunk]:
        """Chunks that ``text`` (the next piece of the reply) lets out now."""
        self._buffer += text
        return self._advance(final=False)

    def finish(self) -> list[chat.LLMChunk]:
        """Chunks for whatever is still held at the end of the reply."""
        return self._advance(final=True)

    def _advance(self, *, final: bool) -> list[chat.LLMChunk]:
        out: list[chat.LLMChunk] = []
        progressed = True
        while self._buffer and progressed:
            if self._kind is None:
                progressed = self._scan_text(out, final=final)
            else:
                progressed = self._scan_segment(out, final=final)
        return out

    def _release(self, out: list[chat.LLMChunk], text: str) -> None:
        """Let ``text`` out; trailing white space waits for the text after it.

        So white space around a call never comes out on its own (a reply that is only calls
        has no text), however the stream was cut.
        """
        text = self._space + text
        kept = text.rstrip()
        self._space = text[len(kept) :]
        if not kept:
            return
        text = kept
        self._at_start = False
        self._released.append(text)
        out.append(chat.TextDelta(text=text))

    def _take(self, out: list[chat.LLMChunk], count: int) -> None:
        """Let the first ``count`` characters of the buffer through."""
        self._release(out, self._buffer[:count])
        self._buffer = self._buffer[count:]

    def _scan_text(self, out: list[chat.LLMChunk], *, final: bool) -> bool:
        """Plain text: let it through up to an opener; returns whether a segment began."""
        buffer = self._buffer
        if self._in_code:
            close = buffer.find("```")
            if close >= 0:
                self._in_code = False
                self._take(out, close + 3)
                return True
            self._take(out, len(buffer) if final else len(buffer.rstrip("`")))
            return False
        hits = [(buffer.find(opener), opener) for opener in shapes.OPENERS]
        found = sorted((index, opener) for index, opener in hits if index >= 0)
        if self._at_start:
            first = len(buffer) - len(buffer.lstrip())
            if first == len(buffer):
                if final:
                    self._take(out, len(buffer))
                return False
            if buffer[first] in "{[" and not (found and found[0][0] == first):
                if not final and "[TOOL_CALLS]".startswith(buffer[first : first + 12]):
                    return False  # may still become the marker
                self._take(out, first)
                self._kind = "json"
                return True
        if found:
            index, opener = found[0]
            self._take(out, index)
            self._kind = shapes.OPENERS[opener]
            return True
        self._take(out, len(buffer) if final else len(buffer) - _opener_tail(buffer))
        return False

    def _scan_segment(self, out: list[chat.LLMChunk], *, final: bool) -> bool:
        """A possible call: wait for its end, then read it; returns whether it ended."""
        kind = self._kind
        assert kind is not None
        if kind == "fence":
            is_json = shapes.fence_is_json(self._buffer)
            if is_json is None and not final:
                return False
            if not is_json:
                self._kind = None
                self._in_code = True
                self._take(out, 3)
                return True
        if self._end is None:
            self._end = shapes.SegmentEnd(kind)
        end = self._end.find(self._buffer, final=final)
        if end is None:
            return False
        segment, self._buffer = self._buffer[:end], self._buffer[end:]
        self._kind = None
        self._end = None
        chunks = self._read(kind, segment)
        if chunks is None:
            self._release(out, segment)
        else:
            out.extend(chunks)
        return True

    def _read(self, kind: shapes.SegmentKind, segment: str) -> list[chat.LLMChunk] | None:
        """The chunks a complete segment stands for; None when it is just text."""
        candidates = shapes.read_segment(kind, segment)
        if candidates is None:
            return None
        if any(c.loose and c.name not in self._tools for c in candidates):
            return None  # {"name": "Alice"} is an answer, not a call
        chunks: list[chat.LLMChunk] = []
        for candidate in candidates:
            reason = self._problem(candidate)
            if reason:
                _LOGGER.warning(
                    "A tool call written as text was not used (%s): %s",
                    candidate.name or "no name",
                    reason,
                )
                chunks.append(
                    chat.ToolCallRejected(
                        name=candidate.name,
                        reason=reason,
                        text=segment[:_REJECTED_TEXT_CHARS],
                    )
                )
                continue
            self.found_call = True
            call = chat.ToolCall(
                id=new_call_id(), name=candidate.name, arguments=candidate.arguments
            )
            chunks.append(chat.ToolCallChunk(call=call))
        return chunks

    def _problem(self, candidate: shapes.Candidate) -> str:
        """Why ``candidate`` cannot be run ("" when it can)."""
        if candidate.problem:
            return candidate.problem
        tool = self._tools.get(candidate.name)
        if tool is None:
            offered = ", ".join(sorted(self._tools)) or "none"
            return f"{candidate.name!r} is not one of the tools offered ({offered})"
        return self._schema_problem(tool, candidate.arguments)

    def _schema_problem(self, tool: chat.ToolSpec, arguments: dict[str, Any]) -> str:
        """The first way ``arguments`` break ``tool``'s JSON schema ("" when they do not)."""
        import jsonschema
        from jsonschema.validators import validator_for

        validator = self._validators.get(tool.name)
        if validator is None:
            try:
                cls = validator_for(tool.parameters, default=jsonschema.Draft202012Validator)
                cls.check_schema(tool.parameters)
            except jsonschema.SchemaError as exc:
                return f"the schema of {tool.name} cannot be checked: {exc.message}"
            validator = cls(tool.parameters)
            self._validators[tool.name] = validator
        errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
        if not errors:
            return ""
        first = errors[0]
        where = "/".join(str(part) for part in first.absolute_path) or "arguments"
        return f"arguments of {tool.name} do not match its schema: {where}: {first.message}"


def _opener_tail(text: str) -> int:
    """Length of the longest end of ``text`` that may be the start of an opener."""
    for size in range(min(len(text), max(len(o) for o in shapes.OPENERS) - 1), 0, -1):
        tail = text[-size:]
        if any(opener.startswith(tail) for opener in shapes.OPENERS):
            return size
    return 0


async def recognise_text_calls(
    chunks: AsyncGenerator[chat.LLMChunk, None],
    tools: Sequence[chat.ToolSpec],
    choice: chat.ToolChoice | None = None,
) -> AsyncGenerator[chat.LLMChunk, None]:
    """``chunks`` with tool calls written as text turned into calls (see the module doc).

    With a ``choice`` (the request requires a tool call) the whole reply waits for the verdict:
    a reply without the required call (a server without ``tool_choice``, e.g. Ollama, or one
    that ignored it) ends in a ``chat.ToolCallRejected`` instead of text.

    Raises:
        StreamInterruptedError: as ``chunks`` does, its ``partial_text`` cut to what was let
            through (held-back call text is never kept as the reply).
    """
    reader = TextCallFilter(tools)
    held: list[chat.LLMChunk] = []
    try:
        async with contextlib.aclosing(chunks):
            async for chunk in chunks:
                if isinstance(chunk, chat.TextDelta):
                    produced = reader.feed(chunk.text)
                elif isinstance(chunk, chat.StreamEnd):
                    produced = reader.finish()
                    if choice is not None:
                        produced = _required(choice, [*held, *produced], reader.released_text)
                    if reader.found_call and chunk.stop_reason == "stop":
                        chunk = dataclasses.replace(chunk, stop_reason="tool_use")
                    produced.append(chunk)
                else:
                    produced = [chunk]
                if choice is not None and isinstance(chunk, chat.TextDelta | chat.ToolCallChunk):
                    held.extend(produced)  # a required call: the reply waits for the verdict
                    continue
                for out in produced:
                    yield out
    except StreamInterruptedError as exc:
        exc.partial_text = "" if choice is not None else reader.released_text
        raise


def _required(
    choice: chat.ToolChoice, chunks: list[chat.LLMChunk], text: str
) -> list[chat.LLMChunk]:
    """A finished reply's chunks when a tool call was required: the call, or a rejection."""
    out: list[chat.LLMChunk] = []
    called = False
    for chunk in chunks:
        wrong = isinstance(chunk, chat.ToolCallChunk) and chunk.call.name != choice.name
        if wrong and choice.mode == "tool":
            reason = f"this request requires a call of {choice.name}"
            out.append(chat.ToolCallRejected(name=choice.name, reason=reason, text=text))
            continue
        called = called or isinstance(chunk, chat.ToolCallChunk)
        out.append(chunk)
    if called:
        return out
    rejected = [chunk for chunk in out if isinstance(chunk, chat.ToolCallRejected)]
    if rejected:
        return list(rejected)
    wanted = choice.name if choice.mode == "tool" else "one of the tools"
    _LOGGER.warning("A reply without the required tool call (%s)", wanted)
    return [
        chat.ToolCallRejected(
            name=choice.name,
            reason=f"this request requires a call of {wanted}, and the reply made none",
            text=text[:_REJECTED_TEXT_CHARS],
        )
    ]
