"""The ``aria`` command.

Every subcommand reports expected failures as a plain message with a hint (exit status 1, or 2
for usage and configuration mistakes) and never shows a traceback: unexpected errors are
written with their traceback to the log file, and the user is told where it is.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, TextIO

from aria_desktop import __version__, keystore, paths
from aria_desktop.domain.commands import CancelTurn, ConfirmAction, StartTurn
from aria_desktop.domain.errors import AriaError, ConfigError, ConfirmationError, NotFoundError
from aria_desktop.domain.events import (
    ActionConfirmRequest,
    BackendFallback,
    ErrorEvent,
    Event,
    LlmDelta,
    RunEnd,
    ThinkEnd,
    ToolCallEvent,
    ToolResultEvent,
)
from aria_desktop.log import setup_logging
from aria_desktop.settings import (
    Settings,
    load_settings,
    resolve_database_path,
    resolve_log_file,
)

_LOGGER = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

Handler = Callable[[argparse.Namespace, Settings], Coroutine[Any, Any, int]]


# --- output helpers ------------------------------------------------------------------------


def _err(text: str = "") -> None:
    print(text, file=sys.stderr, flush=True)


def _report(exc: AriaError) -> None:
    _err(f"Error: {exc.message}")
    if exc.hint:
        _err(f"Hint: {exc.hint}")


def _print_json(data: Any, stream: TextIO = sys.stdout) -> None:
    print(json.dumps(data, ensure_ascii=False, default=str), file=stream, flush=True)


def _fmt_time(unix_s: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(unix_s))


# --- chat ----------------------------------------------------------------------------------


class _ChatRenderer:
    """Prints one turn's events: reply text to stdout as it streams, the rest to stderr."""

    def __init__(self, *, as_json: bool) -> None:
        self.as_json = as_json
        self.backend = ""
        self.model = ""
        self.wrote_text = False

    def render(self, event: Event) -> None:
        if self.as_json:
            _print_json(event.to_dict())
            return
        if isinstance(event, LlmDelta):
            sys.stdout.write(event.text)
            sys.stdout.flush()
            self.wrote_text = True
        elif isinstance(event, ThinkEnd) and event.backend:
            self.backend, self.model = event.backend, event.model
        elif isinstance(event, BackendFallback):
            self._end_line()
            _err(f"[{event.from_backend} failed ({event.reason}); trying {event.to_backend}]")
        elif isinstance(event, ToolCallEvent):
            self._end_line()
            args = json.dumps(event.arguments, ensure_ascii=False)
            _err(f"[tool {event.name} {args[:120]}]")
        elif isinstance(event, ToolResultEvent):
            _err(f"[tool {event.name}: {event.status}]")
        elif isinstance(event, ErrorEvent):
            self._end_line()
            _err(f"Error: {event.message}")
            if event.hint:
                _err(f"Hint: {event.hint}")
        elif isinstance(event, RunEnd):
            self._end_line()
            if event.status == "complete":
                where = f"{self.backend} · {self.model}" if self.backend else "no model"
                _err(f"— {where} · {event.latency_ms / 1000:.1f} s · {event.conversation_id}")
            elif event.status == "interrupted":
                _err("— the reply was cut off; what arrived is saved as interrupted")
            elif event.status == "cancelled":
                _err("— stopped; what arrived is saved as interrupted")

    def _end_line(self) -> None:
        if self.wrote_text:
            sys.stdout.write("\n")
            sys.stdout.flush()
            self.wrote_text = False


async def _ask_confirmation(event: ActionConfirmRequest) -> bool:
    """Ask at the terminal (the out-of-band channel for the CLI); no terminal means deny."""
    if not sys.stdin.isatty():
        _err(f"[{event.tool} needs confirmation; no terminal to ask — denied]")
        return False
    prompt = f"ARIA wants to: {event.summary}\n  ({event.reason}) Allow? [y/N] "
    try:
        async with asyncio.timeout(event.timeout_s):
            answer = await asyncio.to_thread(input, prompt)
    except (TimeoutError, EOFError):
        return False
    return answer.strip().lower() in {"y", "yes"}


async def _run_one_turn(
    app: Any, text: str, conversation_id: str | None, backend: str | None, as_json: bool
) -> tuple[str, str]:
    """Start a turn, render its events until run-end; returns (status, conversation id)."""
    orchestrator = app.orchestrator
    renderer = _ChatRenderer(as_json=as_json)
    sub = orchestrator.bus.subscribe()
    try:
        handle = await orchestrator.handle(
            StartTurn(text=text, conversation_id=conversation_id, backend=backend, source="text")
        )
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(
                signal.SIGINT,
                lambda: loop.create_task(orchestrator.handle(CancelTurn(run_id=handle.run_id))),
            )
        try:
            async for event in sub:
                if event.run_id != handle.run_id:
                    continue
                renderer.render(event)
                if isinstance(event, ActionConfirmRequest):
                    approved = await _ask_confirmation(event)
                    with contextlib.suppress(ConfirmationError):
                        await orchestrator.handle(
                            ConfirmAction(
                                request_id=event.request_id, nonce=event.nonce, approved=approved
                            )
                        )
                if isinstance(event, RunEnd):
                    return event.status, handle.conversation_id
        finally:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signal.SIGINT)
    finally:
        sub.close()
    return "error", handle.conversation_id


async def _cmd_chat(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.bootstrap import build_app

    app = await build_app(settings)
    try:
        if args.message:
            text = " ".join(args.message)
            if text == "-":
                text = sys.stdin.read()
            status, _ = await _run_one_turn(app, text, args.conversation, args.backend, args.json)
            return EXIT_OK if status == "complete" else EXIT_FAILURE
        return await _chat_repl(app, args)
    finally:
        await app.aclose()


async def _chat_repl(app: Any, args: argparse.Namespace) -> int:
    """Interactive chat: one conversation, Ctrl+C stops a reply, Ctrl+D or /quit leaves."""
    conversation_id: str | None = args.conversation
    _err(f"ARIA {__version__} — type a message. Ctrl+C stops a reply; Ctrl+D quits.")
    while True:
        try:
            line = await asyncio.to_thread(input, "you> ")
        except EOFError:
            _err()
            return EXIT_OK
        text = line.strip()
        if not text:
            continue
        if text in {"/quit", "/exit"}:
            return EXIT_OK
        try:
            _, conversation_id = await _run_one_turn(
                app, text, conversation_id, args.backend, args.json
            )
        except AriaError as exc:
            _report(exc)


# --- conversations ---------------------------------------------------------------------------


async def _cmd_conversations(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.bootstrap import open_storage

    storage = await open_storage(settings)
    try:
        store = storage.store
        if args.action == "list":
            conversations = await store.list_conversations(limit=args.limit, offset=args.offset)
            if args.json:
                _print_json([c.__dict__ for c in conversations])
            elif not conversations:
                _err('No conversations yet. Start one with: aria chat "hello"')
            for c in conversations if not args.json else []:
                print(f"{c.id}  {_fmt_time(c.updated_at)}  {c.message_count:>4} msgs  {c.title}")
            return EXIT_OK
        conversation = await store.get_conversation(args.id)
        if conversation is None:
            raise NotFoundError(
                f"There is no conversation {args.id!r}.",
                hint="List them with `aria conversations list`.",
            )
        if args.action == "delete":
            await store.delete_conversation(args.id)
            _err(f"Deleted conversation {args.id} ({conversation.title}).")
            return EXIT_OK
        messages = await store.list_messages(args.id)
        if args.json:
            _print_json(
                {
                    "conversation": conversation.__dict__,
                    "messages": [_message_dict(m) for m in messages],
                }
            )
            return EXIT_OK
        print(f"# {conversation.title}  ({conversation.id}, {_fmt_time(conversation.created_at)})")
        for m in messages:
            badge = f" [{m.backend}/{m.model}]" if m.backend else ""
            state = "" if m.status == "complete" else f" ({m.status})"
            print(f"\n{m.role}{badge}{state}:")
            if m.content:
                print(m.content)
            for call in m.tool_calls:
                print(f"  -> {call.name}({json.dumps(call.arguments, ensure_ascii=False)})")
        return EXIT_OK
    finally:
        await storage.aclose()


def _message_dict(message: Any) -> dict[str, Any]:
    data = dict(message.__dict__)
    data["tool_calls"] = [call.__dict__ for call in message.tool_calls]
    data["usage"] = message.usage.__dict__
    return data


# --- config ----------------------------------------------------------------------------------


async def _cmd_config(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.settings import describe_keys, set_value, settings_as_dict

    if args.action == "path":
        print(f"settings  {paths.settings_file()}")
        print(f"database  {resolve_database_path(settings)}")
        print(f"log       {resolve_log_file(settings)}")
        print(f"audit     {paths.audit_log_path()}")
        return EXIT_OK
    if args.action == "show":
        data = settings_as_dict(settings)
        data["secrets"] = {name: keystore.secret_status(name) for name in keystore.SECRET_NAMES}
        if args.json:
            _print_json(data)
        else:
            _print_tree(data)
        return EXIT_OK
    if args.action == "keys":
        for key, type_name, default in describe_keys():
            print(f"{key:40} {type_name:22} {default}")
        return EXIT_OK
    if args.action == "set":
        set_value(args.key, args.value)
        _err(f"Set {args.key} = {args.value} in {paths.settings_file()}")
        return EXIT_OK
    if args.action == "set-secret":
        value = _read_secret(args.name)
        keystore.set_secret(args.name, value, allow_file_fallback=args.insecure_file)
        _err(f"Stored {args.name} ({keystore.secret_status(args.name)}).")
        return EXIT_OK
    if args.action == "delete-secret":
        keystore.delete_secret(args.name)
        _err(f"Deleted {args.name}.")
        return EXIT_OK
    raise AssertionError(args.action)


def _read_secret(name: str) -> str:
    """Read a secret from the terminal without echo, or from stdin when piped (never argv)."""
    import getpass

    raw = getpass.getpass(f"{name}: ") if sys.stdin.isatty() else sys.stdin.readline()
    value = raw.strip()
    if not value:
        raise ConfigError(f"No value given for {name}.", hint="Paste the key when asked.")
    return value


def _print_tree(data: dict[str, Any], prefix: str = "") -> None:
    for key, value in data.items():
        if isinstance(value, dict) and value and key != "chains":
            _print_tree(value, f"{prefix}{key}.")
        else:
            shown = json.dumps(value, ensure_ascii=False)
            print(f"{prefix}{key} = {shown}")


# --- audit -----------------------------------------------------------------------------------


async def _cmd_audit(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.bootstrap import open_audit_log

    audit = open_audit_log()
    if args.action == "verify":
        report = audit.verify()
        if report.ok:
            print(f"OK: {report.records} records, chain and checkpoint intact.")
            return EXIT_OK
        print(f"FAIL: record {report.first_bad_seq}: {report.reason}")
        return EXIT_FAILURE
    records = list(audit.records(limit=args.limit or None))
    for record in records:
        if args.json:
            _print_json(
                {
                    "seq": record.seq,
                    "ts": record.ts,
                    "kind": record.kind,
                    "data": dict(record.data),
                    "prev": record.prev,
                    "hash": record.hash,
                }
            )
        else:
            data = json.dumps(dict(record.data), ensure_ascii=False)
            print(f"{record.seq:>6}  {_fmt_time(record.ts)}  {record.kind:16} {data[:160]}")
    if not records and not args.json:
        _err("The audit log is empty: no tool has been called yet.")
    return EXIT_OK


# --- doctor and bench ------------------------------------------------------------------------


async def _cmd_doctor(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.doctor import run_checks

    results = await run_checks(settings)
    if args.json:
        _print_json([r.__dict__ for r in results])
    else:
        for r in results:
            print(f"{r.status:4}  {r.name:18} {r.detail}")
            if r.fix and r.status != "OK":
                print(f"      {'':18} fix: {r.fix}")
    return EXIT_FAILURE if any(r.status == "FAIL" for r in results) else EXIT_OK


async def _cmd_bench(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.bench import run_suite

    return await run_suite(args.suite, args)


# --- parser ----------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``aria`` command."""
    parser = argparse.ArgumentParser(
        prog="aria", description="ARIA Desktop — your local-first desktop assistant."
    )
    parser.add_argument("--version", action="version", version=f"aria-desktop {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log to stderr too")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    chat = sub.add_parser("chat", help="ask something (or start an interactive chat)")
    chat.add_argument(
        "message", nargs="*", help="the message ('-' reads stdin); none = interactive"
    )
    chat.add_argument("--conversation", "-c", metavar="ID", help="continue this conversation")
    chat.add_argument("--backend", "-b", metavar="NAME", help="use only this backend")
    chat.add_argument("--json", action="store_true", help="print one JSON event per line")
    chat.set_defaults(handler=_cmd_chat)

    conv = sub.add_parser("conversations", help="list, show or delete conversations")
    conv_sub = conv.add_subparsers(dest="action", required=True, metavar="ACTION")
    conv_list = conv_sub.add_parser("list", help="newest first")
    conv_list.add_argument("--limit", type=int, default=50)
    conv_list.add_argument("--offset", type=int, default=0)
    conv_list.add_argument("--json", action="store_true")
    conv_show = conv_sub.add_parser("show", help="print a conversation")
    conv_show.add_argument("id")
    conv_show.add_argument("--json", action="store_true")
    conv_delete = conv_sub.add_parser("delete", help="delete a conversation and its messages")
    conv_delete.add_argument("id")
    conv.set_defaults(handler=_cmd_conversations)

    config = sub.add_parser("config", help="show or change settings and secrets")
    config_sub = config.add_subparsers(dest="action", required=True, metavar="ACTION")
    show = config_sub.add_parser("show", help="effective settings (secrets redacted)")
    show.add_argument("--json", action="store_true")
    config_sub.add_parser("path", help="where settings, database and logs live")
    config_sub.add_parser("keys", help="every setting with its type and default")
    set_parser = config_sub.add_parser("set", help="change a setting, e.g. llm.ollama.url")
    set_parser.add_argument("key")
    set_parser.add_argument("value")
    secret = config_sub.add_parser(
        "set-secret", help="store an API key in the system keyring (read from the terminal)"
    )
    secret.add_argument("name", choices=keystore.SECRET_NAMES)
    secret.add_argument(
        "--insecure-file",
        action="store_true",
        help="if no keyring is usable, store it in a file readable only by you",
    )
    delete_secret = config_sub.add_parser("delete-secret", help="remove a stored API key")
    delete_secret.add_argument("name", choices=keystore.SECRET_NAMES)
    config.set_defaults(handler=_cmd_config)

    audit = sub.add_parser("audit", help="the tamper-evident log of tool calls")
    audit_sub = audit.add_subparsers(dest="action", required=True, metavar="ACTION")
    audit_list = audit_sub.add_parser("list", help="print records")
    audit_list.add_argument("--limit", type=int, default=50, help="last N records (0 = all)")
    audit_list.add_argument("--json", action="store_true")
    audit_sub.add_parser("verify", help="check the hash chain; report the first bad record")
    audit.set_defaults(handler=_cmd_audit)

    doctor = sub.add_parser("doctor", help="check the set-up and explain how to fix problems")
    doctor.add_argument("--json", action="store_true")
    doctor.set_defaults(handler=_cmd_doctor)

    bench = sub.add_parser("bench", help="measure performance")
    bench_sub = bench.add_subparsers(dest="suite", required=True, metavar="SUITE")
    core = bench_sub.add_parser("core", help="orchestrator overhead and storage throughput")
    core.add_argument("--turns", type=int, default=60, help="turns per side")
    core.add_argument("--chunks", type=int, default=40, help="streamed chunks per reply")
    core.add_argument("--messages", type=int, default=2000, help="messages for the write test")
    bench.set_defaults(handler=_cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``aria`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return EXIT_USAGE
    keystore.scrub_secret_env()
    log_file: Path | None = None
    try:
        settings = load_settings()
        log_file = resolve_log_file(settings)
        setup_logging(settings.log.level, log_file, console=args.verbose)
        handler: Handler = args.handler
        return asyncio.run(handler(args, settings))
    except ConfigError as exc:
        _report(exc)
        return EXIT_USAGE
    except AriaError as exc:
        _report(exc)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        _err("Interrupted.")
        return EXIT_INTERRUPTED
    except Exception as exc:
        _LOGGER.exception("Unexpected error in `aria %s`", args.command)
        _err(f"Unexpected error: {exc.__class__.__name__}: {exc}")
        _err(f"Details are in {log_file or 'the log'}. Please report it.")
        return EXIT_FAILURE
