"""One ring of the chime, played where ARIA's voice plays (the ``AudioSink`` port).

The sink is the voice's own kind of output (``SpeakerSink``: PortAudio through PulseAudio or
PipeWire, ``voice.output_device``), opened for the ring and given back when it ends, so a ring
and a spoken sentence mix like any two sounds on the desktop. Without a sound server the sink
raises ``AudioDeviceError``: the announcer logs it and goes on (the notification still shows).
"""

from __future__ import annotations

from collections.abc import Callable

from aria_desktop.core.voice.ports import AudioSink
from aria_desktop.domain.audio import SpeechAudio

__all__ = ["SinkRingPlayer"]


class SinkRingPlayer:
    """The announcer's ``RingPlayer`` over an ``AudioSink``."""

    def __init__(self, open_sink: Callable[[], AudioSink], chime: SpeechAudio) -> None:
        """Play ``chime`` on sinks ``open_sink`` makes (one per ring, closed after it)."""
        self._open_sink = open_sink
        self._chime = chime
        self._sink: AudioSink | None = None

    async def play(self) -> None:
        """Play the chime once, to its end or until :meth:`stop`."""
        if self._sink is None:
            self._sink = self._open_sink()
        await self._sink.write(self._chime)
        await self._sink.drain()

    def stop(self) -> None:
        """Silence the chime now."""
        if self._sink is not None:
            self._sink.stop()

    async def aclose(self) -> None:
        """Close the output (the ring is over)."""
        sink, self._sink = self._sink, None
        if sink is not None:
            await sink.aclose()
