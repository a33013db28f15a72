"""``aria conversations``: list, show and delete stored conversations."""

from __future__ import annotations

import argparse
import json
from typing import Any

from aria_desktop.cli._args import add_actions, add_paging, add_show
from aria_desktop.cli._common import EXIT_OK, Subparsers, err, fmt_time, print_json
from aria_desktop.compose.assistant import open_assistant
from aria_desktop.domain.errors import NotFoundError
from aria_desktop.settings import Settings

__all__ = ["register"]


def register(sub: Subparsers) -> None:
    """Add the ``conversations`` subcommand."""
    conv_sub = add_actions(
        sub, "conversations", "list, show or delete conversations", _cmd_conversations
    )
    conv_list = conv_sub.add_parser("list", help="newest first")
    add_paging(conv_list, limit=50)
    add_show(conv_sub, "print a conversation")
    conv_delete = conv_sub.add_parser("delete", help="delete a conversation and its messages")
    conv_delete.add_argument("id")


async def _cmd_conversations(args: argparse.Namespace, settings: Settings) -> int:
    async with open_assistant(settings) as store:
        if args.action == "list":
            conversations = await store.list_conversations(limit=args.limit, offset=args.offset)
            if args.json:
                print_json([c.__dict__ for c in conversations])
            elif not conversations:
                err('No conversations yet. Start one with: aria chat "hello"')
            for c in conversations if not args.json else []:
                print(f"{c.id}  {fmt_time(c.updated_at)}  {c.message_count:>4} msgs  {c.title}")
            return EXIT_OK
        conversation = await store.get_conversation(args.id)
        if conversation is None:
            raise NotFoundError(
                f"There is no conversation {args.id!r}.",
                hint="List them with `aria conversations list`.",
            )
        if args.action == "delete":
            await store.delete_conversation(args.id)
            err(f"Deleted conversation {args.id} ({conversation.title}).")
            return EXIT_OK
        messages = await store.list_messages(args.id)
        if args.json:
            print_json(
                {
                    "conversation": conversation.__dict__,
                    "messages": [_message_dict(m) for m in messages],
                }
            )
            return EXIT_OK
        print(f"# {conversation.title}  ({conversation.id}, {fmt_time(conversation.created_at)})")
        for m in messages:
            badge = f" [{m.backend}/{m.model}]" if m.backend else ""
            state = "" if m.status == "complete" else f" ({m.status})"
            print(f"\n{m.role}{badge}{state}:")
            if m.content:
                print(m.content)
            for call in m.tool_calls:
                print(f"  -> {call.name}({json.dumps(call.arguments, ensure_ascii=False)})")
        return EXIT_OK


def _message_dict(message: Any) -> dict[str, Any]:
    data = dict(message.__dict__)
    data["tool_calls"] = [call.__dict__ for call in message.tool_calls]
    data["usage"] = message.usage.__dict__
    return data
