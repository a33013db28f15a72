"""The voice pipeline: wake word -> listen -> transcribe -> turn -> speak -> follow-up.

One capture task reads 80 ms frames from the audio source and routes each one by the
pipeline's state (:class:`~aria_desktop.core.voice.states.VoiceState`):

- **wake**: frames go to the wake word detector and into a pre-roll ring buffer: a command
  starts with the whole wake phrase (1.5 s), so it is not clipped, and the transcription is
  told it begins with that phrase (``starts_with``) rather than guessing at its tail;
- **listening**: frames are collected for the command; the pure
  :class:`~aria_desktop.core.voice.endpointing.SpeechSegmenter` ends it after ``silence_s`` of
  silence (or at ``max_command_s``, or when push-to-talk is released);
- **transcribing / thinking / speaking**: a turn task transcribes the command, starts a
  ``StartTurn(source="voice")`` and speaks the reply sentence by sentence while ``llm-delta``
  events still arrive. Once the command is transcribed the wake detector is armed again: the
  wake word (or push-to-talk) interrupts — the output is silenced at once, the turn is
  cancelled if the model is still writing (a reply that had streamed whole stays
  ``complete``: only its speech ends ``interrupted``), and listening starts.

Every state change goes through one transition (it shows the assistant state too); ARIA's own
voice must not wake it (``WakeGate``); time comes from the injected clock; mute closes the
capture stream and nothing is recorded to disk. A dictation is recorded the same way and typed
(``core/voice/dictation.py``). See ``aria_desktop/ARCHITECTURE.md``, "One voice turn".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from aria_desktop.core.bus import EventBus
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.core.ports import Clock, VoiceActivityDetector, WakeWordDetector
from aria_desktop.core.voice.answer import VoiceAnswers, transcribe_command
from aria_desktop.core.voice.dictation import DICTATION, Dictation, dictate_heard
from aria_desktop.core.voice.endpointing import (
    CommandRecording,
    PreRoll,
    SegmentEvent,
    SpeechSegmenter,
    rms_dbfs,
)
from aria_desktop.core.voice.hands_free import HANDS_FREE, hear_hands_free
from aria_desktop.core.voice.models import Loadable, VoiceModels
from aria_desktop.core.voice.parts import (
    SourceFactory,
    VoiceConfig,
    VoiceParts,
    close_replaced,
    load_new,
)
from aria_desktop.core.voice.ports import HandsFree
from aria_desktop.core.voice.self_speech import SelfSpeechScans
from aria_desktop.core.voice.speech import SpeechService
from aria_desktop.core.voice.speech_text import strip_wake_phrase
from aria_desktop.core.voice.states import VoiceState, VoiceStateMachine
from aria_desktop.core.voice.wake_gate import WakeGate
from aria_desktop.domain import audio as au
from aria_desktop.domain import voice_events
from aria_desktop.domain.chat import CapabilityStatus
from aria_desktop.domain.commands import PushToTalk, SetMicrophoneMuted, Speak, Transcribe
from aria_desktop.domain.dictation import asks_for_dictation
from aria_desktop.domain.errors import AriaError, VoiceUnavailableError
from aria_desktop.domain.events import ErrorEvent

__all__ = ["VoiceConfig", "VoicePipeline", "VoiceState", "rms_dbfs"]

_LOGGER = logging.getLogger(__name__)
FRAME_S = au.FRAME_SAMPLES / au.PIPELINE_RATE_HZ
"""Duration of one capture frame, in seconds."""
_PTT_ACTIONS = frozenset({"press", "release", "toggle", "listen"})
_NO_MICROPHONE = "no microphone is configured; `aria doctor` lists audio devices"


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
        clock: time source (load latency, self-speech gate, conversation idle time); the
            speech service's clock by default, which must be the same one, because the
            playback times the self-speech gate compares with come from it.
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
        clock: Clock | None = None,
    ) -> None:
        self.orchestrator = orchestrator
        self._no_source_reason = no_source_reason
        self.bus: EventBus = orchestrator.bus
        self.speech = speech
        self.wake = wake
        self.vad = vad
        self._source_factory = source_factory
        self.config = config or VoiceConfig()
        self.clock: Clock = clock or speech.clock
        self.states = VoiceStateMachine(orchestrator.set_state)
        self._models = VoiceModels(bus=self.bus, clock=self.clock)
        self._gate = WakeGate(refractory_s=self.config.refractory_s)
        self._self_speech = SelfSpeechScans(gate=self._gate, spawn=orchestrator.spawn)
        self._preroll = PreRoll(preroll_s=self.config.longest_preroll_s, frame_s=FRAME_S)
        self._recording: CommandRecording | None = None
        self._capture_task: asyncio.Task[None] | None = None
        self._turn_task: asyncio.Task[None] | None = None
        self._source_error = ""
        self._source_ended = asyncio.Event()
        self._listen_immediately = False
        self._audio_s = 0.0
        self._answers = VoiceAnswers(orchestrator=orchestrator, clock=self.clock)
        self._next: VoiceParts | None = None  # loaded for changed settings, not yet in use
        self.dictation = Dictation(orchestrator=orchestrator, bus=self.bus, clock=self.clock)
        self.hands_free: HandsFree | None = None
        """While active, utterances are heard without the wake word (``core/voice/hands_free``)."""
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
        no_source = self._no_source_reason or _NO_MICROPHONE
        reason = no_source if self._source_factory is None else self._source_error
        reason = reason or self._models.problem(wake=self._detector is not None)
        return CapabilityStatus(
            name="voice", available=not reason, reason=reason, enabled=not self.muted
        )

    # --- lifecycle -------------------------------------------------------------------------

    async def start(self, *, listen_immediately: bool = False) -> None:
        """Load the models in the background (with progress events) and open the microphone.

        Args:
            listen_immediately: treat the start of the audio as a command (no wake word);
                used for WAV files that hold only a command.
        """
        self._listen_immediately = listen_immediately
        engines: list[tuple[str, Loadable | None]] = [
            ("wake", self._detector),
            ("vad", self.vad),
            ("stt", self.speech.stt),
            ("tts", self.speech.tts),
        ]
        loaders = [(component, engine) for component, engine in engines if engine is not None]
        self._models.expect([component for component, _engine in loaders])
        self.orchestrator.spawn(self._models.load_all(loaders), name="aria-voice-load")
        if self._source_factory is not None and not self.muted:
            self._start_capture()

    async def wait_ready(self, timeout_s: float = 120.0) -> None:
        """Wait until every model has loaded (raises the first load failure)."""
        async with asyncio.timeout(timeout_s):
            await self._models.wait_all()

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
        self._recording = None
        if self.state is not VoiceState.STOPPED:
            self.states.transition(VoiceState.STOPPED)
        await self.speech.aclose()
        if self.wake is not None:
            with contextlib.suppress(Exception):
                await self.wake.aclose()

    def replace_parts(self, parts: VoiceParts) -> asyncio.Task[None]:
        """Load ``parts`` in the background; they take over before the next utterance.

        The pipeline keeps running meanwhile (ARCHITECTURE.md: settings applied live).
        """
        return self.orchestrator.spawn(self._stage(parts), name="aria-voice-reload")

    @property
    def parts(self) -> VoiceParts:
        """The parts in use now."""
        speech, wake, source = self.speech, self.wake, self._source_factory
        return VoiceParts(speech=speech, wake=wake, config=self.config, source_factory=source)

    async def _stage(self, parts: VoiceParts) -> None:
        try:
            await load_new(parts, self.parts, VoiceModels(bus=self.bus, clock=self.clock))
        except AriaError:
            return  # reported by the loader; the parts in use stay
        self._next = parts
        if not self._capturing and not self.states.busy:
            self._take_next()

    def _take_next(self) -> None:
        new, self._next, old = self._next, None, self.parts
        if new is None:
            return
        self.speech, self.wake, self.config = new.speech, new.wake, new.config
        new.speech.observer = self._on_speech_queued
        self._gate.refractory_s = new.config.refractory_s
        self._preroll = PreRoll(preroll_s=new.config.longest_preroll_s, frame_s=FRAME_S)
        if new.wake is not None and new.wake is not old.wake:
            new.wake.reset()
        self.orchestrator.spawn(close_replaced(old, new), name="aria-voice-close-replaced")
        if new.source_factory is not self._source_factory:
            self._source_factory = new.source_factory
            if self._capturing:
                self.orchestrator.spawn(self._reopen(), name="aria-voice-reopen")

    async def _reopen(self) -> None:
        """Close the capture stream and open the (newly configured) source."""
        await self._stop_capture()
        if not self.muted and self._source_factory is not None:
            self._start_capture()

    @property
    def state(self) -> VoiceState:
        """What the pipeline is doing now."""
        return self.states.state

    @property
    def source_finished(self) -> bool:
        """Whether a finite source (a WAV file) has been read to its end."""
        return self._source_ended.is_set()

    @property
    def muted(self) -> bool:
        """Whether the microphone is muted (capture stream closed)."""
        return self.states.muted

    @property
    def _detector(self) -> WakeWordDetector | None:
        """The wake word detector when the wake word is enabled."""
        return self.wake if self.config.wake_enabled else None

    @property
    def _capturing(self) -> bool:
        return self._capture_task is not None and not self._capture_task.done()

    # --- capture ---------------------------------------------------------------------------

    def _start_capture(self) -> None:
        self._source_ended.clear()
        self._capture_task = self.orchestrator.spawn(self._capture(), name="aria-voice-capture")

    async def _capture(self) -> None:
        assert self._source_factory is not None
        try:
            if self._detector is not None:
                await self._models.wait_loaded("wake")
            await self._models.wait_loaded("vad")
        except AriaError:
            return  # reported by the loader
        frames: AsyncIterator[bytes] | None = None
        try:
            source = self._source_factory()
            frames = source.frames()
            self._on_capture_opened()
            async for frame in frames:
                await self._on_frame(frame)
            if self.state is VoiceState.LISTENING:
                await self._end_command("end_of_audio")
        except AriaError as exc:
            self._source_error = exc.message
            self.bus.publish(ErrorEvent(code=exc.code, message=exc.message, hint=exc.hint))
        finally:
            if frames is not None:
                with contextlib.suppress(Exception):
                    await frames.aclose()  # type: ignore[attr-defined]
            self._disarm_wake()
            if self.state in (VoiceState.WAKE, VoiceState.LISTENING):
                self._recording = None
                self.states.transition(VoiceState.STOPPED)
            self._source_ended.set()

    def _on_capture_opened(self) -> None:
        if self._listen_immediately:
            self._listen_immediately = False
            self._begin_listening("file")
        elif self.state is VoiceState.STOPPED:
            self._enter_wake()
        elif self.state in (VoiceState.THINKING, VoiceState.SPEAKING):
            self._arm_wake()  # unmuted while answering: the wake word interrupts again

    async def _on_frame(self, frame: bytes) -> None:
        if self._next is not None and self._recording is None and not self.states.busy:
            self._take_next()  # between utterances: changed settings take over
        self._audio_s += FRAME_S
        level = rms_dbfs(frame)
        # The detector hears every frame, armed or not, so its audio context is never stale:
        # re-armed after a command, it must not fire again on the wake word it already heard.
        detection = None
        if self._detector is not None:
            detection = await self._detector.process(frame)
        if self._recording is not None:
            speech = await self._listen_frame(self._recording, frame)
            self.bus.publish(voice_events.AudioLevel(rms_dbfs=level, speech=speech))
            return
        self.bus.publish(voice_events.AudioLevel(rms_dbfs=level))
        self._preroll.append(frame)
        if detection is not None:
            self._on_wake(detection)
        elif self.hands_free and self.state is VoiceState.WAKE and self.hands_free.active():
            self._begin_listening(HANDS_FREE, preroll_s=self.config.preroll_s)

    def _on_wake(self, detection: au.WakeDetection) -> None:
        accepted = self._gate.accept(
            audio_s=self._audio_s, now=self.clock.monotonic(), speaking=self.speech.speaking
        )
        if not accepted:
            return
        self.bus.publish(
            voice_events.WakeEnd(detected=True, name=detection.name, score=detection.score)
        )
        if self.states.busy:
            self._interrupt()
        self._begin_listening(
            "wake",
            preroll_s=self.config.wake_preroll_s,
            starts_with=detection.name.replace("_", " "),
        )

    # --- wake ------------------------------------------------------------------------------

    def _arm_wake(self) -> None:
        detector = self._detector
        if detector is None or self._gate.armed or not self._capturing:
            return
        detector.reset()
        self._gate.arm()
        self.bus.publish(voice_events.WakeStart(model=detector.name))

    def _disarm_wake(self) -> None:
        if self._gate.disarm():
            self.bus.publish(voice_events.WakeEnd(detected=False))

    def _enter_wake(self) -> None:
        self._arm_wake()
        self.states.transition(VoiceState.WAKE)

    def _enter_rest(self) -> None:
        """Wait for the wake word again, or stop when the microphone has been closed."""
        if self._capturing:
            self._enter_wake()
        elif self.state is not VoiceState.STOPPED:
            self.states.transition(VoiceState.STOPPED)

    def _on_speech_queued(self, audio: au.SpeechAudio, play_at: float) -> None:
        """Scan ARIA's own speech for the wake word before it plays (self-trigger gate)."""
        self._self_speech.speech_queued(self.wake, audio, play_at)

    # --- listening -------------------------------------------------------------------------

    def _begin_listening(
        self, trigger: str, *, preroll_s: float = 0.0, hold: bool = False, starts_with: str = ""
    ) -> None:
        self._disarm_wake()
        frames = self._preroll.take(preroll_s) if preroll_s > 0 else []
        self._preroll.clear()
        wait_s = (
            self.config.follow_up_s if trigger == "follow-up" else self.config.no_speech_timeout_s
        )
        segmenter = SpeechSegmenter(
            silence_s=self.config.silence_s,
            max_s=self.config.max_command_s,
            no_speech_timeout_s=wait_s,
            hold=hold,
            early_s=self.config.early_stt_s,
        )
        self._recording = CommandRecording(
            trigger=trigger, segmenter=segmenter, frames=frames, starts_with=starts_with
        )
        if self.vad is not None:
            self.vad.reset()
        self.bus.publish(voice_events.SttStart(trigger=trigger))
        self.states.transition(VoiceState.LISTENING)

    async def _listen_frame(self, recording: CommandRecording, frame: bytes) -> bool:
        recording.frames.append(frame)
        speech = False
        if self.vad is not None:
            speech = await self.vad.speech_probability(frame) >= self.config.vad_threshold
        if self._recording is not recording:
            return speech  # ended (released, muted) while the VAD ran
        for event in recording.segmenter.process(FRAME_S, speech):
            if event is SegmentEvent.SPEECH_STARTED:
                self.bus.publish(voice_events.SttVadStart())
            elif event is SegmentEvent.PAUSED and recording.trigger != DICTATION:
                self._answers.early.start(
                    recording, self.speech, self._models, self.config.language
                )
            else:
                await self._end_command(event.value)
        return speech

    async def _end_command(self, reason: str) -> None:
        recording = self._recording
        assert recording is not None
        self._recording = None
        audio = recording.audio(reason)
        self.bus.publish(voice_events.SttVadEnd(reason=reason, audio_ms=recording.audio_ms))
        if reason == "no_speech" or (reason == "released" and not audio):
            self.bus.publish(voice_events.SttEnd(text=""))
            self._enter_rest()
            return
        self.states.transition(VoiceState.TRANSCRIBING)
        if recording.trigger == DICTATION:
            turn = self._dictate(audio)
        elif recording.trigger == HANDS_FREE:
            turn = self._heard(audio)
        else:
            turn = self._turn(audio, recording.starts_with)
        self._turn_task = asyncio.create_task(turn, name="aria-voice-turn")

    def _cancel_recording(self) -> None:
        """Drop the command being recorded (mute, kill switch)."""
        self._recording = None
        self.bus.publish(voice_events.SttVadEnd(reason="cancelled"))
        self.bus.publish(voice_events.SttEnd(text=""))

    # --- the turn --------------------------------------------------------------------------

    async def _turn(self, audio: bytes, starts_with: str) -> None:
        follow_up = False
        try:
            follow_up = await self._transcribe_and_answer(audio, starts_with)
        except asyncio.CancelledError:
            raise
        except AriaError as exc:
            self.bus.publish(ErrorEvent(code=exc.code, message=exc.message, hint=exc.hint))
        except Exception as exc:
            _LOGGER.exception("Voice turn failed")
            self.bus.publish(ErrorEvent(code="internal", message=f"The voice turn failed: {exc}"))
        finally:
            self._answers.turn_ended()
        if not self.states.busy or self._recording is not None:
            return  # interrupted, or a dictation asked for by voice: listening again
        if follow_up and self.config.follow_up_s > 0 and self._capturing:
            self._begin_listening("follow-up")
        else:
            self._enter_rest()

    async def _heard(self, audio: bytes) -> None:
        """An utterance heard without the wake word: the hook's, or dropped; never a turn."""
        early = self._answers.early  # begun at the utterance's pause
        await hear_hands_free(
            self.hands_free, self.speech, self._models, self.bus, audio, self.config, early
        )
        if self.states.busy:
            self._enter_rest()

    async def _dictate(self, audio: bytes) -> None:
        await dictate_heard(self.dictation, self.speech, self._models, audio, self.config.language)
        if self.states.busy:
            self._enter_rest()

    async def _transcribe_and_answer(self, audio: bytes, starts_with: str) -> bool:
        """Transcribe the command and speak the turn's reply; True if it was spoken whole."""
        transcript = await transcribe_command(
            self.speech,
            self._models,
            self.bus,
            audio,
            language=self.config.language,
            starts_with=starts_with,
            early=self._answers.early,
        )
        text = strip_wake_phrase(transcript.text, self.config.wake_phrases)
        if not any(ch.isalnum() for ch in text):
            return False
        if asks_for_dictation(text):
            self._begin_listening(DICTATION)  # the next words are typed, not answered
            return False
        self.states.transition(VoiceState.THINKING)
        self._arm_wake()  # the wake word now interrupts the answer
        return await self._answers.answer(
            text,
            speech=self.speech,
            conversation_idle_s=self.config.conversation_idle_s,
            show_speaking=self._show_speaking,
        )

    def _show_speaking(self, run_id: str) -> None:
        if self.state in (VoiceState.THINKING, VoiceState.SPEAKING):
            self.states.transition(VoiceState.SPEAKING, run_id)

    def _interrupt(self) -> None:
        """Silence the output now and cancel the turn being answered."""
        self.speech.interrupt()
        self._answers.cancel_run()
        if self._turn_task is not None and not self._turn_task.done():
            self._turn_task.cancel()

    # --- commands --------------------------------------------------------------------------

    async def _on_push_to_talk(self, command: PushToTalk) -> None:
        action = command.action
        if action not in _PTT_ACTIONS or command.purpose not in {"ask", "dictate"}:
            raise AriaError(
                f"Unknown push-to-talk action {action!r} or purpose {command.purpose!r}.",
                hint="Use press, release, toggle or listen; to ask or to dictate.",
            )
        recording = self._recording
        if recording is not None:
            if action == "toggle" or (action == "release" and recording.segmenter.hold):
                await self._end_command("released")
            return
        if action == "release":
            return
        self._require_capture()
        if self.states.busy:
            self._interrupt()
        trigger = DICTATION if command.purpose == "dictate" else "push-to-talk"
        self._begin_listening(trigger, preroll_s=self.config.preroll_s, hold=action == "press")

    def _require_capture(self) -> None:
        if self.muted:
            raise VoiceUnavailableError(
                "The microphone is muted.", hint="Unmute it from the tray or the API first."
            )
        if not self._capturing:
            raise VoiceUnavailableError(
                self._source_error or "No microphone is open.",
                hint="Connect a microphone and check `aria doctor` (audio).",
            )

    async def _on_set_muted(self, command: SetMicrophoneMuted) -> bool:
        if command.muted == self.muted:
            return self.muted
        self.states.set_muted(command.muted)
        if not command.muted:
            if self._source_factory is not None:
                self._start_capture()
            return False
        if self._recording is not None:
            self._cancel_recording()
            self.states.transition(VoiceState.STOPPED)
        await self._stop_capture()
        return True

    async def _stop_capture(self) -> None:
        task, self._capture_task = self._capture_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _on_speak(self, command: Speak) -> au.SpeechAudio:
        # An announcement outside the listening cycle: it shows speaking, not a voice state.
        return await self.speech.announce(
            command.text, play=command.play, show_state=self.orchestrator.set_state
        )

    async def _on_transcribe(self, command: Transcribe) -> au.Transcript:
        return await self.speech.transcribe_wav(
            command.wav, language=command.language or self.config.language
        )

    async def _on_stop_everything(self) -> None:
        self.speech.interrupt()
        if self._recording is not None:
            self._cancel_recording()
            self._enter_rest()
        if self._turn_task is not None and not self._turn_task.done():
            self._turn_task.cancel()
            if self.states.busy:
                self._enter_rest()
