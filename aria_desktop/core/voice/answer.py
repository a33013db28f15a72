"""The answering half of a voice turn: transcribe the command, run the turn, speak its reply.

The pipeline (``core/voice/pipeline.py``) decides *when* a command is complete; this module
turns the command's audio into a transcript, starts a ``StartTurn(source="voice")`` in the
voice conversation (continued while the user keeps talking, new after ``conversation_idle_s``)
and speaks the reply sentence by sentence while ``llm-delta`` events still arrive. Barge-in
cancels the run being answered from here (``cancel_run``); the pipeline silences the output.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from aria_desktop.core.bus import EventBus, Subscription
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.core.ports import Clock
from aria_desktop.core.voice.early_stt import EarlyTranscription
from aria_desktop.core.voice.models import VoiceModels
from aria_desktop.core.voice.speech import SpeechService
from aria_desktop.core.voice.speech_text import SentenceSplitter
from aria_desktop.domain.audio import PIPELINE_RATE_HZ, AudioClip, Transcript
from aria_desktop.domain.commands import CancelTurn, StartTurn
from aria_desktop.domain.errors import AriaError, VoiceUnavailableError
from aria_desktop.domain.events import ErrorEvent, Event, LlmDelta, RunEnd
from aria_desktop.domain.voice_events import SttEnd

__all__ = ["VoiceAnswers", "reply_sentences", "transcribe_command"]

ShowSpeaking = Callable[[str], None]
"""Called with the run id before each sentence is handed to speech (shows speaking)."""


async def transcribe_command(
    speech: SpeechService,
    models: VoiceModels,
    bus: EventBus,
    audio: bytes,
    *,
    language: str | None,
    starts_with: str,
    early: EarlyTranscription | None = None,
    prompt: str = "",
) -> Transcript:
    """The command's words, published as ``stt-end`` (empty when transcription failed).

    ``early`` may already be transcribing exactly this audio (begun at the pause that ended
    the command): its result is taken instead of starting again.
    """
    stt = speech.stt
    if stt is None:
        raise VoiceUnavailableError("Speech-to-text is not configured.")
    await models.wait_loaded("stt")
    begun = early.take(audio, starts_with) if early is not None else None
    try:
        transcript = await (
            begun
            if begun is not None
            else stt.transcribe(
                AudioClip(pcm=audio, sample_rate_hz=PIPELINE_RATE_HZ),
                language=language,
                starts_with=starts_with,
                prompt=prompt,
            )
        )
    except AriaError:
        bus.publish(SttEnd(text=""))
        raise
    bus.publish(
        SttEnd(
            text=transcript.text,
            language=transcript.language,
            latency_ms=transcript.latency_ms,
            engine=transcript.engine,
        )
    )
    return transcript


async def reply_sentences(
    sub: Subscription,
    run_id: str,
    *,
    show_speaking: ShowSpeaking,
    speaking: Callable[[], bool],
) -> AsyncIterator[str]:
    """The reply's sentences as the turn streams them; an apology for each error.

    Every model step's text is spoken as it streams (what was said before a tool call
    has been heard), so this follows ``llm-delta`` events rather than the turn's final
    reply text.
    """
    splitter = SentenceSplitter()
    async for event in sub:
        if event.run_id != run_id:
            continue
        if isinstance(event, LlmDelta):
            for sentence in splitter.feed(event.text):
                show_speaking(run_id)
                yield sentence
        elif isinstance(event, ErrorEvent):
            for sentence in splitter.flush():
                yield sentence
            yield f"Sorry, {event.message[:1].lower()}{event.message[1:]}"
        elif isinstance(event, RunEnd):
            for sentence in splitter.flush():
                show_speaking(run_id)
                yield sentence
            if speaking():
                show_speaking(run_id)
            return


def _reply_events(event: Event) -> bool:
    return isinstance(event, LlmDelta | RunEnd | ErrorEvent)


class VoiceAnswers:
    """The voice conversation and the run being answered, across voice turns."""

    def __init__(self, *, orchestrator: Orchestrator, clock: Clock) -> None:
        self._orchestrator = orchestrator
        self._clock = clock
        self._run_id: str | None = None
        self._conversation_id: str | None = None
        self._last_turn_end: float | None = None
        """When the last voice turn ended (``clock`` seconds): continuing it is allowed."""
        self.early = EarlyTranscription()
        """The command's transcription begun at a pause (``core/voice/early_stt.py``)."""

    async def answer(
        self,
        text: str,
        *,
        speech: SpeechService,
        conversation_idle_s: float,
        show_speaking: ShowSpeaking,
    ) -> bool:
        """Run a turn for ``text`` and speak its reply; True if the reply was spoken whole."""
        orchestrator = self._orchestrator
        last_end = self._last_turn_end
        if last_end is None or self._clock.monotonic() - last_end > conversation_idle_s:
            self._conversation_id = None  # a new conversation
        sub = orchestrator.bus.subscribe(event_filter=_reply_events)
        try:
            try:
                handle = await orchestrator.handle(
                    StartTurn(text=text, conversation_id=self._conversation_id, source="voice")
                )
            except AriaError:
                self._conversation_id = None
                raise
            self._run_id = handle.run_id
            self._conversation_id = handle.conversation_id
            sentences = reply_sentences(
                sub, handle.run_id, show_speaking=show_speaking, speaking=lambda: speech.speaking
            )
            status = await speech.speak_stream(sentences, run_id=handle.run_id)
        finally:
            sub.close()
        return status == "complete"

    def turn_ended(self) -> None:
        """A voice turn is over (answered, failed or interrupted): the idle time starts."""
        self._run_id = None
        self._last_turn_end = self._clock.monotonic()

    def cancel_run(self) -> None:
        """Barge-in: cancel the turn being answered, if the model is still writing it."""
        if self._run_id is not None:
            orchestrator = self._orchestrator
            orchestrator.spawn(
                orchestrator.handle(CancelTurn(run_id=self._run_id)),
                name="aria-voice-cancel-turn",
            )
