"""The voice pipeline: wake word -> listen -> transcribe -> turn -> speak -> follow-up.

One capture task reads 80 ms frames from the audio source and routes each one:

- **wake**: frames go to the wake word detector and into a short pre-roll ring buffer, so a
  command spoken right after the wake word is not clipped;
- **listen**: frames are collected for the command; the voice activity detector ends it after
  ``silence_s`` of silence (or at ``max_command_s``, or when push-to-talk is released);
- **busy**: a turn task transcribes the command, starts a ``StartTurn(source="voice")`` and
  speaks the reply sentence by sentence while ``llm-delta`` events still arrive. The wake
  detector stays armed: the wake word (or push-to-talk) interrupts — the output is silenced at
  once, the turn is cancelled, and listening starts.

ARIA's own voice must not wake it: before each sentence is played, the wake detector scans the
synthesized audio; mic detections around the moments where ARIA itself says the wake word are
ignored. A detector that cannot scan (``scan_speech`` returns None) is muted during playback.

Mute closes the capture stream (the source generator is closed); nothing is recorded to disk.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import logging
import math
import sys
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from aria_desktop.core.bus import EventBus
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.core.ports import AudioSource, VoiceActivityDetector, WakeWordDetector
from aria_desktop.core.speech import SpeechService
from aria_desktop.core.speech_text import SentenceSplitter, strip_wake_phrase
from aria_desktop.domain.audio import (
    FRAME_SAMPLES,
    PIPELINE_RATE_HZ,
    AudioClip,
    SpeechAudio,
    WakeDetection,
)
from aria_desktop.domain.chat import CapabilityStatus
from aria_desktop.domain.commands import (
    CancelTurn,
    PushToTalk,
    SetMicrophoneMuted,
    Speak,
    StartTurn,
    Transcribe,
)
from aria_desktop.domain.errors import AriaError, VoiceUnavailableError
from aria_desktop.domain.events import (
    AudioLevel,
    ErrorEvent,
    Event,
    LlmDelta,
    RunEnd,
    SttEnd,
    SttStart,
    SttVadEnd,
    SttVadStart,
    VoiceLoadEnd,
    VoiceLoadStart,
    WakeEnd,
    WakeStart,
)

__all__ = ["SelfSpeechScanner", "VoiceConfig", "VoicePipeline"]

_LOGGER = logging.getLogger(__name__)
FRAME_S = FRAME_SAMPLES / PIPELINE_RATE_HZ
_GATE_BEFORE_S = 0.6
_GATE_AFTER_S = 1.2
"""Around a moment where ARIA's own voice says the wake word, mic detections are ignored
from this long before to this long after (covers room echo and detector latency)."""

Mode = Literal["off", "wake", "listen", "busy"]


class SelfSpeechScanner(Protocol):
    """Finds where synthesized speech would fire the wake word (seconds into the audio)."""

    async def scan_speech(self, audio: SpeechAudio) -> list[float] | None: ...


@dataclass(frozen=True, kw_only=True)
class VoiceConfig:
    """How the pipeline behaves (from the ``voice`` settings).

    Attributes:
        wake_enabled: listen for the wake word (False: push-to-talk only).
        wake_phrases: phrases removed from the start of a transcript ("hey jarvis").
        refractory_s: seconds after a detection during which the wake word is ignored.
        vad_threshold: speech probability above which a frame counts as speech.
        silence_s: silence that ends a command, in seconds.
        max_command_s: longest command, in seconds.
        no_speech_timeout_s: how long to wait for speech to begin after the wake word.
        preroll_s: audio before the wake word detection kept for the command, in seconds.
        follow_up_s: after a spoken answer, listen this long without the wake word (0: off).
        language: transcription language (None: the model's default / auto-detect).
        conversation_idle_s: a voice turn continues the previous voice conversation if it
            ended less than this many seconds ago.
    """

    wake_enabled: bool = True
    wake_phrases: tuple[str, ...] = ("hey jarvis",)
    refractory_s: float = 2.0
    vad_threshold: float = 0.5
    silence_s: float = 0.7
    max_command_s: float = 10.0
    no_speech_timeout_s: float = 5.0
    preroll_s: float = 0.5
    follow_up_s: float = 4.0
    language: str | None = None
    conversation_idle_s: float = 300.0


SourceFactory = Callable[[], AudioSource]


def rms_dbfs(frame: bytes) -> float:
    """Loudness of 16-bit PCM in dB relative to full scale (-100 for silence)."""
    samples = array.array("h")
    samples.frombytes(frame[: len(frame) - len(frame) % 2])
    if sys.byteorder == "big":  # pragma: no cover - PCM is little-endian
        samples.byteswap()
    if not samples:
        return -100.0
    mean_square = math.fsum(s * s for s in samples) / len(samples)
    if mean_square <= 0:
        return -100.0
    return max(-100.0, 10 * math.log10(mean_square / (32768.0 * 32768.0)))


class VoicePipeline:
    """Wake word, endpointing, transcription, turn and speech for one microphone.

    Args:
        orchestrator: where turns run and state is shown.
        speech: text-to-speech, speech-to-text and the output sink.
        wake: the wake word detector (None: push-to-talk only).
        vad: the voice activity detector.
        source_factory: opens the audio source (None: no microphone; commands still work).
        config: behaviour.
        no_source_reason: why there is no audio source, shown by the capability probe
            (e.g. "no microphone: there is no microphone on this computer").
    """

    def __init__(
        self,
        *,
        orchestrator: Orchestrator,
        speech: SpeechService,
        wake: WakeWordDetector | None,
        vad: VoiceActivityDetector | None,
        source_factory: SourceFactory | None,
        config: VoiceConfig | None = None,
        no_source_reason: str = "",
    ) -> None:
        self.orchestrator = orchestrator
        self._no_source_reason = no_source_reason
        self.bus: EventBus = orchestrator.bus
        self.speech = speech
        self.wake = wake
        self.vad = vad
        self._source_factory = source_factory
        self.config = config or VoiceConfig()
        self._mode: Mode = "off"
        self._wake_armed = False
        self._muted = False
        self._loaded: dict[str, asyncio.Future[None]] = {}
        self._load_errors: dict[str, str] = {}
        self._capture_task: asyncio.Task[None] | None = None
        self._turn_task: asyncio.Task[None] | None = None
        self._source_error = ""
        self._source_ended = asyncio.Event()
        self._preroll: deque[bytes] = deque(maxlen=max(1, round(self.config.preroll_s / FRAME_S)))
        self._command: list[bytes] = []
        self._trigger = "wake"
        self._hold = False
        self._speech_started = False
        self._silence_s = 0.0
        self._heard_s = 0.0
        self._wait_s = self.config.no_speech_timeout_s
        self._audio_s = 0.0
        self._last_wake_audio_s = -1e9
        self._run_id: str | None = None
        self._conversation_id: str | None = None
        self._last_turn_end = 0.0
        self._gates: list[tuple[float, float]] = []
        self._scans_pending = 0
        self._listen_immediately = False
        self.speech.observer = self._on_speech_queued

    # --- installation ----------------------------------------------------------------------

    def install(self) -> None:
        """Register the voice commands, the kill-switch hook and the capability probe."""
        orch = self.orchestrator
        orch.register_command(PushToTalk, self._on_push_to_talk)
        orch.register_command(SetMicrophoneMuted, self._on_set_muted)
        orch.register_command(Speak, self._on_speak)
        orch.register_command(Transcribe, self._on_transcribe)
        orch.add_stop_hook(self._on_stop_everything)
        orch.register_capability("voice", self.capability)

    def capability(self) -> CapabilityStatus:
        """Whether voice can be used now, and why not."""
        reason = ""
        if self._source_factory is None:
            reason = (
                self._no_source_reason
                or "no microphone is configured; `aria doctor` lists audio devices"
            )
        elif self._source_error:
            reason = self._source_error
        elif self._load_errors:
            reason = "; ".join(f"{k}: {v}" for k, v in sorted(self._load_errors.items()))
        elif not self._ready("vad") or (self.wake is not None and not self._ready("wake")):
            reason = "voice models are still loading"
        return CapabilityStatus(
            name="voice", available=not reason, reason=reason, enabled=not self._muted
        )

    # --- lifecycle -------------------------------------------------------------------------

    async def start(self, *, listen_immediately: bool = False) -> None:
        """Load the models in the background (with progress events) and open the microphone.

        Args:
            listen_immediately: treat the start of the audio as a command (no wake word);
                used for WAV files that hold only a command.
        """
        self._listen_immediately = listen_immediately
        loaders: list[tuple[str, Any]] = []
        if self.wake is not None and self.config.wake_enabled:
            loaders.append(("wake", self.wake))
        if self.vad is not None:
            loaders.append(("vad", self.vad))
        if self.speech.stt is not None:
            loaders.append(("stt", self.speech.stt))
        if self.speech.tts is not None:
            loaders.append(("tts", self.speech.tts))
        loop = asyncio.get_running_loop()
        for component, _engine in loaders:
            self._loaded[component] = loop.create_future()
        self.orchestrator.spawn(self._load_all(loaders), name="aria-voice-load")
        if self._source_factory is not None and not self._muted:
            self._start_capture()

    async def _load_all(self, loaders: list[tuple[str, Any]]) -> None:
        # One at a time: the machine may have two cores, and the capture loop needs wake + VAD
        # first; STT and TTS follow while ARIA already waits for the wake word.
        for component, engine in loaders:
            name = getattr(engine, "name", type(engine).__name__)
            self.bus.publish(VoiceLoadStart(component=component, model=str(name)))
            started = time.monotonic()
            future = self._loaded[component]
            try:
                await engine.load()
            except AriaError as exc:
                self._load_errors[component] = exc.message
                self.bus.publish(
                    VoiceLoadEnd(
                        component=component,
                        model=str(name),
                        ok=False,
                        error=exc.message,
                        latency_ms=(time.monotonic() - started) * 1000,
                    )
                )
                self.bus.publish(ErrorEvent(code=exc.code, message=exc.message, hint=exc.hint))
                if not future.done():
                    future.set_exception(exc)
                    future.exception()  # retrieved: waiters re-raise it themselves
                continue
            self.bus.publish(
                VoiceLoadEnd(
                    component=component,
                    model=str(name),
                    latency_ms=(time.monotonic() - started) * 1000,
                )
            )
            if not future.done():
                future.set_result(None)

    def _ready(self, component: str) -> bool:
        future = self._loaded.get(component)
        return future is not None and future.done() and future.exception() is None

    async def _wait_loaded(self, component: str) -> None:
        future = self._loaded.get(component)
        if future is not None:
            await asyncio.shield(future)

    async def wait_ready(self, timeout_s: float = 120.0) -> None:
        """Wait until every model has loaded (raises the first load failure)."""
        async with asyncio.timeout(timeout_s):
            for component in list(self._loaded):
                await self._wait_loaded(component)

    async def wait_source_ended(self, timeout_s: float | None = None) -> None:
        """Wait until a finite source (a WAV file) has been read and its turn has finished."""
        async with asyncio.timeout(timeout_s):
            await self._source_ended.wait()
            while self._turn_task is not None and not self._turn_task.done():
                await asyncio.wait({self._turn_task})

    async def stop(self) -> None:
        """Close the microphone, stop speaking, cancel the pipeline's tasks."""
        self.speech.interrupt()
        tasks = [t for t in (self._capture_task, self._turn_task) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._mode = "off"
        await self.speech.aclose()
        for part in (self.wake,):
            if part is not None:
                with contextlib.suppress(Exception):
                    await part.aclose()

    @property
    def mode(self) -> Mode:
        """off, wake (waiting for the wake word), listen (taking a command), busy."""
        return self._mode

    @property
    def source_finished(self) -> bool:
        """Whether a finite source (a WAV file) has been read to its end."""
        return self._source_ended.is_set()

    @property
    def muted(self) -> bool:
        """Whether the microphone is muted (capture stream closed)."""
        return self._muted

    # --- capture ---------------------------------------------------------------------------

    def _start_capture(self) -> None:
        self._source_ended.clear()
        self._capture_task = self.orchestrator.spawn(self._capture(), name="aria-voice-capture")

    async def _capture(self) -> None:
        assert self._source_factory is not None
        try:
            if self.config.wake_enabled and self.wake is not None:
                await self._wait_loaded("wake")
            await self._wait_loaded("vad")
        except AriaError:
            return  # reported by the loader
        frames: AsyncIterator[bytes] | None = None
        try:
            source = self._source_factory()
            frames = source.frames()
            if self._listen_immediately:
                self._listen_immediately = False
                self._begin_listening("file", preroll=False)
            else:
                self._enter_wake()
            async for frame in frames:
                await self._on_frame(frame)
            if self._mode == "listen":
                await self._end_command("end_of_audio")
        except AriaError as exc:
            self._source_error = exc.message
            self.bus.publish(ErrorEvent(code=exc.code, message=exc.message, hint=exc.hint))
        finally:
            if frames is not None:
                with contextlib.suppress(Exception):
                    await frames.aclose()  # type: ignore[attr-defined]
            self._disarm_wake()
            if self._mode in ("wake", "listen"):
                self._mode = "off"
            self._source_ended.set()

    async def _on_frame(self, frame: bytes) -> None:
        self._audio_s += FRAME_S
        level = rms_dbfs(frame)
        # The detector hears every frame, armed or not, so its audio context is never stale:
        # re-armed after a command, it must not fire again on the wake word it already heard.
        detection = None
        if self.wake is not None and self.config.wake_enabled:
            detection = await self.wake.process(frame)
        if self._mode == "listen":
            speech = await self._listen_frame(frame)
            self.bus.publish(AudioLevel(rms_dbfs=level, speech=speech))
            return
        self.bus.publish(AudioLevel(rms_dbfs=level))
        self._preroll.append(frame)
        if detection is not None and self._wake_armed:
            self._on_wake(detection)

    def _on_wake(self, detection: WakeDetection) -> None:
        if self._audio_s - self._last_wake_audio_s < self.config.refractory_s:
            return
        if self.speech.speaking and self._gated(time.monotonic()):
            _LOGGER.debug("Wake word ignored: it was ARIA's own voice")
            return
        self._last_wake_audio_s = self._audio_s
        self._wake_armed = False
        self.bus.publish(WakeEnd(detected=True, name=detection.name, score=detection.score))
        if self._mode == "busy":
            self._interrupt()
        self._begin_listening("wake", preroll=True)

    # --- wake state ------------------------------------------------------------------------

    def _arm_wake(self) -> None:
        if self.wake is None or not self.config.wake_enabled or self._wake_armed:
            return
        if self._capture_task is None or self._capture_task.done():
            return
        self.wake.reset()
        self._wake_armed = True
        self.bus.publish(WakeStart(model=self.wake.name))

    def _disarm_wake(self) -> None:
        if self._wake_armed:
            self._wake_armed = False
            self.bus.publish(WakeEnd(detected=False))

    def _enter_wake(self) -> None:
        self._mode = "wake"
        self._arm_wake()
        if not self._muted:
            self.orchestrator.set_state("idle")

    def _on_speech_queued(self, audio: SpeechAudio, play_at: float) -> None:
        """Scan ARIA's own speech for the wake word before it plays (self-trigger gate)."""
        if self.wake is None or not self._wake_armed:
            return
        scanner = getattr(self.wake, "scan_speech", None)
        if scanner is None:
            self._gates.append((play_at, play_at + audio.duration_s + _GATE_AFTER_S))
            return

        async def scan() -> None:
            self._scans_pending += 1
            try:
                offsets = await scanner(audio)
            finally:
                self._scans_pending -= 1
            if offsets is None:
                self._gates.append((play_at, play_at + audio.duration_s + _GATE_AFTER_S))
                return
            for offset in offsets:
                at = play_at + offset
                self._gates.append((at - _GATE_BEFORE_S, at + _GATE_AFTER_S))

        self.orchestrator.spawn(scan(), name="aria-voice-self-scan")

    def _gated(self, now: float) -> bool:
        if self._scans_pending:
            return True  # ARIA's speech is playing and not yet checked
        self._gates = [(a, b) for a, b in self._gates if b >= now - 5.0]
        return any(a <= now <= b for a, b in self._gates)

    # --- listening -------------------------------------------------------------------------

    def _begin_listening(self, trigger: str, *, preroll: bool, hold: bool = False) -> None:
        self._disarm_wake()
        self._mode = "listen"
        self._trigger = trigger
        self._hold = hold
        self._command = list(self._preroll) if preroll else []
        self._preroll.clear()
        self._speech_started = False
        self._silence_s = 0.0
        self._heard_s = 0.0
        self._wait_s = (
            self.config.follow_up_s if trigger == "follow-up" else self.config.no_speech_timeout_s
        )
        if self.vad is not None:
            self.vad.reset()
        self.bus.publish(SttStart(trigger=trigger))
        self.orchestrator.set_state("listening")

    async def _listen_frame(self, frame: bytes) -> bool:
        self._command.append(frame)
        speech = False
        if self.vad is not None:
            speech = await self.vad.speech_probability(frame) >= self.config.vad_threshold
        if self._mode != "listen":
            return speech
        self._heard_s += FRAME_S
        if speech:
            if not self._speech_started:
                self._speech_started = True
                self.bus.publish(SttVadStart())
            self._silence_s = 0.0
        elif self._speech_started:
            self._silence_s += FRAME_S
        if self._heard_s >= self.config.max_command_s:
            await self._end_command("max_length")
        elif self._hold:
            pass  # push-to-talk held: the release ends the command
        elif self._speech_started and self._silence_s >= self.config.silence_s:
            await self._end_command("silence")
        elif not self._speech_started and self._heard_s >= self._wait_s:
            await self._end_command("no_speech")
        return speech

    async def _end_command(self, reason: str) -> None:
        audio = b"".join(self._command)
        self._command = []
        self._mode = "busy"
        self.bus.publish(
            SttVadEnd(reason=reason, audio_ms=len(audio) / 2 / PIPELINE_RATE_HZ * 1000)
        )
        if reason == "no_speech" or (reason == "released" and not audio):
            self.bus.publish(SttEnd(text=""))
            self._enter_wake()
            return
        self._turn_task = asyncio.create_task(self._turn(audio), name="aria-voice-turn")

    # --- the turn --------------------------------------------------------------------------

    async def _turn(self, audio: bytes) -> None:
        follow_up = False
        try:
            follow_up = await self._transcribe_and_answer(audio)
        except asyncio.CancelledError:
            raise
        except AriaError as exc:
            self.bus.publish(ErrorEvent(code=exc.code, message=exc.message, hint=exc.hint))
        except Exception as exc:
            _LOGGER.exception("Voice turn failed")
            self.bus.publish(ErrorEvent(code="internal", message=f"The voice turn failed: {exc}"))
        finally:
            self._run_id = None
            self._last_turn_end = time.monotonic()
        if self._mode != "busy":
            return  # interrupted: already listening again
        if self._capture_task is None or self._capture_task.done():
            self._mode = "off"
            self.orchestrator.set_state("muted" if self._muted else "idle")
        elif follow_up and self.config.follow_up_s > 0:
            self._begin_listening("follow-up", preroll=False)
        else:
            self._enter_wake()

    async def _transcribe_and_answer(self, audio: bytes) -> bool:
        self.orchestrator.set_state("thinking")
        stt = self.speech.stt
        if stt is None:
            raise VoiceUnavailableError("Speech-to-text is not configured.")
        await self._wait_loaded("stt")
        try:
            transcript = await stt.transcribe(
                AudioClip(pcm=audio, sample_rate_hz=PIPELINE_RATE_HZ),
                language=self.config.language,
            )
        except AriaError:
            self.bus.publish(SttEnd(text=""))
            self.orchestrator.set_state("idle")
            raise
        self.bus.publish(
            SttEnd(
                text=transcript.text,
                language=transcript.language,
                latency_ms=transcript.latency_ms,
                engine=transcript.engine,
            )
        )
        text = strip_wake_phrase(transcript.text, self.config.wake_phrases)
        if not any(ch.isalnum() for ch in text):
            self.orchestrator.set_state("idle")
            return False
        self._arm_wake()  # the wake word now interrupts the answer
        if time.monotonic() - self._last_turn_end > self.config.conversation_idle_s:
            self._conversation_id = None
        sub = self.bus.subscribe(event_filter=_reply_events)
        try:
            try:
                handle = await self.orchestrator.handle(
                    StartTurn(text=text, conversation_id=self._conversation_id, source="voice")
                )
            except AriaError:
                self._conversation_id = None
                raise
            self._run_id = handle.run_id
            self._conversation_id = handle.conversation_id
            status = await self.speech.speak_stream(
                self._reply_sentences(sub, handle.run_id), run_id=handle.run_id
            )
        finally:
            sub.close()
        return status == "complete"

    async def _reply_sentences(self, sub: Any, run_id: str) -> AsyncIterator[str]:
        splitter = SentenceSplitter()
        async for event in sub:
            if event.run_id != run_id:
                continue
            if isinstance(event, LlmDelta):
                for sentence in splitter.feed(event.text):
                    self._show_speaking(run_id)
                    yield sentence
            elif isinstance(event, ErrorEvent):
                for sentence in splitter.flush():
                    yield sentence
                yield f"Sorry, {event.message[:1].lower()}{event.message[1:]}"
            elif isinstance(event, RunEnd):
                for sentence in splitter.flush():
                    self._show_speaking(run_id)
                    yield sentence
                if self.speech.speaking:
                    self._show_speaking(run_id)
                return

    def _show_speaking(self, run_id: str) -> None:
        self.orchestrator.set_state("speaking", run_id)

    def _interrupt(self) -> None:
        """Silence the output now and cancel the turn being answered."""
        self.speech.interrupt()
        if self._run_id is not None:
            self.orchestrator.spawn(
                self.orchestrator.handle(CancelTurn(run_id=self._run_id)),
                name="aria-voice-cancel-turn",
            )
        if self._turn_task is not None and not self._turn_task.done():
            self._turn_task.cancel()

    # --- commands --------------------------------------------------------------------------

    async def _on_push_to_talk(self, command: PushToTalk) -> None:
        action = command.action
        if action not in {"press", "release", "toggle", "listen"}:
            raise AriaError(
                f"Unknown push-to-talk action {action!r}.",
                hint="Use press, release, toggle or listen.",
            )
        if action == "release":
            if self._mode == "listen" and self._hold:
                await self._end_command("released")
            return
        if self._mode == "listen":
            if action == "toggle":
                await self._end_command("released")
            return
        self._require_capture()
        if self._mode == "busy":
            self._interrupt()
        self._begin_listening("push-to-talk", preroll=True, hold=action == "press")

    def _require_capture(self) -> None:
        if self._muted:
            raise VoiceUnavailableError(
                "The microphone is muted.", hint="Unmute it from the tray or the API first."
            )
        if self._capture_task is None or self._capture_task.done():
            raise VoiceUnavailableError(
                self._source_error or "No microphone is open.",
                hint="Connect a microphone and check `aria doctor` (audio).",
            )

    async def _on_set_muted(self, command: SetMicrophoneMuted) -> bool:
        if command.muted == self._muted:
            return self._muted
        self._muted = command.muted
        if command.muted:
            task = self._capture_task
            self._capture_task = None
            if self._mode == "listen":
                self._command = []
                self._mode = "off"
                self.bus.publish(SttVadEnd(reason="cancelled"))
                self.bus.publish(SttEnd(text=""))
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            if self._mode != "busy":
                self._mode = "off"
            self.orchestrator.set_state("muted")
        else:
            if self._source_factory is not None:
                self._start_capture()
            self.orchestrator.set_state("idle")
        return self._muted

    async def _on_speak(self, command: Speak) -> SpeechAudio:
        if not command.play or self.speech.sink is None:
            return await self.speech.synthesize(command.text)
        pieces: list[SpeechAudio] = []
        self.orchestrator.set_state("speaking")
        try:
            outcome = await self.speech.speak(command.text, collect=pieces)
        finally:
            self.orchestrator.set_state("idle")
        if outcome == "error" and self.speech.last_error is not None:
            raise self.speech.last_error  # e.g. no speaker: playing was asked for and failed
        if not pieces and outcome == "complete":
            raise AriaError("There is nothing to say.", hint="Give some words to speak.")
        rate = pieces[0].sample_rate_hz if pieces else getattr(self.speech.tts, "sample_rate_hz", 0)
        # Interrupted speech returns what had been handed to the output.
        return SpeechAudio(
            pcm=b"".join(p.pcm for p in pieces), sample_rate_hz=int(rate), text=command.text
        )

    async def _on_transcribe(self, command: Transcribe) -> Any:
        return await self.speech.transcribe_wav(
            command.wav, language=command.language or self.config.language
        )

    async def _on_stop_everything(self) -> None:
        self.speech.interrupt()
        if self._mode == "listen":
            self._command = []
            self.bus.publish(SttVadEnd(reason="cancelled"))
            self.bus.publish(SttEnd(text=""))
            self._enter_wake()
        if self._turn_task is not None and not self._turn_task.done():
            self._turn_task.cancel()
            if self._capture_task is not None and not self._capture_task.done():
                self._enter_wake()


def _reply_events(event: Event) -> bool:
    return isinstance(event, LlmDelta | RunEnd | ErrorEvent)
