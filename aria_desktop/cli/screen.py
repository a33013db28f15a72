"""``aria screen`` (look at, read, search and click the screen) and ``aria do`` (a task).

``shot``, ``ocr`` and ``find`` only look, so they run without the database. ``click`` and ``do``
act: they go through the whole safety pipeline of the core (policy, confirmation at this
terminal, re-verification, audit log) — the running daemon's or tray app's over its API when
one owns ARIA's data, else a core built here — like ``aria chat``. Ctrl+C during ``do`` is the
kill switch.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aria_desktop.cli._args import add_actions
from aria_desktop.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    Subparsers,
    answer_confirmation,
    err,
    follow_run,
    print_json,
)
from aria_desktop.compose.assistant import open_assistant
from aria_desktop.domain.errors import AriaError
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    from aria_desktop.core.ports import Assistant, EventSubscription
    from aria_desktop.domain.computer import Grounding, Rect, ScreenText
    from aria_desktop.domain.events import Event

__all__ = ["register"]


def register(sub: Subparsers) -> None:
    """Add the ``screen`` and ``do`` subcommands."""
    screen_sub = add_actions(
        sub, "screen", "look at, read, search and click the screen", _cmd_screen
    )
    shot = screen_sub.add_parser("shot", help="save a screenshot (PNG, physical pixels)")
    shot.add_argument("--out", metavar="FILE", help="where to save (default: ./screenshot-*.png)")
    shot.add_argument("--monitor", type=int, default=0, help="0 = all monitors (default), 1..")
    ocr = screen_sub.add_parser("ocr", help="read the text on the screen")
    ocr.add_argument("--region", metavar="X,Y,W,H", help="only this area (physical pixels)")
    ocr.add_argument("--json", action="store_true", help="words, lines, blocks and elements")
    find = screen_sub.add_parser("find", help="where is this text on the screen?")
    find.add_argument("text")
    find.add_argument("--json", action="store_true")
    click = screen_sub.add_parser("click", help="click this text (through the safety policy)")
    click.add_argument("text")
    click.add_argument("--dry-run", action="store_true", help="decide and record, do nothing")
    click.add_argument("--json", action="store_true")

    do = sub.add_parser("do", help="let ARIA do a task on the screen (computer use)")
    do.add_argument("task", nargs="+", help="what to do, e.g. 'open the Downloads folder'")
    do.add_argument("--dry-run", action="store_true", help="decide and record, do nothing")
    do.add_argument("--backend", "-b", metavar="NAME", help="use this model backend")
    do.add_argument("--json", action="store_true", help="print one JSON event per line")
    do.set_defaults(handler=_cmd_do)


def _region(text: str | None) -> Rect | None:
    from aria_desktop.domain.computer import Rect

    if not text:
        return None
    try:
        x, y, w, h = (int(part) for part in text.split(","))
    except ValueError:
        raise AriaError(
            f"Invalid region {text!r}.", hint="Write it as X,Y,WIDTH,HEIGHT, e.g. 0,0,800,600."
        ) from None
    return Rect(x, y, w, h)


async def _cmd_screen(args: argparse.Namespace, settings: Settings) -> int:
    if args.action == "click":
        return await _cmd_click(args, settings)
    from aria_desktop.adapters.computer.controller import DesktopController
    from aria_desktop.adapters.computer.ocr import TesseractOcr

    controller = DesktopController(ocr=TesseractOcr(upscale=settings.computer.ocr_upscale))
    if args.action == "shot":
        shot = await asyncio.to_thread(controller.capture, args.monitor)
        out = Path(args.out or f"screenshot-{time.strftime('%Y%m%d-%H%M%S')}.png")
        try:
            await asyncio.to_thread(out.write_bytes, shot.png)
        except OSError as exc:
            raise AriaError(
                f"Cannot write {out}: {exc.strerror or exc}", hint="Choose another --out path."
            ) from None
        region = shot.region
        print(out)
        err(f"{region.width}x{region.height} px at ({region.x}, {region.y}), {len(shot.png)} bytes")
        return EXIT_OK
    if args.action == "ocr":
        text = await asyncio.to_thread(controller.read, _region(args.region))
        if args.json:
            print_json(_screen_text_json(text))
        else:
            print(text.text)
            err(f"({len(text.words)} words, {len(text.elements)} elements, {text.ocr_ms:.0f} ms)")
        return EXIT_OK
    grounding = await asyncio.to_thread(controller.find, args.text)
    _print_grounding(grounding, as_json=args.json)
    return EXIT_OK if grounding.status == "found" else EXIT_FAILURE


def _screen_text_json(text: ScreenText) -> dict[str, Any]:
    return {
        "region": text.region.as_list(),
        "ocr_ms": round(text.ocr_ms, 1),
        "elements": [
            {"id": e.id, "text": e.text, "box": e.box.as_list(), "confidence": e.confidence}
            for e in text.elements
        ],
        "lines": [
            {"id": ln.id, "text": ln.text, "box": ln.box.as_list(), "block": ln.block}
            for ln in text.lines
        ],
        "blocks": [{"id": b.id, "text": b.text, "box": b.box.as_list()} for b in text.blocks],
        "words": [
            {"text": w.text, "confidence": w.confidence, "box": w.box.as_list(), "line": w.line}
            for w in text.words
        ],
    }


def _print_grounding(grounding: Grounding, *, as_json: bool) -> None:
    if as_json:
        print_json(grounding.as_json())
        return
    if grounding.status == "not_found":
        err(f"{grounding.query!r} is not on the screen.")
        return
    if grounding.status == "ambiguous":
        err(f"{grounding.query!r} appears in {len(grounding.matches)} places (not guessing):")
    for match in grounding.matches if grounding.status == "ambiguous" else grounding.matches[:1]:
        box = match.box
        print(
            f"{match.center.x} {match.center.y}\t{match.text!r} box {box.x},{box.y},"
            f"{box.width},{box.height} score {match.score:.2f}"
        )


async def _answer_confirmations(assistant: Assistant, sub: EventSubscription) -> None:
    """Forward the computer's confirmation requests to the terminal (runs until cancelled)."""
    from aria_desktop.domain.events import ActionConfirmRequest

    async for event in sub:
        if isinstance(event, ActionConfirmRequest) and event.tool == "computer":
            await answer_confirmation(assistant, event, what=event.summary)


async def _cmd_click(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.domain.commands import ClickText
    from aria_desktop.domain.computer import ComputerActionOutcome

    async with open_assistant(settings) as assistant:
        sub = assistant.subscribe()
        answering = asyncio.create_task(
            _answer_confirmations(assistant, sub), name="aria-cli-confirm"
        )
        try:
            outcome = await assistant.execute(ClickText(text=args.text, dry_run=args.dry_run))
        finally:
            answering.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await answering
            sub.close()
    if not isinstance(outcome, ComputerActionOutcome):
        raise AriaError("Computer use is not available in this ARIA.", hint="Run `aria doctor`.")
    if args.json:
        print_json(
            {
                "status": outcome.status,
                "action": outcome.action,
                "rule": outcome.rule,
                "detail": outcome.detail,
                "dry_run": outcome.dry_run,
            }
        )
    elif outcome.status == "ok":
        print(outcome.detail)
    else:
        err(f"Not clicked ({outcome.status}): {outcome.detail}")
        if outcome.rule == "computer-off":
            err("Hint: run with --dry-run to preview, or turn computer control on.")
    return EXIT_OK if outcome.status == "ok" else EXIT_FAILURE


def _print_event(event: Event) -> None:
    print_json(event.to_dict())


def _render(event: Event) -> None:
    from aria_desktop.domain.computer_events import (
        ComputerActionEnd,
        ComputerActionStart,
        ComputerTaskEnd,
        ComputerTaskStart,
    )
    from aria_desktop.domain.events import ErrorEvent, UntrustedContentFlagged

    if isinstance(event, ComputerTaskStart):
        where = f"{event.backend} · {event.model}" if event.backend else "no model"
        dry = " (dry run: nothing is performed)" if event.dry_run else ""
        err(f"[computer task · {where} · {event.mode} mode{dry}]")
    elif isinstance(event, ComputerActionStart):
        verdict = "" if event.verdict == "allow" else f" [{event.verdict}: {event.rule}]"
        err(f"→ {event.summary}{verdict}")
    elif isinstance(event, ComputerActionEnd) and event.status != "ok":
        err(f"  {event.status}: {event.detail}")
    elif isinstance(event, UntrustedContentFlagged):
        err(f"[{event.warning()}]")
    elif isinstance(event, ErrorEvent):
        err(f"Error: {event.message}")
    elif isinstance(event, ComputerTaskEnd):
        err(f"— {event.status} · {event.actions} actions · {event.latency_ms / 1000:.1f} s")
        if event.summary:
            print(event.summary)


async def _cmd_do(args: argparse.Namespace, settings: Settings) -> int:
    async with open_assistant(settings) as assistant:
        return await _run_task(assistant, args)


async def _run_task(assistant: Assistant, args: argparse.Namespace) -> int:
    """Start the task and render its events until it ends (in-process or over the API)."""
    from aria_desktop.domain.commands import RunComputerTask, StopEverything
    from aria_desktop.domain.computer import ComputerTaskStarted
    from aria_desktop.domain.computer_events import ComputerTaskEnd

    sub = assistant.subscribe()
    try:
        started = await assistant.execute(
            RunComputerTask(text=" ".join(args.task), dry_run=args.dry_run, backend=args.backend)
        )
        if not isinstance(started, ComputerTaskStarted):
            raise AriaError("Computer use is not available in this ARIA.", hint="`aria doctor`.")
        end = await follow_run(
            assistant,
            sub,
            started.run_id,
            render=_print_event if args.json else _render,
            until=ComputerTaskEnd,
            stop=lambda: assistant.execute(StopEverything()),
            confirm_what=lambda request: request.summary,
        )
    finally:
        sub.close()
    status = end.status if end is not None else "error"
    return EXIT_OK if status == "complete" else EXIT_FAILURE
