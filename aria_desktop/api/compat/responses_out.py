"""ARIA's turn -> OpenAI's Responses API: the ``response`` object and its streamed events.

A finished turn becomes a ``response`` whose ``output`` holds an assistant ``message`` (one
``output_text`` part) and a ``function_call`` item per client tool call. Streamed, the same
object is built event by event as OpenAI sends it: ``response.created``,
``response.in_progress``, for the text ``response.output_item.added`` ->
``response.content_part.added`` -> ``response.output_text.delta``... -> ``.done`` events, a
function call as its item with ``response.function_call_arguments.delta`` / ``.done``, and
``response.completed`` (or ``response.failed``) last. Each SSE frame names its event and
carries a ``sequence_number``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from aria_desktop.domain.events import ClientToolCall, ErrorEvent
from aria_desktop.domain.transcript import TurnTranscript

__all__ = ["ResponseShape", "ResponseStream", "event_frame", "function_call_item"]


@dataclass(frozen=True, kw_only=True)
class ResponseShape:
    """What a response echoes of its request.

    Attributes:
        id: the response id (``resp_...``).
        model: the model name the client asked for.
        created_at: UNIX seconds the request arrived.
        request: the echoed request fields (instructions, tools, tool_choice, ...).
    """

    id: str
    model: str
    created_at: float
    request: dict[str, Any] = field(default_factory=dict)

    def response(
        self,
        status: str,
        output: list[dict[str, Any]],
        turn: TurnTranscript | None = None,
        error: ErrorEvent | None = None,
    ) -> dict[str, Any]:
        """The ``response`` object in ``status`` with ``output`` (usage once the turn ended)."""
        usage = None
        if turn is not None and status == "completed":
            usage = {
                "input_tokens": turn.input_tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": turn.output_tokens,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": turn.input_tokens + turn.output_tokens,
            }
        return {
            "id": self.id,
            "object": "response",
            "created_at": int(self.created_at),
            "status": status,
            "model": self.model,
            "output": output,
            "error": None if error is None else {"code": error.code, "message": error.message},
            "incomplete_details": None,
            "usage": usage,
            "parallel_tool_calls": True,
            "text": {"format": {"type": "text"}},
            "tool_choice": self.request.get("tool_choice") or "auto",
            "tools": self.request.get("tools") or [],
            "instructions": self.request.get("instructions"),
            "previous_response_id": self.request.get("previous_response_id"),
            "store": self.request.get("store", True),
            "metadata": self.request.get("metadata") or {},
            "temperature": self.request.get("temperature"),
            "top_p": None,
            "max_output_tokens": self.request.get("max_output_tokens"),
        }

    def whole(self, turn: TurnTranscript) -> dict[str, Any]:
        """The completed ``response`` of a finished turn."""
        output: list[dict[str, Any]] = []
        if turn.text or not turn.client_calls:
            output.append(message_item(f"msg_{self.id[5:]}", turn.text, "completed"))
        for index, call in enumerate(turn.client_calls):
            output.append(function_call_item(f"fc_{self.id[5:]}_{index}", call, "completed"))
        return self.response("completed", output, turn)


def message_item(item_id: str, text: str, status: str) -> dict[str, Any]:
    """An assistant ``message`` output item: one ``output_text`` part once it is completed."""
    done = status == "completed"
    return {
        "type": "message",
        "id": item_id,
        "status": status,
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}] if done else [],
    }


def function_call_item(item_id: str, call: ClientToolCall, status: str) -> dict[str, Any]:
    """A ``function_call`` output item (arguments as JSON text, "" while in progress)."""
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call.call_id,
        "name": call.name,
        "arguments": json.dumps(call.arguments) if status == "completed" else "",
        "status": status,
    }


def event_frame(event: dict[str, Any]) -> bytes:
    """One SSE frame naming its event, as the Responses API streams them."""
    data = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


@dataclass(kw_only=True)
class ResponseStream:
    """Builds a streamed response's events in order, numbering them.

    Feed it the turn's text pieces and client tool calls as they come; it opens and closes
    the output items around them.
    """

    shape: ResponseShape
    output: list[dict[str, Any]] = field(default_factory=list)
    _sequence: int = 0
    _text: list[str] = field(default_factory=list)
    _open_message: bool = False

    def _event(self, kind: str, **fields: Any) -> bytes:
        frame = event_frame({"type": kind, "sequence_number": self._sequence, **fields})
        self._sequence += 1
        return frame

    def start(self) -> list[bytes]:
        """``response.created`` and ``response.in_progress``."""
        opening = self.shape.response("in_progress", [])
        return [
            self._event("response.created", response=opening),
            self._event("response.in_progress", response=opening),
        ]

    @property
    def _message_id(self) -> str:
        return f"msg_{self.shape.id[5:]}"

    def text(self, piece: str) -> list[bytes]:
        """A piece of the reply's text (the message item opens with the first one)."""
        frames: list[bytes] = []
        if not self._open_message:
            self._open_message = True
            index = len(self.output)
            self.output.append(message_item(self._message_id, "", "in_progress"))
            frames.append(
                self._event(
                    "response.output_item.added", output_index=index, item=self.output[index]
                )
            )
            part = {"type": "output_text", "text": "", "annotations": []}
            frames.append(
                self._event(
                    "response.content_part.added",
                    item_id=self._message_id,
                    output_index=index,
                    content_index=0,
                    part=part,
                )
            )
        self._text.append(piece)
        frames.append(
            self._event(
                "response.output_text.delta",
                item_id=self._message_id,
                output_index=self._message_index,
                content_index=0,
                delta=piece,
                logprobs=[],
            )
        )
        return frames

    @property
    def _message_index(self) -> int:
        return next(i for i, item in enumerate(self.output) if item["id"] == self._message_id)

    def _close_message(self) -> list[bytes]:
        if not self._open_message:
            return []
        self._open_message = False
        index, text = self._message_index, "".join(self._text)
        part = {"type": "output_text", "text": text, "annotations": []}
        self.output[index] = message_item(self._message_id, text, "completed")
        ids = {"item_id": self._message_id, "output_index": index, "content_index": 0}
        return [
            self._event("response.output_text.done", **ids, text=text, logprobs=[]),
            self._event("response.content_part.done", **ids, part=part),
            self._event("response.output_item.done", output_index=index, item=self.output[index]),
        ]

    def call(self, call: ClientToolCall) -> list[bytes]:
        """A client tool call, whole: its item, its arguments, its item done."""
        frames = self._close_message()
        index = len(self.output)
        item_id = f"fc_{self.shape.id[5:]}_{index}"
        self.output.append(function_call_item(item_id, call, "in_progress"))
        frames.append(
            self._event("response.output_item.added", output_index=index, item=self.output[index])
        )
        text = json.dumps(call.arguments)
        ids = {"item_id": item_id, "output_index": index}
        frames.append(self._event("response.function_call_arguments.delta", **ids, delta=text))
        frames.append(self._event("response.function_call_arguments.done", **ids, arguments=text))
        self.output[index] = function_call_item(item_id, call, "completed")
        frames.append(
            self._event("response.output_item.done", output_index=index, item=self.output[index])
        )
        return frames

    def completed(self, turn: TurnTranscript) -> list[bytes]:
        """The open message closed, then ``response.completed`` with usage."""
        frames = self._close_message()
        whole = self.shape.response("completed", self.output, turn)
        frames.append(self._event("response.completed", response=whole))
        return frames

    def failed(self, error: ErrorEvent) -> list[bytes]:
        """``response.failed`` with the error (what was written so far stays in ``output``)."""
        frames = self._close_message()
        failed = self.shape.response("failed", self.output, error=error)
        frames.append(self._event("response.failed", response=failed))
        return frames
