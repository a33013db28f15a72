"""``aria bench skills``: how fast a local skill answers, beside the model path, in one run.

Three figures, each from the same run (ARIA built through ``compose/`` as ``aria daemon`` and
``aria listen`` build it):

- a local skill's reply through the local HTTP API: streamed ``POST /api/v1/chat`` turns
  ("what time is it", "add milk to my shopping list", …) from a child process (so client and
  server share no event loop), timed to the first ``text-delta`` and to ``done``; target
  p50 <= 30 ms;
- the model path beside it, interleaved on the same owner: a sentence no skill answers, sent to
  the scripted Ollama test server (``tests/fakes``, answering at once: the figure is ARIA's own
  path to a model, not a model's speed; ``bench/`` has no llama-server set-up);
- end of speech -> first reply audio of a voice turn with no model configured: Piper speaks
  the command, a paced microphone feeds it to the voice pipeline after a push-to-talk
  ``listen``, and the pipeline's own events give the times: from ``stt-vad-end`` (the VAD
  endpoint; the speaker has already waited ``voice.vad.silence_s``) to the first synthesised
  chunk of the reply (``tts-start`` + ``first_audio_ms``); target <= 350 ms. The stages
  (transcription, the local answer, the wait for the first sentence, Piper's first chunk) are
  printed beside it.

``aria bench skills --accuracy``: spoken commands in many voices matched to intent and slots
(``bench/skills_accuracy.py``).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from aria_desktop.bench._util import percentile, scripted_ollama_env, scripted_ollama_server
from aria_desktop.settings import Settings, load_settings

__all__ = ["run_skills_bench", "use_dirs"]

_LOCAL_SENTENCES = (
    "what time is it",
    "add milk to my shopping list",
    "what's the date today",
)
_MODEL_SENTENCES = ("Tell me something nice about the sea.",)
_VOICE_COMMANDS = ("What time is it?", "Add milk to my shopping list.")
_API_TARGET_MS = 30.0
_VOICE_TARGET_MS = 350.0
_NO_MODEL = {"ARIA_LLM__OLLAMA__URL": "http://127.0.0.1:9"}
"""Settings overrides for "no model configured": Ollama's address is a closed port."""


async def run_skills_bench(
    *, turns: int, repeats: int, accuracy: bool = False, stt_uri: str = ""
) -> None:
    """Measure and print the figures (``accuracy``: the spoken-command accuracy instead).

    With ``accuracy``, ``stt_uri``'s Wyoming server hears the commands when given.
    """
    if accuracy:
        from aria_desktop.bench.skills_accuracy import run_skills_accuracy

        await run_skills_accuracy(stt_uri=stt_uri)
        return
    with tempfile.TemporaryDirectory(prefix="aria-bench-skills-") as tmp:
        folder = Path(tmp)
        api = await _api_figures(folder / "api", turns)
        voice = await _voice_figures(folder / "voice", repeats)
    _print(api, voice, turns, repeats)


def use_dirs(folder: Path) -> Path:
    """Point ARIA's folders into ``folder``; returns an empty settings file there."""
    for name in ("CONFIG", "DATA", "STATE", "RUNTIME"):
        os.environ[f"ARIA_{name}_DIR"] = str(folder / name.lower())
    folder.mkdir(parents=True, exist_ok=True)
    settings_file = folder / "settings.toml"
    settings_file.write_text("", encoding="utf-8")
    return settings_file


# --- through the API ------------------------------------------------------------------------


async def _api_figures(folder: Path, turns: int) -> dict[str, Any]:
    """Local and model turns through one owner's API, interleaved, from a child process."""
    from aria_desktop.compose.owner import start_owner

    settings_file = use_dirs(folder)
    async with scripted_ollama_server("The sea is calm and wide today.", 4) as url:
        settings = load_settings(
            settings_file, env={**scripted_ollama_env(url), "ARIA_VOICE__ENABLED": "false"}
        )
        settings = replace(
            settings,
            api=replace(settings.api, port=0, rate_limit_per_s=1e9, rate_limit_burst=10**9),
        )
        owner = await start_owner(settings)
        try:
            plan: dict[str, Any] = {
                "port": owner.server.port,
                "token": owner.server._token.read(),
                "sides": {"local": list(_LOCAL_SENTENCES), "model": list(_MODEL_SENTENCES)},
            }
            first = await _turns({**plan, "sides": {"local": [_LOCAL_SENTENCES[0]]}}, 1)
            await _turns(plan, 2)  # warm: first requests, first turns, the templates compiled
            result = await _turns(plan, turns)
            result["first_ms"] = first["local"]["done_ms"][0]
        finally:
            await owner.stop()
    return result


async def _turns(plan: dict[str, Any], rounds: int) -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "aria_desktop.bench._loadgen",
        "turns",
        str(rounds),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await process.communicate((json.dumps(plan) + "\n").encode())
    result: dict[str, Any] = json.loads(out.decode())["sides"]
    return result


# --- a voice turn ---------------------------------------------------------------------------


class _PacedMicrophone:
    """80 ms frames at a sound card's pace: silence, or the command the bench queued."""

    name = "bench-microphone"

    def __init__(self) -> None:
        self._pending = bytearray()

    def say(self, pcm: bytes) -> None:
        """Queue ``pcm`` (16 kHz mono) to be "spoken" from the next frame on."""
        self._pending.extend(pcm)

    async def frames(self) -> AsyncGenerator[bytes, None]:
        """Frames forever (the bench stops the pipeline)."""
        from aria_desktop.domain.audio import FRAME_SAMPLES, PIPELINE_RATE_HZ

        frame_bytes = FRAME_SAMPLES * 2
        loop = asyncio.get_running_loop()
        started, delivered = loop.time(), 0
        while True:
            due = started + delivered * FRAME_SAMPLES / PIPELINE_RATE_HZ
            await asyncio.sleep(max(0.0, due - loop.time()))
            frame = bytes(self._pending[:frame_bytes]).ljust(frame_bytes, b"\0")
            del self._pending[:frame_bytes]
            delivered += 1
            yield frame


@dataclass
class _VoiceTurn:
    """One voice turn's event times (wall clock, s) and what was heard and answered."""

    vad_end: float = 0.0
    stt_end: float = 0.0
    reply: float = 0.0
    tts_start: float = 0.0
    first_audio: float = 0.0
    heard: str = ""
    backend: str = ""
    stages: dict[str, float] = field(default_factory=dict)


async def _voice_figures(folder: Path, repeats: int) -> dict[str, list[_VoiceTurn]]:
    """Voice turns with no model configured, through ``build_app`` and ``build_voice``."""
    from aria_desktop.adapters.voice.audio import WavSink
    from aria_desktop.compose.app import build_app
    from aria_desktop.compose.voice import build_voice

    settings_file = use_dirs(folder)
    settings: Settings = load_settings(
        settings_file, env={**_NO_MODEL, "ARIA_VOICE__WAKE__ENABLED": "false"}
    )
    settings = replace(settings, voice=replace(settings.voice, follow_up_s=0.0))
    speech = {text: await _spoken(text) for text in _VOICE_COMMANDS}
    app = await build_app(settings)
    microphone = _PacedMicrophone()
    sink = WavSink(folder / "reply.wav")
    pipeline = build_voice(settings, app.orchestrator, source_factory=lambda: microphone, sink=sink)
    results: dict[str, list[_VoiceTurn]] = {text: [] for text in _VOICE_COMMANDS}
    try:
        await pipeline.start()
        await pipeline.wait_ready()
        await _voice_turn(app, pipeline, microphone, speech[_VOICE_COMMANDS[0]])  # warm
        for _ in range(repeats):
            for text in _VOICE_COMMANDS:
                results[text].append(await _voice_turn(app, pipeline, microphone, speech[text]))
    finally:
        await pipeline.stop()
        await app.aclose()
    return results


async def _spoken(text: str) -> bytes:
    """``text`` said by Piper's packaged voice, 16 kHz mono, with a pause after it."""
    from aria_desktop.bench.voice_corpus import Voice, synthesize

    (pcm,) = await synthesize([text], Voice("piper joe", "piper"), piper={})
    return pcm


async def _voice_turn(
    app: Any, pipeline: Any, microphone: _PacedMicrophone, pcm: bytes
) -> _VoiceTurn:
    """Say ``pcm`` after a push-to-talk ``listen``; the turn's times from its events."""
    from aria_desktop.domain.commands import PushToTalk
    from aria_desktop.domain.events import LlmDelta, ThinkEnd
    from aria_desktop.domain.voice_events import SttEnd, SttVadEnd, TtsEnd, TtsStart

    turn = _VoiceTurn()
    async with app.orchestrator.bus.subscribe() as sub:
        await app.orchestrator.handle(PushToTalk(action="listen"))
        microphone.say(pcm)
        async with asyncio.timeout(60):
            async for event in sub:
                if isinstance(event, SttVadEnd):
                    turn.vad_end = event.ts
                elif isinstance(event, SttEnd):
                    turn.stt_end, turn.heard = event.ts, event.text
                    if not event.text:
                        raise RuntimeError("the benchmark's command was not heard")
                elif isinstance(event, LlmDelta) and not turn.reply:
                    turn.reply = event.ts
                elif isinstance(event, ThinkEnd):
                    turn.backend = event.backend
                elif isinstance(event, TtsStart):
                    turn.tts_start = event.ts
                elif isinstance(event, TtsEnd):
                    turn.first_audio = turn.tts_start + (event.first_audio_ms or 0) / 1000
                    break
    await _wait_idle(pipeline)
    return turn


async def _wait_idle(pipeline: Any) -> None:
    """Until the pipeline is back at rest (a push-to-talk while busy would interrupt)."""
    async with asyncio.timeout(10):
        while pipeline.states.busy:  # noqa: ASYNC110 - the pipeline has no "at rest" event
            await asyncio.sleep(0.01)


# --- the report -----------------------------------------------------------------------------


def _stats(values: Sequence[float]) -> str:
    return f"p50 {statistics.median(values):7.1f} ms   p90 {percentile(values, 0.9):7.1f} ms"


def _print(
    api: dict[str, Any], voice: dict[str, list[_VoiceTurn]], turns: int, repeats: int
) -> None:
    local, model = api["local"], api["model"]
    local_done = statistics.median(local["done_ms"])
    model_done = statistics.median(model["done_ms"])
    print(
        f"aria bench skills — {turns} rounds through the API (local and model turns "
        f"interleaved), {repeats} voice turns per command"
    )
    print(f"  local skill, POST /api/v1/chat to the reply   {_stats(local['reply_ms'])}")
    verdict = "ok" if local_done <= _API_TARGET_MS else "OVER TARGET"
    print(
        f"  local skill, POST /api/v1/chat to done        {_stats(local['done_ms'])}"
        f"   (target p50 <= {_API_TARGET_MS:g} ms: {verdict}; answered by "
        f"{', '.join(sorted(set(local['backends'])))})"
    )
    print(
        f"  the first local turn after the owner started   {api['first_ms']:7.1f} ms to done"
        " (templates compiled in the background at start)"
    )
    print(
        f"  model path (scripted Ollama test server), done {_stats(model['done_ms'])}"
        f"   ({model_done / max(local_done, 1e-9):.1f}x the local skill)"
    )
    every = [t for runs in voice.values() for t in runs if t.reply and t.first_audio]
    if not every:
        print("  voice: no turn was answered (see the heard lines below)")
        _print_heard(voice)
        return
    first = [(t.first_audio - t.vad_end) * 1000 for t in every]
    verdict = "ok" if statistics.median(first) <= _VOICE_TARGET_MS else "OVER TARGET"
    print(
        f"  voice, end of speech -> first reply audio     {_stats(first)}"
        f"   (target <= {_VOICE_TARGET_MS:g} ms, no model configured: {verdict}; from the VAD"
        " endpoint, which the speaker reaches after voice.vad.silence_s of pause)"
    )
    stages = {
        "transcription": [(t.stt_end - t.vad_end) * 1000 for t in every],
        "local answer": [(t.reply - t.stt_end) * 1000 for t in every],
        "first sentence to speech": [(t.tts_start - t.reply) * 1000 for t in every],
        "Piper's first chunk": [(t.first_audio - t.tts_start) * 1000 for t in every],
    }
    print(
        "    stages (p50): "
        + ", ".join(f"{name} {statistics.median(v):.1f} ms" for name, v in stages.items())
    )
    _print_heard(voice)


def _print_heard(voice: dict[str, list[_VoiceTurn]]) -> None:
    for text, runs in voice.items():
        heard = sorted({t.heard for t in runs})
        print(f"    {text!r}: heard {heard}, answered by {sorted({t.backend for t in runs})}")
