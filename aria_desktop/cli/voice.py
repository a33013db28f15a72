"""Voice subcommands: ``aria say``, ``aria transcribe``, ``aria listen``, ``aria voice devices``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aria_desktop.cli._common import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, Subparsers, err, print_json
from aria_desktop.domain.errors import AriaError
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    from aria_desktop.domain.events import Event

__all__ = ["register"]


def register(sub: Subparsers) -> None:
    """Add the voice subcommands."""
    say = sub.add_parser("say", help="speak text with ARIA's voice")
    say.add_argument("text", nargs="+", help="what to say ('-' reads stdin)")
    say.add_argument("--out", "-o", type=Path, metavar="FILE.wav", help="write a WAV file")
    say.set_defaults(handler=_cmd_say)

    transcribe = sub.add_parser("transcribe", help="transcribe a WAV file")
    transcribe.add_argument("file", type=Path, metavar="FILE.wav")
    transcribe.add_argument("--language", help="language code (multilingual models)")
    transcribe.add_argument("--json", action="store_true", help="print the result as JSON")
    transcribe.set_defaults(handler=_cmd_transcribe)

    listen = sub.add_parser(
        "listen",
        help="one voice turn: wake word -> command -> spoken reply, with timings",
        description="One voice turn: wait for the wake word, take the command, speak the "
        "reply, printing each stage and its timing. Audio comes from the microphone, a WAV "
        "file (--wav) or raw PCM on a pipe (--pcm), e.g.: "
        "arecord -q -f S16_LE -r 16000 -c 1 | aria listen --pcm -",
    )
    source = listen.add_mutually_exclusive_group()
    source.add_argument("--wav", type=Path, metavar="FILE.wav", help="read audio from a file")
    source.add_argument(
        "--pcm",
        metavar="FILE",
        help="read raw 16-bit little-endian PCM from a pipe, FIFO or file ('-' = stdin); "
        "16 kHz mono unless --rate/--channels say otherwise; the turn ends when it closes",
    )
    listen.add_argument(
        "--rate", type=int, default=16_000, metavar="HZ", help="sample rate of --pcm audio"
    )
    listen.add_argument(
        "--channels", type=int, default=1, metavar="N", help="channel count of --pcm audio"
    )
    listen.add_argument(
        "--no-wake", action="store_true", help="the audio starts with the command itself"
    )
    listen.add_argument("--out", "-o", type=Path, metavar="FILE.wav", help="reply into a WAV")
    listen.add_argument("--timeout", type=float, default=120.0, help="give up after seconds")
    listen.set_defaults(handler=_cmd_listen)

    voice = sub.add_parser("voice", help="voice set-up")
    voice_sub = voice.add_subparsers(dest="voice_command", required=True, metavar="COMMAND")
    devices = voice_sub.add_parser("devices", help="list microphones and speakers")
    devices.add_argument("--json", action="store_true")
    devices.set_defaults(handler=_cmd_devices)


async def _cmd_say(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.adapters.voice.audio import WavSink
    from aria_desktop.compose.voice import build_speech
    from aria_desktop.core.bus import EventBus
    from aria_desktop.domain.events import ErrorEvent

    text = " ".join(args.text)
    if text == "-":
        text = sys.stdin.read()
    sink = WavSink(args.out) if args.out else None
    bus = EventBus()
    errors = bus.subscribe(event_filter=lambda e: isinstance(e, ErrorEvent))
    speech = build_speech(settings, bus, sink=sink)
    try:
        started = time.monotonic()
        status = await speech.speak(text)
        if status != "complete":
            with contextlib.suppress(TimeoutError, StopAsyncIteration):
                event = await errors.get(timeout_s=0)
                if isinstance(event, ErrorEvent):
                    raise AriaError(event.message, hint=event.hint)
            return EXIT_FAILURE
        if args.out:
            err(f"wrote {args.out} in {time.monotonic() - started:.2f} s")
        return EXIT_OK
    finally:
        await speech.aclose()


async def _cmd_transcribe(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.adapters.voice.audio import read_wav
    from aria_desktop.compose.voice import build_stt

    clip = read_wav(args.file)
    stt = build_stt(settings)
    try:
        transcript = await stt.transcribe(clip, language=args.language)
    finally:
        await stt.aclose()
    if args.json:
        print_json(transcript.__dict__)
    else:
        print(transcript.text)
    return EXIT_OK


async def _cmd_devices(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.adapters.voice.devices import list_devices

    try:
        devices = list_devices()
    except AriaError as exc:
        if args.json:
            print_json([])
        err(f"{exc.message}\nHint: {exc.hint}")
        return EXIT_OK  # no audio system is a normal state, not a failure
    if args.json:
        print_json([d.__dict__ for d in devices])
        return EXIT_OK
    if not devices:
        print("No audio devices (no sound card). Typed chat works; voice needs a microphone.")
    # A sound server's names are what the settings take (copied whole, so not cut short);
    # its descriptions are what people recognise. Its devices have no index ("-").
    name_width = max((len(d.name) for d in devices), default=0)
    label_width = max((len(d.description) for d in devices), default=0)
    for d in devices:
        marks = ("*in " if d.is_default_input else "") + ("*out" if d.is_default_output else "")
        index = f"{d.index:3}" if d.index >= 0 else "  -"
        label = f"{d.description:{label_width}}  " if label_width else ""
        print(
            f"{index}  {d.name:{name_width}}  {label}in {d.inputs:2}  out {d.outputs:2}  "
            f"{d.default_rate_hz:7.0f} Hz  {d.host_api} {marks}"
        )
    return EXIT_OK


@dataclasses.dataclass
class _StagePrinter:
    """Prints each stage of a voice turn with the time since the previous mark.

    Attributes:
        started: when the turn began, wall-clock seconds (the clock events carry).
        marks: when each event type was first seen.
        wrote_text: reply text is on stdout without its closing newline yet.
    """

    started: float = dataclasses.field(default_factory=time.time)
    marks: dict[str, float] = dataclasses.field(default_factory=dict)
    wrote_text: bool = False

    def _line(self, text: str, ts: float) -> None:
        if self.wrote_text:
            sys.stdout.write("\n")
            self.wrote_text = False
        err(f"[{ts - self.started:7.3f} s] {text}")

    def render(self, event: Event) -> None:
        ts = event.ts
        self.marks.setdefault(event.type, ts)
        if event.type == "llm-delta":
            if not self.wrote_text:
                self._line("reply:", ts)
            sys.stdout.write(getattr(event, "text", ""))
            sys.stdout.flush()
            self.wrote_text = True
            return
        describe = _EVENT_LINES.get(event.type)
        text = describe(event) if describe is not None else None
        if text is not None:
            self._line(text, ts)

    def summary(self) -> None:
        def span(a: str, b: str) -> str:
            if a in self.marks and b in self.marks:
                return f"{(self.marks[b] - self.marks[a]) * 1000:.0f} ms"
            return "-"

        err(
            "timings: end of speech -> transcript "
            f"{span('stt-vad-end', 'stt-end')}, transcript -> first reply text "
            f"{span('stt-end', 'llm-delta')}, end of speech -> speaking "
            f"{span('stt-vad-end', 'tts-start')}"
        )


def _open_pcm(args: argparse.Namespace) -> Any:
    """The ``--pcm`` source (stdin, a FIFO or a file), checked before anything starts."""
    from aria_desktop.adapters.voice.audio import PcmPipeSource
    from aria_desktop.domain.errors import AudioFormatError

    if args.pcm == "-":
        if sys.stdin.isatty():
            raise AudioFormatError(
                "--pcm - reads raw audio from stdin, but stdin is a terminal.",
                hint="Pipe audio into it: arecord -q -f S16_LE -r 16000 -c 1 | aria listen --pcm -",
            )
        return PcmPipeSource(
            sys.stdin.buffer, sample_rate_hz=args.rate, channels=args.channels, label="stdin"
        )
    path = Path(args.pcm)
    if path.is_fifo():
        err(f"waiting for a program to write to {path}")
    try:
        stream = path.open("rb")  # a FIFO: blocks until a writer opens it (Ctrl-C stops)
    except OSError as exc:
        raise AudioFormatError(
            f"Cannot read {path}: {exc.strerror or exc}.",
            hint="Give a FIFO (mkfifo), a raw PCM file, or '-' for stdin.",
        ) from None
    return PcmPipeSource(stream, sample_rate_hz=args.rate, channels=args.channels, label=str(path))


async def _cmd_listen(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.adapters.voice.audio import WavSink, WavSource
    from aria_desktop.compose.app import build_app
    from aria_desktop.compose.voice import build_voice, follow_memory_names
    from aria_desktop.domain.events import ErrorEvent
    from aria_desktop.domain.voice_events import SttEnd, TtsEnd

    if args.pcm is None and (args.rate != 16_000 or args.channels != 1):
        err("--rate and --channels describe --pcm audio; use them with --pcm")
        return EXIT_USAGE
    source_factory: Any = None
    finite: Any = None  # the file or pipe, when the audio does not come from the microphone
    if args.wav is not None:
        finite = WavSource(args.wav)  # validates the file before anything starts
    elif args.pcm is not None:
        finite = _open_pcm(args)
    if finite is not None:

        def source_factory() -> Any:
            return finite

    app = await build_app(settings)
    printer = _StagePrinter()
    sink = WavSink(args.out) if args.out else None
    one_turn = dataclasses.replace(
        settings, voice=dataclasses.replace(settings.voice, follow_up_s=0.0)
    )
    pipeline = build_voice(
        one_turn,
        app.orchestrator,
        source_factory=source_factory,
        sink=sink,
    )
    follow_memory_names(app, pipeline)
    sub = app.orchestrator.bus.subscribe()
    status = EXIT_FAILURE
    try:
        await pipeline.start(listen_immediately=args.no_wake)
        async with asyncio.timeout(args.timeout):
            async for event in sub:
                printer.render(event)
                if isinstance(event, TtsEnd) or (isinstance(event, SttEnd) and not event.text):
                    status = EXIT_OK if getattr(event, "status", "complete") == "complete" else 1
                    if isinstance(event, SttEnd):
                        err("nothing was understood")
                        status = EXIT_FAILURE
                    break
                if isinstance(event, ErrorEvent) and event.run_id is None:
                    break
                ended = finite is not None and pipeline.source_finished
                if ended and "stt-start" not in printer.marks:
                    if getattr(finite, "bytes_read", None) == 0:
                        err(f"no audio arrived: {finite.label} was closed before sending any")
                    else:
                        err(
                            "the audio ended without the wake word (use --no-wake if it holds "
                            "only a command)"
                        )
                    break
        if "stt-end" in printer.marks:
            printer.summary()
    except TimeoutError:
        err(f"gave up after {args.timeout:g} s")
    finally:
        sub.close()
        await pipeline.stop()
        await app.aclose()
    return status


def _load_line(e: Any) -> str:
    state = "ready" if e.ok else f"FAILED: {e.error}"
    return f"{e.component} model {e.model} {state} ({e.latency_ms:.0f} ms)"


def _spoke_line(e: Any) -> str:
    first = f"first audio after {e.first_audio_ms:.0f} ms, " if e.first_audio_ms else ""
    return f"spoke {e.sentences} sentence(s): {first}{e.status}"


_EVENT_LINES: dict[str, Callable[[Any], str | None]] = {
    "voice-load-end": _load_line,
    "wake-start": lambda e: f"waiting for the wake word ({e.model})",
    "wake-end": lambda e: f"wake word {e.name} heard (score {e.score:.2f})" if e.detected else None,
    "stt-start": lambda e: f"listening ({e.trigger})",
    "stt-vad-start": lambda e: "speech started",
    "stt-vad-end": lambda e: f"command ended: {e.reason} ({e.audio_ms:.0f} ms of audio)",
    "stt-end": lambda e: f"heard {e.text!r} ({e.latency_ms:.0f} ms, {e.engine})",
    "run-start": lambda e: "thinking",
    "tts-start": lambda e: "speaking",
    "tts-end": _spoke_line,
    "run-end": lambda e: f"turn {e.status} ({e.latency_ms:.0f} ms)",
    "error": lambda e: f"error: {e.message}" + (f" — {e.hint}" if e.hint else ""),
}
"""How each voice-turn event reads as a timeline line (keyed by event type, so the parser that
every ``aria`` command builds need not import the event classes; ARCHITECTURE.md: start-up cost).
``None`` means the event gets no line."""
