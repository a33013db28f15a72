"""Speech-to-text from the best engine that answers: a remote server, else this computer.

The GPU machine's Whisper (a large model through Wyoming) hears far better than the small
model this computer can run, but that machine is off or asleep at times. A command must still
be heard then: ``FallbackSTT`` asks the remote engine first and, when it fails (refused,
unreachable, timed out, an error from the server), transcribes the same audio here. After a
failure the remote engine rests for ``retry_after_s`` so that every command does not wait for
a dead host's connect timeout; the next command after that tries it again.

Pure logic over two ``SpeechToText`` ports; the clock comes in as a function (ARCHITECTURE.md,
"Voice accuracy").
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from aria_desktop.core.voice.ports import SpeechToText
from aria_desktop.domain.audio import AudioClip, Transcript
from aria_desktop.domain.errors import AriaError

__all__ = ["FallbackSTT"]

_LOGGER = logging.getLogger(__name__)


class FallbackSTT:
    """``primary`` (remote) while it answers, ``fallback`` (local) while it does not.

    Args:
        primary: the preferred engine (a Wyoming server).
        fallback: the engine on this computer.
        clock: monotonic seconds.
        retry_after_s: how long a failed primary is skipped before it is tried again.
    """

    def __init__(
        self,
        primary: SpeechToText,
        fallback: SpeechToText,
        *,
        clock: Callable[[], float],
        retry_after_s: float = 30.0,
    ) -> None:
        self.primary = primary
        self.fallback = fallback
        self._clock = clock
        self._retry_after_s = retry_after_s
        self._resting_until: float | None = None
        self._fallback_loaded = False
        self.last_problem: AriaError | None = None
        """Why the primary was last skipped (None while it answers)."""

    @property
    def name(self) -> str:
        """The engine in use now, and the other one."""
        if self.using_fallback:
            return f"{self.fallback.name} (while {self.primary.name} does not answer)"
        return f"{self.primary.name} (else {self.fallback.name})"

    @property
    def using_fallback(self) -> bool:
        """Whether the primary failed last time and is resting."""
        return self._resting_until is not None

    async def load(self) -> None:
        """Reach the primary and load the local engine, so a failure later costs no load time.

        A primary that does not answer now is not an error (the fallback serves); only when
        neither engine can work does loading fail, with the primary's problem.
        """
        try:
            await self.primary.load()
        except AriaError as exc:
            self._rest(exc)
        else:
            self._back()
        try:
            await self._load_fallback()
        except AriaError as exc:
            if self.using_fallback:
                raise self.last_problem or exc from None
            _LOGGER.warning("The local speech-to-text fallback cannot load: %s", exc.message)

    async def transcribe(
        self,
        clip: AudioClip,
        *,
        language: str | None = None,
        starts_with: str = "",
        prompt: str = "",
    ) -> Transcript:
        """The primary's transcript, or the fallback's when the primary fails or is resting."""
        if self._primary_due():
            try:
                transcript = await self.primary.transcribe(
                    clip, language=language, starts_with=starts_with, prompt=prompt
                )
            except AriaError as exc:
                self._rest(exc)
            else:
                self._back()
                return transcript
        await self._load_fallback()
        return await self.fallback.transcribe(
            clip, language=language, starts_with=starts_with, prompt=prompt
        )

    async def aclose(self) -> None:
        """Close both engines."""
        try:
            await self.primary.aclose()
        finally:
            await self.fallback.aclose()

    def _primary_due(self) -> bool:
        return self._resting_until is None or self._clock() >= self._resting_until

    def _rest(self, problem: AriaError) -> None:
        if self._resting_until is None:
            _LOGGER.warning(
                "Speech-to-text falls back to this computer: %s %s", problem.message, problem.hint
            )
        self._resting_until = self._clock() + self._retry_after_s
        self.last_problem = problem

    def _back(self) -> None:
        if self._resting_until is not None:
            _LOGGER.info("Speech-to-text is back on %s", self.primary.name)
        self._resting_until = None
        self.last_problem = None

    async def _load_fallback(self) -> None:
        if not self._fallback_loaded:
            await self.fallback.load()
            self._fallback_loaded = True
