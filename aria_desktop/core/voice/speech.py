"""Speaking and transcribing for the voice pipeline, the CLI and the API.

Shared by the pipeline, ``aria say``/``aria transcribe`` and the API's ``/speak`` and
``/transcribe``.

``SpeechService`` owns the text-to-speech engine, the speech-to-text engine and the output
sink. ``speak_stream`` speaks a reply sentence by sentence while it is still being written:
each sentence is synthesized (in a worker thread or on a Wyoming server) while the previous
one plays. ``interrupt`` silences the output at once (the sink drops what is queued).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable

from aria_desktop.core.bus import EventBus
from aria_desktop.core.clock import SystemClock
from aria_desktop.core.ports import AudioSink, Clock, SpeechToText, TextToSpeech
from aria_desktop.core.voice.speech_text import SentenceSplitter, speakable
from aria_desktop.domain.audio import AudioClip, SpeechAudio, Transcript, decode_wav
from aria_desktop.domain.errors import AriaError, VoiceUnavailableError
from aria_desktop.domain.events import AssistantState, ErrorEvent
from aria_desktop.domain.voice_events import TtsEnd, TtsStart

__all__ = ["SpeechOutcome", "SpeechService"]

_LOGGER = logging.getLogger(__name__)

SpeechOutcome = str
"""How speaking ended: complete, interrupted or error."""

SpeechObserver = Callable[[SpeechAudio, float], None]
"""Told about each piece of speech handed to the sink and its playback start (``clock`` s)."""


class SpeechService:
    """Text-to-speech and speech-to-text with one output sink.

    Args:
        bus: where ``tts-start``/``tts-end`` are published.
        tts, stt: the engines (either may be None when that side is not configured).
        sink: where speech is played (None: ``speak`` only returns audio).
        clock: time source (playback times given to ``observer``, latencies).
    """

    def __init__(
        self,
        *,
        bus: EventBus,
        tts: TextToSpeech | None,
        stt: SpeechToText | None,
        sink: AudioSink | None,
        clock: Clock | None = None,
    ) -> None:
        self.bus = bus
        self.tts = tts
        self.stt = stt
        self.sink = sink
        self.clock: Clock = clock or SystemClock()
        """Time source of playback times (the voice pipeline's self-speech gate shares it)."""
        self._speaking: asyncio.Task[SpeechOutcome] | None = None
        self._play_until = 0.0
        self.observer: SpeechObserver | None = None
        self.last_error: AriaError | None = None
        """Why the last ``speak`` ended with ``error`` (also published as an error event)."""

    @property
    def speaking(self) -> bool:
        """Whether speech is being synthesized or played now."""
        return self._speaking is not None and not self._speaking.done()

    async def transcribe(self, clip: AudioClip, *, language: str | None = None) -> Transcript:
        """Transcribe audio of any rate and channel count."""
        if self.stt is None:
            raise VoiceUnavailableError(
                "Speech-to-text is not configured.", hint="Check `aria doctor`."
            )
        return await self.stt.transcribe(clip, language=language)

    async def transcribe_wav(self, wav: bytes, *, language: str | None = None) -> Transcript:
        """Transcribe a WAV file's bytes (the ``Transcribe`` command)."""
        return await self.transcribe(decode_wav(wav), language=language)

    async def synthesize(self, text: str) -> SpeechAudio:
        """The whole of ``text`` as one piece of speech (not played)."""
        tts = self._require_tts()
        pieces = [piece async for piece in tts.synthesize(speakable(text))]
        if not pieces:
            raise AriaError("There is nothing to say.", hint="Give some words to speak.")
        return SpeechAudio(
            pcm=b"".join(p.pcm for p in pieces),
            sample_rate_hz=pieces[0].sample_rate_hz,
            text=text,
        )

    async def announce(
        self, text: str, *, play: bool, show_state: Callable[[AssistantState], None]
    ) -> SpeechAudio:
        """Speak ``text`` outside a turn (``Speak``), showing ``speaking`` while it plays.

        Without ``play`` (or without a sink) the audio is only synthesized and returned;
        interrupted speech returns what had been handed to the output.
        """
        if not play or self.sink is None:
            return await self.synthesize(text)
        pieces: list[SpeechAudio] = []
        show_state("speaking")
        try:
            outcome = await self.speak(text, collect=pieces)
        finally:
            show_state("idle")
        if outcome == "error" and self.last_error is not None:
            raise self.last_error  # e.g. no speaker: playing was asked for and failed
        if not pieces and outcome == "complete":
            raise AriaError("There is nothing to say.", hint="Give some words to speak.")
        rate = pieces[0].sample_rate_hz if pieces else getattr(self.tts, "sample_rate_hz", 0)
        pcm = b"".join(p.pcm for p in pieces)
        return SpeechAudio(pcm=pcm, sample_rate_hz=int(rate), text=text)

    async def speak(
        self,
        text: str,
        *,
        run_id: str | None = None,
        collect: list[SpeechAudio] | None = None,
    ) -> SpeechOutcome:
        """Say ``text`` on the sink, sentence by sentence; returns how it ended.

        ``collect`` receives every piece of speech as it is played.
        """
        splitter = SentenceSplitter()

        async def sentences() -> AsyncIterator[str]:
            for sentence in splitter.feed(text) + splitter.flush():
                yield sentence

        return await self.speak_stream(sentences(), run_id=run_id, collect=collect)

    async def speak_stream(
        self,
        sentences: AsyncIterator[str],
        *,
        run_id: str | None = None,
        collect: list[SpeechAudio] | None = None,
    ) -> SpeechOutcome:
        """Speak sentences as they arrive; returns complete, interrupted or error.

        Publishes ``tts-start`` with the first sentence and always ``tts-end``. Interruption
        (``interrupt``) cancels this and reports ``interrupted``.
        """
        if self.speaking:
            self.interrupt()
        task = asyncio.create_task(self._speak(sentences, run_id, collect), name="aria-speak")
        self._speaking = task
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.cancelled() or task.done():
                return "interrupted"
            task.cancel()
            raise

    def interrupt(self) -> bool:
        """Stop speaking now: silence the sink and cancel synthesis. True if it was speaking."""
        was = self.speaking
        if self.sink is not None:
            self.sink.stop()
        if self._speaking is not None and not self._speaking.done():
            self._speaking.cancel()
        self._play_until = 0.0
        return was

    async def _speak(
        self,
        sentences: AsyncIterator[str],
        run_id: str | None,
        collect: list[SpeechAudio] | None,
    ) -> SpeechOutcome:
        self.last_error = None
        tts = self._require_tts()
        sink = self.sink
        if sink is None:
            raise VoiceUnavailableError("No audio output is configured.")
        started: float | None = None
        first_audio_ms: float | None = None
        count = 0
        audio_s = 0.0
        status: SpeechOutcome = "complete"
        try:
            async for sentence in sentences:
                if started is None:
                    started = self.clock.monotonic()
                    self.bus.publish(TtsStart(run_id=run_id))
                async for audio in tts.synthesize(sentence):
                    if first_audio_ms is None:
                        first_audio_ms = (self.clock.monotonic() - started) * 1000
                    now = self.clock.monotonic()
                    play_at = max(now, self._play_until)
                    self._play_until = play_at + audio.duration_s
                    if self.observer is not None:
                        self.observer(audio, play_at)
                    await sink.write(audio)
                    if collect is not None:
                        collect.append(audio)
                    audio_s += audio.duration_s
                count += 1
            if started is not None:
                await sink.drain()
        except asyncio.CancelledError:
            status = "interrupted"
            sink.stop()
            raise
        except AriaError as exc:
            status = "error"
            self.last_error = exc
            sink.stop()
            self.bus.publish(
                ErrorEvent(run_id=run_id, code=exc.code, message=exc.message, hint=exc.hint)
            )
        finally:
            with contextlib.suppress(Exception):
                await sentences.aclose()  # type: ignore[attr-defined]
            self._play_until = 0.0
            if started is not None:
                self.bus.publish(
                    TtsEnd(
                        run_id=run_id,
                        status=status,
                        sentences=count,
                        audio_ms=audio_s * 1000,
                        first_audio_ms=first_audio_ms,
                    )
                )
        return status

    def _require_tts(self) -> TextToSpeech:
        if self.tts is None:
            raise VoiceUnavailableError(
                "Text-to-speech is not configured.", hint="Check `aria doctor`."
            )
        return self.tts

    async def aclose(self) -> None:
        """Stop speaking and close the engines and the sink."""
        self.interrupt()
        if self._speaking is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._speaking
        for part in (self.tts, self.stt, self.sink):
            if part is not None:
                try:
                    await part.aclose()
                except Exception:
                    _LOGGER.exception("Closing %s failed", type(part).__name__)
