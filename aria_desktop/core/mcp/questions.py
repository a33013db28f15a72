"""A connected MCP server's questions to the user (elicitation), asked out of band.

The server's question is published as an ``mcp-question`` event carrying a nonce; the
front-ends (the desktop's dialog, ``aria chat``, an API client on ``/api/v1/events``) show it,
and only ``AnswerMcpQuestion`` echoing that nonce answers it. A form's values are checked
against the fields the server described (a flat JSON schema), with the server's defaults for
fields the person left out; a wrong answer is refused so the person can correct it, and the
question stays open. No answer before the timeout, or the kill switch, means "decline".
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from aria_desktop.core.bus import EventBus
from aria_desktop.domain.errors import ConfirmationError
from aria_desktop.domain.mcp import McpAsk, McpReply
from aria_desktop.domain.mcp_events import McpQuestion, McpQuestionAnswered

__all__ = ["QuestionBroker", "form_values"]

_LOGGER = logging.getLogger(__name__)
_ACTIONS = ("accept", "decline", "cancel")
_KIND_WORDS = {
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "yes or no",
    "array": "a list",
}
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
}


def form_values(fields: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """The form's values: ``given`` checked against ``fields``, defaults filled in.

    Raises:
        ConfirmationError: a value of the wrong type or outside its choices, an unknown
            field, or a required field left empty (the message names them all).
    """
    properties: Mapping[str, Any] = fields.get("properties") or {}
    required = set(fields.get("required") or ())
    problems: list[str] = [f"{name} was not asked for" for name in given if name not in properties]
    values: dict[str, Any] = {}
    for name, spec in properties.items():
        value = given.get(name, spec.get("default"))
        if value is None or value == "":
            if name in required:
                problems.append(f"{spec.get('title') or name} needs an answer")
            continue
        problem = _check(value, spec)
        if problem:
            problems.append(f"{spec.get('title') or name} {problem}")
        values[name] = value
    if problems:
        raise ConfirmationError("Please check your answer: " + "; ".join(problems) + ".")
    return values


def _check(value: Any, spec: Mapping[str, Any]) -> str:
    kind = spec.get("type", "string")
    allowed = _TYPES.get(kind)
    wrong_type = allowed is not None and not isinstance(value, allowed)
    if wrong_type or (kind in {"integer", "number"} and isinstance(value, bool)):
        return f"should be {_KIND_WORDS.get(kind, kind)}"
    choices = spec.get("enum") or [item.get("const") for item in spec.get("oneOf") or ()]
    items = value if isinstance(value, list) else [value]
    if choices and any(item not in choices for item in items):
        return "is not one of the choices"
    if isinstance(value, str):
        if len(value) < spec.get("minLength", 0):
            return f"needs at least {spec['minLength']} characters"
        if "maxLength" in spec and len(value) > spec["maxLength"]:
            return f"takes at most {spec['maxLength']} characters"
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in spec and value < spec["minimum"]:
            return f"should be at least {spec['minimum']}"
        if "maximum" in spec and value > spec["maximum"]:
            return f"should be at most {spec['maximum']}"
    return ""


@dataclass
class _Pending:
    question: McpQuestion
    future: asyncio.Future[McpReply]


class QuestionBroker:
    """Publishes servers' questions and matches answers to them by id and nonce."""

    def __init__(self, bus: EventBus, *, timeout_s: float = 300.0) -> None:
        """Questions go out on ``bus``; unanswered after ``timeout_s`` they count as declined."""
        self._bus = bus
        self._timeout_s = timeout_s
        self._pending: dict[str, _Pending] = {}

    async def ask(self, ask: McpAsk) -> McpReply:
        """Ask the person and wait; decline on timeout, the kill switch or cancellation."""
        request_id = secrets.token_hex(8)
        server = ask.server
        question = McpQuestion(
            request_id=request_id,
            nonce=secrets.token_urlsafe(24),
            server=server,
            message=ask.message,
            mode=ask.mode,
            fields=dict(ask.fields),
            url=ask.url,
            domain=(urlsplit(ask.url).hostname or "") if ask.url else "",
            timeout_s=self._timeout_s,
        )
        future: asyncio.Future[McpReply] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = _Pending(question=question, future=future)
        self._bus.publish(question)
        timed_out = False
        try:
            async with asyncio.timeout(self._timeout_s):
                reply = await future
        except TimeoutError:
            reply, timed_out = McpReply(action="decline"), True
        finally:
            self._pending.pop(request_id, None)
        self._bus.publish(
            McpQuestionAnswered(
                request_id=request_id, server=server, action=reply.action, timed_out=timed_out
            )
        )
        return reply

    def answer(self, request_id: str, nonce: str, action: str, values: Mapping[str, Any]) -> None:
        """Answer a pending question (the question stays open when the answer is refused).

        Raises:
            ConfirmationError: an unknown id, a wrong nonce, or values that do not fit.
        """
        pending = self._pending.get(request_id)
        if pending is None or pending.future.done():
            raise ConfirmationError(
                f"No open question {request_id!r} from a tool server.",
                hint="It may have timed out (which counts as declined).",
            )
        if not hmac.compare_digest(pending.question.nonce.encode(), nonce.encode()):
            _LOGGER.warning("Answer to MCP question %s refused: wrong nonce", request_id)
            raise ConfirmationError("The answer's nonce does not match the question.")
        if action not in _ACTIONS:
            raise ConfirmationError(f"{action!r} is no answer: accept, decline or cancel.")
        checked: dict[str, Any] = {}
        if action == "accept" and pending.question.mode == "form":
            checked = form_values(pending.question.fields, values)
        pending.future.set_result(McpReply(action=action, values=checked))  # type: ignore[arg-type]

    def decline_all(self) -> None:
        """Decline every open question (kill switch, shutdown)."""
        for pending in self._pending.values():
            if not pending.future.done():
                pending.future.set_result(McpReply(action="decline"))
