"""A tool server's question (``mcp-question``) asked at the terminal during ``aria chat``/``ask``.

The terminal is the CLI's out-of-band channel, as for confirmations: each field is asked in
turn, Enter keeps the server's default, and an answer ARIA refuses (a required field left
empty, a number that is none) is asked again. No terminal, or no answer in time, declines.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from aria_desktop.cli._common import err
from aria_desktop.domain.errors import ConfirmationError

if TYPE_CHECKING:
    from aria_desktop.core.ports import Assistant
    from aria_desktop.domain.mcp_events import McpQuestion

__all__ = ["answer_question"]

_TRIES = 3


async def _input(prompt: str) -> str:
    return (await asyncio.to_thread(input, prompt)).strip()


async def _field(name: str, spec: Mapping[str, Any], required: bool) -> tuple[bool, Any]:
    """Ask one field: (given, value); Enter keeps the default (not given)."""
    title = str(spec.get("title") or name)
    kind = spec.get("type", "string")
    choices = [str(c) for c in spec.get("enum") or ()]
    default = spec.get("default")
    shown = f" [{default}]" if default is not None else (" (required)" if required else "")
    listed = f" ({' / '.join(choices)})" if choices else (" (y/n)" if kind == "boolean" else "")
    if spec.get("description"):
        print(f"  {spec['description']}")
    text = await _input(f"  {title}{listed}{shown}: ")
    if not text:
        return False, None
    if kind == "boolean":
        return True, text.lower() in {"y", "yes", "true", "1"}
    if kind == "array":
        return True, [item.strip() for item in text.split(",") if item.strip()]
    with contextlib.suppress(ValueError):
        if kind == "integer":
            return True, int(text)
        if kind == "number":
            return True, float(text.replace(",", "."))
    return True, text


Answer = tuple[str, dict[str, Any]]


async def _ask(question: McpQuestion) -> Answer:
    print(f"\nThe tool server {question.server} asks: {question.message}")
    if question.mode == "url":
        where = question.domain or "an unknown site"
        agreed = await _input(f"  Open a page on {where} ({question.url})? [y/N] ")
        return ("accept" if agreed.lower() in {"y", "yes"} else "decline"), {}
    values: dict[str, Any] = {}
    required = set(question.fields.get("required") or ())
    for name, spec in (question.fields.get("properties") or {}).items():
        given, value = await _field(name, spec, name in required)
        if given:
            values[name] = value
    send = await _input("  Send this answer to the server? [Y/n] ")
    return ("decline" if send.lower() in {"n", "no"} else "accept"), values


async def answer_question(assistant: Assistant, question: McpQuestion) -> None:
    """Ask ``question`` at the terminal and send the answer (asked again when refused)."""
    from aria_desktop.domain.commands import AnswerMcpQuestion

    terminal = sys.stdin.isatty()
    if not terminal:
        err(f"[the tool server {question.server} asks something; no terminal to ask — declined]")
    for attempt in range(_TRIES):
        action, values = "decline", dict[str, Any]()
        if terminal and attempt < _TRIES - 1:
            try:
                async with asyncio.timeout(question.timeout_s):
                    action, values = await _ask(question)
            except (TimeoutError, EOFError):
                pass
        try:
            await assistant.execute(
                AnswerMcpQuestion(
                    request_id=question.request_id,
                    nonce=question.nonce,
                    action=action,
                    values=values,
                )
            )
            return
        except ConfirmationError as exc:
            if action != "accept":
                return  # answered elsewhere or expired: let it go
            err(exc.message)
