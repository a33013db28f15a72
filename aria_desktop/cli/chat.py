"""``aria chat``: one question, or an interactive chat, streamed as the reply arrives."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING

from aria_desktop import __version__
from aria_desktop.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    Subparsers,
    err,
    follow_run,
    print_json,
    report,
)
from aria_desktop.compose.assistant import open_assistant
from aria_desktop.domain.errors import AriaError
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    from aria_desktop.core.ports import Assistant
    from aria_desktop.domain.commands import TurnAttachment
    from aria_desktop.domain.events import Event

__all__ = ["register", "run_one_turn"]


def register(sub: Subparsers) -> None:
    """Add the ``chat`` subcommand."""
    chat = sub.add_parser("chat", help="ask something (or start an interactive chat)")
    chat.add_argument(
        "message", nargs="*", help="the message ('-' reads stdin); none = interactive"
    )
    chat.add_argument("--conversation", "-c", metavar="ID", help="continue this conversation")
    chat.add_argument("--backend", "-b", metavar="NAME", help="use only this backend")
    chat.add_argument("--json", action="store_true", help="print one JSON event per line")
    chat.add_argument(
        "--attach",
        nargs=2,
        action="append",
        default=[],
        metavar=("SERVER", "URI"),
        help="hand an MCP server's resource to the message (as data, not instructions)",
    )
    chat.set_defaults(handler=_cmd_chat)


class _ChatRenderer:
    """Prints one turn's events: reply text to stdout as it streams, the rest to stderr.

    The events are folded by a ``TurnTranscript`` (the one fold every front-end shares), so
    the closing line names who answered and where it runs as the events carry it.
    """

    def __init__(self, *, as_json: bool) -> None:
        from aria_desktop.domain.transcript import TurnTranscript

        self.as_json = as_json
        self.transcript = TurnTranscript()
        self.wrote_text = False

    def render(self, event: Event) -> None:
        from aria_desktop.domain.events import (
            BackendFallback,
            ErrorEvent,
            LlmDelta,
            RunEnd,
            ToolCallEvent,
            ToolCallRejectedEvent,
            ToolResultEvent,
            UntrustedContentFlagged,
        )

        self.transcript.add(event)
        if self.as_json:
            print_json(event.to_dict())
            return
        if isinstance(event, LlmDelta):
            sys.stdout.write(event.text)
            sys.stdout.flush()
            self.wrote_text = True
        elif isinstance(event, BackendFallback):
            self._end_line()
            err(f"[{event.from_backend} failed ({event.reason}); trying {event.to_backend}]")
        elif isinstance(event, ToolCallEvent):
            self._end_line()
            args = json.dumps(event.arguments, ensure_ascii=False)
            err(f"[tool {event.name} {args[:120]}]")
        elif isinstance(event, ToolResultEvent):
            err(f"[tool {event.name}: {event.status}]")
        elif isinstance(event, ToolCallRejectedEvent):
            self._end_line()
            err(f"[tool call not run ({event.name or 'no name'}): {event.reason}]")
        elif isinstance(event, UntrustedContentFlagged):
            self._end_line()
            err(f"[{event.warning()}]")
        elif isinstance(event, ErrorEvent):
            self._end_line()
            err(f"Error: {event.message}")
            if event.hint:
                err(f"Hint: {event.hint}")
        elif isinstance(event, RunEnd):
            self._end_line()
            if event.status == "complete":
                cost = self.transcript.cost
                err(
                    f"— {self._answered_by()} · {event.latency_ms / 1000:.1f} s · "
                    + (f"cost {cost:.4f} · " if cost else "")
                    + event.conversation_id
                )
            elif event.status == "interrupted":
                err("— the reply was cut off; what arrived is saved as interrupted")
            elif event.status == "cancelled":
                err("— stopped; what arrived is saved as interrupted")

    def _answered_by(self) -> str:
        """``ollama · llama3.2 · local``: backend, model and where it runs (as carried)."""
        folded = self.transcript
        if not folded.backend:
            return "no model"
        return " · ".join(part for part in (folded.backend, folded.model, folded.locality) if part)

    def _end_line(self) -> None:
        if self.wrote_text:
            sys.stdout.write("\n")
            sys.stdout.flush()
            self.wrote_text = False


async def run_one_turn(
    assistant: Assistant,
    text: str,
    conversation_id: str | None,
    backend: str | None,
    as_json: bool,
    attachments: tuple[TurnAttachment, ...] = (),
) -> tuple[str, str]:
    """Start a turn, render its events until run-end; returns (status, conversation id).

    Works the same in-process and against a running ARIA's API (``Assistant``).
    """
    from aria_desktop.domain.commands import StartTurn
    from aria_desktop.domain.events import RunEnd

    renderer = _ChatRenderer(as_json=as_json)
    sub = assistant.subscribe()
    try:
        handle = await assistant.start_turn(
            StartTurn(
                text=text,
                conversation_id=conversation_id,
                backend=backend,
                source="text",
                attachments=attachments,
            )
        )
        end = await follow_run(
            assistant,
            sub,
            handle.run_id,
            render=renderer.render,
            until=RunEnd,
            stop=lambda: assistant.cancel_turn(handle.run_id),
            confirm_what=lambda request: request.tool,
        )
    finally:
        sub.close()
    return (end.status if end is not None else "error"), handle.conversation_id


async def _cmd_chat(args: argparse.Namespace, settings: Settings) -> int:
    async with open_assistant(settings, mcp_servers=True) as assistant:
        if args.message:
            text = " ".join(args.message)
            if text == "-":
                text = sys.stdin.read()
            from aria_desktop.cli.mcp_offers import attachments

            attached = await attachments(assistant, args.attach)
            status, _ = await run_one_turn(
                assistant, text, args.conversation, args.backend, args.json, attached
            )
            return EXIT_OK if status == "complete" else EXIT_FAILURE
        return await _chat_repl(assistant, args)


async def _chat_repl(assistant: Assistant, args: argparse.Namespace) -> int:
    """Interactive chat: one conversation, Ctrl+C stops a reply, Ctrl+D or /quit leaves."""
    conversation_id: str | None = args.conversation
    err(f"ARIA {__version__} — type a message. Ctrl+C stops a reply; Ctrl+D quits.")
    while True:
        try:
            line = await asyncio.to_thread(input, "you> ")
        except EOFError:
            err()
            return EXIT_OK
        text = line.strip()
        if not text:
            continue
        if text in {"/quit", "/exit"}:
            return EXIT_OK
        try:
            _, conversation_id = await run_one_turn(
                assistant, text, conversation_id, args.backend, args.json
            )
        except AriaError as exc:
            report(exc)
