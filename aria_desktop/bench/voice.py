"""``aria bench voice``: how fast the voice pipeline is on this machine.

Figures (medians over repeated runs, with the targets from the voice issue):

- STT real-time factor: Whisper tiny.en, int8, 2 threads, on a 2 s command and on 10 s of
  speech (processing time / audio length; target <= 0.1), and the 2 s command's time with the
  opt-in fitted encoder window (``voice.stt.fitted_window``); the same for the multilingual base
  model (language detected), with the time to join its two halves into a fresh cache;
- TTS time to first audio for a short first sentence (target <= 150 ms) and Piper's
  real-time factor on a long sentence;
- wake word CPU per 80 ms frame (process CPU time, all threads; target <= 5 ms);
- end of speech -> first reply audio for a full voice turn against the scripted Ollama test
  server answering instantly (from the VAD endpoint; the user also waits ``silence_s``);
- CPU of the whole process while waiting for the wake word on live-paced silence (target
  <= 5 % of one core).
- interruption: the wake word said while ARIA speaks (a long reply through a real-time
  WAV sink), from its detection to the last audio the sink emitted (target <= 200 ms).

The test speech is made by Piper at the start of the run.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aria_desktop.bench._util import scripted_ollama_env, scripted_ollama_server
from aria_desktop.domain.audio import FRAME_SAMPLES, PIPELINE_RATE_HZ, AudioClip, encode_wav
from aria_desktop.domain.voice_events import SttVadEnd, TtsEnd
from aria_desktop.settings import load_settings

__all__ = ["run_voice_bench"]

_COMMANDS = [
    "What is on my screen right now?",
    "Open the calendar for next week and show me my meetings.",
    "Set a timer for ten minutes.",
    "Summarize the document I have open.",
]


def _write_wav(path: Path, pcm: bytes) -> Path:
    path.write_bytes(encode_wav(pcm, PIPELINE_RATE_HZ))
    return path


def _silence(seconds: float) -> bytes:
    return b"\0" * (int(seconds * PIPELINE_RATE_HZ) * 2)


def _med(values: list[float]) -> float:
    return statistics.median(values)


async def run_voice_bench(*, repeats: int) -> None:
    """Measure and print the voice figures."""
    engines, loads = await _load_engines()
    tts = engines["tts"]
    short = await _say(tts, _COMMANDS[0])
    long_pcm = b""
    for command in _COMMANDS * 2:
        long_pcm += await _say(tts, command) + _silence(0.3)
    long_pcm = long_pcm[: 10 * PIPELINE_RATE_HZ * 2]
    stt = await _stt_figures(engines["stt"], short, long_pcm, repeats)
    base_figures = await _base_stt(short, long_pcm, repeats)
    first_audio, tts_rtf = await _tts_figures(tts, repeats)
    wake_cpu_ms, wake_wall_ms = _wake_cost(engines["wake"], long_pcm)
    turns = await _turn_figures(engines, repeats)
    print(
        f"aria bench voice — {repeats} runs each, medians; models loaded in (ms): "
        + ", ".join(f"{k} {v:.0f}" for k, v in loads.items())
    )
    _print_stt(stt)
    print(base_figures)
    print(f"  TTS time to first audio          {_med(first_audio):7.1f} ms (target <= 150 ms)")
    print(f"  TTS real-time factor                {_med(tts_rtf):6.3f}")
    print(
        f"  wake word CPU per 80 ms frame    {wake_cpu_ms:7.2f} ms (wall {wake_wall_ms:.2f} ms;"
        " target <= 5 ms)"
    )
    _print_turns(turns)


async def _load_engines() -> tuple[dict[str, Any], dict[str, float]]:
    """The packaged voice engines, loaded, and each one's load time in ms."""
    from aria_desktop.adapters.voice.piper_tts import PiperTTS
    from aria_desktop.adapters.voice.wakeword import OpenWakeWordDetector
    from aria_desktop.adapters.voice.whisper import SileroVAD, WhisperSTT

    engines: dict[str, Any] = {
        "tts": PiperTTS(),
        "stt": WhisperSTT("tiny.en", cpu_threads=2),
        "wake": OpenWakeWordDetector(("hey_jarvis",)),
        "vad": SileroVAD(),
    }
    loads: dict[str, float] = {}
    for label in ("wake", "vad", "stt", "tts"):
        started = time.perf_counter()
        await engines[label].load()
        loads[label] = (time.perf_counter() - started) * 1000
    return engines, loads


async def _say(tts: Any, text: str) -> bytes:
    """``text`` spoken by Piper, at the pipeline's rate."""
    from aria_desktop.adapters.voice.audio import resample_pcm

    pieces = [p async for p in tts.synthesize(text)]
    return b"".join(resample_pcm(p.pcm, p.sample_rate_hz, PIPELINE_RATE_HZ) for p in pieces)


@dataclass(frozen=True)
class _SttFigures:
    """tiny.en's real-time factors (2 s command, 10 s speech) and 2 s times (full, fitted)."""

    short_rtf: list[float]
    long_rtf: list[float]
    short_ms: list[float]
    fitted_ms: list[float]


async def _stt_figures(stt: Any, short: bytes, long_pcm: bytes, repeats: int) -> _SttFigures:
    """tiny.en on the 2 s command and 10 s of speech, and the 2 s one in a fitted window."""
    from aria_desktop.adapters.voice.whisper import WhisperSTT

    fitted = WhisperSTT("tiny.en", cpu_threads=2, fitted_window=True)
    await fitted.load()
    figures = _SttFigures(short_rtf=[], long_rtf=[], short_ms=[], fitted_ms=[])
    for _ in range(repeats):
        t = await stt.transcribe(AudioClip(pcm=short))
        figures.short_rtf.append(t.latency_ms / 1000 / t.audio_s)
        figures.short_ms.append(t.latency_ms)
        figures.fitted_ms.append((await fitted.transcribe(AudioClip(pcm=short))).latency_ms)
        t = await stt.transcribe(AudioClip(pcm=long_pcm))
        figures.long_rtf.append(t.latency_ms / 1000 / t.audio_s)
    return figures


def _print_stt(stt: _SttFigures) -> None:
    print(
        f"  STT real-time factor, 2 s command   {_med(stt.short_rtf):6.3f}   (target <= 0.1; the"
        " full 30 s window costs the same for any command, so short ones miss it: accuracy first)"
    )
    print(f"  STT real-time factor, 10 s speech   {_med(stt.long_rtf):6.3f}   (target <= 0.1)")
    print(
        f"  Whisper on the 2 s command        {_med(stt.short_ms):7.1f} ms (full window; fitted"
        f" window, voice.stt.fitted_window: {_med(stt.fitted_ms):.1f} ms)"
    )


@dataclass(frozen=True)
class _TurnFigures:
    """Whole voice turns: reply latencies (ms), idle CPU (% of a core), interruptions (ms)."""

    reply_latency_ms: list[float]
    idle_cpu: float
    interruption_ms: list[float]


async def _turn_figures(engines: dict[str, Any], repeats: int) -> _TurnFigures:
    """Full voice turns against the scripted Ollama server, in a throw-away data directory."""
    tts = engines["tts"]
    with tempfile.TemporaryDirectory(prefix="aria-bench-voice-") as tmp:
        folder = Path(tmp)
        os.environ["ARIA_DATA_DIR"] = str(folder / "data")
        os.environ["ARIA_STATE_DIR"] = str(folder / "state")
        turn_wav = _write_wav(
            folder / "turn.wav",
            _silence(0.3)
            + await _say(tts, "Hey Jarvis.")
            + _silence(0.4)
            + await _say(tts, "What time is it?"),
        )
        idle_wav = _write_wav(folder / "idle.wav", _silence(12.0))
        settings_file = folder / "settings.toml"
        settings_file.write_text("", encoding="utf-8")
        async with scripted_ollama_server("It is ten past three. Anything else?", 4) as url:
            settings = load_settings(
                settings_file,
                env={
                    **scripted_ollama_env(url),
                    "ARIA_VOICE__FOLLOW_UP_S": "0",
                },
            )
            reply_latency = []
            for i in range(repeats):
                reply_latency.append(
                    await _turn_latency(settings, engines, turn_wav, folder / f"r{i}.wav")
                )
            idle_cpu = await _idle_cpu(settings, engines, idle_wav, folder / "idle-out.wav")
        interruption_ms = await _interruption(
            settings_file,
            engines,
            command=_silence(0.3)
            + await _say(tts, "Hey Jarvis.")
            + _silence(0.3)
            + await _say(tts, "Tell me a long story."),
            wake_word=await _say(tts, "Hey Jarvis."),
            folder=folder,
            runs=repeats,
        )
    return _TurnFigures(
        reply_latency_ms=reply_latency, idle_cpu=idle_cpu, interruption_ms=interruption_ms
    )


def _print_turns(turns: _TurnFigures) -> None:
    print(
        f"  end of speech -> first reply audio {_med(turns.reply_latency_ms):7.1f} ms from the VAD "
        "endpoint (target <= 800 ms; add voice.vad.silence_s for the user's wait)"
    )
    print(
        f"  idle CPU waiting for the wake word  {turns.idle_cpu:6.2f} % of one core (target <= 5 %)"
    )
    interruption_ms = turns.interruption_ms
    print(
        f"  wake word -> speech silenced       {_med(interruption_ms):7.1f} ms from the detection"
        f" to the sink's last audio block (max {max(interruption_ms):.1f}; target <= 200 ms;"
        " < 0: the block already playing was the last)"
    )


async def _tts_figures(tts: Any, repeats: int) -> tuple[list[float], list[float]]:
    """Piper's time to first audio (ms) and real-time factor, once per repeat."""
    first_audio, tts_rtf = [], []
    long_sentence = (
        "Here is a longer answer that goes on for a while, so that the real time factor of "
        "the voice is measured over several seconds of speech rather than a single word."
    )
    for _ in range(repeats):
        started = time.perf_counter()
        async for _piece in tts.synthesize("Sure, here is what I found."):
            first_audio.append((time.perf_counter() - started) * 1000)
            break
        started = time.perf_counter()
        pieces = [p async for p in tts.synthesize(long_sentence)]
        elapsed = time.perf_counter() - started
        tts_rtf.append(elapsed / sum(p.duration_s for p in pieces))
    return first_audio, tts_rtf


def _wake_cost(wake: Any, pcm: bytes) -> tuple[float, float]:
    """The wake word detector's CPU and wall time per 80 ms frame, in ms."""
    frames = [
        pcm[i : i + FRAME_SAMPLES * 2]
        for i in range(0, len(pcm) - FRAME_SAMPLES * 2, FRAME_SAMPLES * 2)
    ]
    wake.reset()
    cpu_started, wall_started = time.process_time(), time.perf_counter()
    for frame in frames:
        wake.process_sync(frame)
    cpu_ms = (time.process_time() - cpu_started) * 1000 / len(frames)
    return cpu_ms, (time.perf_counter() - wall_started) * 1000 / len(frames)


async def _base_stt(short: bytes, long_pcm: bytes, repeats: int) -> str:
    """The multilingual base model's line: join time into a fresh cache, and its RTFs."""
    from aria_desktop.adapters.voice.whisper import WhisperSTT
    from aria_desktop.adapters.voice.whisper_models import whisper_model_path
    from aria_desktop.domain.errors import AriaError

    with tempfile.TemporaryDirectory(prefix="aria-bench-base-") as tmp:
        try:
            started = time.perf_counter()
            await asyncio.to_thread(whisper_model_path, "base", cache_dir=Path(tmp))
            join_ms = (time.perf_counter() - started) * 1000
            stt = WhisperSTT("base", cpu_threads=2, cache_dir=Path(tmp))
            started = time.perf_counter()
            await stt.load()
            load_ms = (time.perf_counter() - started) * 1000
        except AriaError as exc:
            return f"  STT base (multilingual)             not measured: {exc.message}"
        short_rtf, long_rtf, short_set = [], [], []
        for _ in range(repeats):
            t = await stt.transcribe(AudioClip(pcm=short))
            short_rtf.append(t.latency_ms / 1000 / t.audio_s)
            t = await stt.transcribe(AudioClip(pcm=long_pcm))
            long_rtf.append(t.latency_ms / 1000 / t.audio_s)
            t = await stt.transcribe(AudioClip(pcm=short), language="en")
            short_set.append(t.latency_ms / 1000 / t.audio_s)
        await stt.aclose()
    return (
        f"  STT base (multilingual) RTF, 2 s / 10 s  {_med(short_rtf):.3f} / {_med(long_rtf):.3f}"
        f" (language detected), 2 s with voice.stt.language set {_med(short_set):.3f};"
        f" join {join_ms:.0f} ms once, load {load_ms:.0f} ms"
    )


def _pipeline(settings: Any, engines: dict[str, Any], source: Any, sink: Any, app: Any) -> Any:
    from aria_desktop.core.voice.pipeline import VoiceConfig, VoicePipeline
    from aria_desktop.core.voice.speech import SpeechService

    speech = SpeechService(
        bus=app.orchestrator.bus, tts=engines["tts"], stt=engines["stt"], sink=sink
    )
    pipeline = VoicePipeline(
        orchestrator=app.orchestrator,
        speech=speech,
        wake=engines["wake"],
        vad=engines["vad"],
        source_factory=lambda: source,
        config=VoiceConfig(follow_up_s=0.0),
    )
    pipeline.install()
    return pipeline


async def _turn_latency(settings: Any, engines: dict[str, Any], wav: Path, out: Path) -> float:
    from aria_desktop.adapters.voice.audio import WavSink, WavSource
    from aria_desktop.compose.app import build_app

    app = await build_app(settings)
    sink = WavSink(out, realtime=True)
    pipeline = _pipeline(settings, engines, WavSource(wav), sink, app)
    sub = app.orchestrator.bus.subscribe()
    endpoint_at = 0.0
    try:
        await pipeline.start()
        async with asyncio.timeout(60):
            async for event in sub:
                if isinstance(event, SttVadEnd):
                    endpoint_at = time.monotonic() - (time.time() - event.ts)
                if isinstance(event, TtsEnd):
                    break
    finally:
        await _close_turn_rig(sub, pipeline, sink, app)
    if sink.first_audio_at is None or not endpoint_at:
        raise RuntimeError("the benchmark turn produced no reply audio")
    return (sink.first_audio_at - endpoint_at) * 1000


async def _idle_cpu(settings: Any, engines: dict[str, Any], wav: Path, out: Path) -> float:
    from aria_desktop.adapters.voice.audio import WavSink, WavSource
    from aria_desktop.compose.app import build_app

    app = await build_app(settings)
    sink = WavSink(out)
    pipeline = _pipeline(settings, engines, WavSource(wav, realtime=True), sink, app)
    try:
        await pipeline.start()
        await asyncio.sleep(1.0)  # settle
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.sleep(8.0)
        usage = (time.process_time() - cpu) / (time.perf_counter() - wall) * 100
    finally:
        pipeline.speech.tts = pipeline.speech.stt = None
        pipeline.wake = None
        await pipeline.stop()
        await sink.aclose()
        await app.aclose()
    return usage


async def _interruption(
    settings_file: Path,
    engines: dict[str, Any],
    *,
    command: bytes,
    wake_word: bytes,
    folder: Path,
    runs: int,
) -> list[float]:
    """Wake word -> silence in ms, once per run.

    The product target the voice tests used to assert on the wall clock: here a loaded
    machine makes a slow figure, not a failed suite. Each run is a fresh app answering a long
    story from the scripted server.
    """
    long_reply = " ".join(
        f"This is sentence number {n} of a long answer that goes on and on." for n in range(12)
    )
    async with scripted_ollama_server(long_reply, 24) as url:
        settings = load_settings(
            settings_file,
            env={**scripted_ollama_env(url), "ARIA_VOICE__FOLLOW_UP_S": "0"},
        )
        return [
            await _interrupted_once(
                settings, engines, command, wake_word, folder / f"interrupted{run}.wav"
            )
            for run in range(runs)
        ]


async def _interrupted_once(
    settings: Any, engines: dict[str, Any], command: bytes, wake_word: bytes, out: Path
) -> float:
    """One interruption on a live-paced microphone, in ms.

    The user asks for a long story; 1.2 s of microphone time after ARIA starts speaking (the
    source is the clock, so ARIA is mid-sentence) the user says the wake word again. The
    figure is the sink's last emitted audio minus the moment ``wake-end`` was published, both
    on the monotonic clock.
    """
    from collections.abc import AsyncGenerator

    from aria_desktop.adapters.voice.audio import WavSink
    from aria_desktop.compose.app import build_app
    from aria_desktop.domain.voice_events import TtsStart, WakeEnd

    frame_bytes = FRAME_SAMPLES * 2
    pending = bytearray(command)
    delivered = 0
    wake_due: int | None = None

    class _LiveMicrophone:
        """Frames 80 ms apart like a sound card's, silence when nothing is pending."""

        name = "bench-live"

        async def frames(self) -> AsyncGenerator[bytes, None]:
            nonlocal delivered, wake_due
            started = time.monotonic()
            while True:
                due = started + delivered * FRAME_SAMPLES / PIPELINE_RATE_HZ
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                if wake_due is not None and delivered >= wake_due:
                    pending.extend(wake_word)
                    wake_due = None
                frame = bytes(pending[:frame_bytes]).ljust(frame_bytes, b"\0")
                del pending[:frame_bytes]
                delivered += 1
                yield frame

    app = await build_app(settings)
    sink = WavSink(out, realtime=True)
    pipeline = _pipeline(settings, engines, _LiveMicrophone(), sink, app)
    sub = app.orchestrator.bus.subscribe()
    detected_at = 0.0
    answering = False  # the first detection is the one before the question
    try:
        await pipeline.start()
        async with asyncio.timeout(120):
            async for event in sub:
                if isinstance(event, TtsStart) and not answering:
                    answering = True
                    wake_due = delivered + 15  # 1.2 s into the answer
                elif isinstance(event, WakeEnd) and event.detected and answering:
                    detected_at = time.monotonic() - (time.time() - event.ts)
                elif isinstance(event, TtsEnd):
                    if event.status != "interrupted" or not detected_at:
                        raise RuntimeError(
                            f"the benchmark's speech ended {event.status}, "
                            "not interrupted by the wake word"
                        )
                    break
    finally:
        await _close_turn_rig(sub, pipeline, sink, app)
    if sink.last_audio_at is None:
        raise RuntimeError("the benchmark's long answer produced no audio")
    return (sink.last_audio_at - detected_at) * 1000


async def _close_turn_rig(sub: Any, pipeline: Any, sink: Any, app: Any) -> None:
    """Stop one measured turn's app, keeping the models the next run shares loaded."""
    sub.close()
    pipeline.speech.tts = pipeline.speech.stt = None
    pipeline.wake = None
    await pipeline.stop()
    await sink.aclose()
    await app.aclose()
