"""A timer that ends rings until "stop": typed, by API or in a voice turn, or the kill switch.

Through the composed ARIA (no model). The first tests hold the ring in a stand-in for the
sound device, so it rings as long as the test needs; the last one plays the shipped chime on
a private PulseAudio server's virtual speaker and listens on its monitor (the "microphone"
hears the room): the ring is heard, and "stop" silences it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from aria_desktop.adapters.skills.notifications import NOTIFICATIONS
from aria_desktop.adapters.voice.audio import pcm_to_int16
from aria_desktop.adapters.voice.devices import MicrophoneSource
from aria_desktop.compose.app import App, build_app
from aria_desktop.core.skills.announcing import DesktopAnnouncer
from aria_desktop.domain.audio import PIPELINE_RATE_HZ
from aria_desktop.domain.commands import StopEverything
from aria_desktop.domain.skill_events import TimerFinished
from tests.skills.conftest import ask, no_model_settings
from tests.skills.desktop_parts import (
    dunst,  # noqa: F401 - fixture
    session_bus,  # noqa: F401 - fixture
    watch_calls,
)
from tests.voice.pulse import PulseServer, pulse_server


class HeldRing:
    """The sound device: a ring sounds until it is stopped."""

    def __init__(self) -> None:
        self.playing = asyncio.Event()
        self._stop = asyncio.Event()
        self.stops = 0

    async def play(self) -> None:
        self._stop.clear()
        self.playing.set()
        await self._stop.wait()

    def stop(self) -> None:
        self.stops += 1
        self._stop.set()

    async def aclose(self) -> None:
        self.playing.clear()


def _announcer(app: App) -> DesktopAnnouncer:
    assert app.skills is not None
    assert app.skills.announcer is not None
    return app.skills.announcer


async def _ring_a_timer(app: App, ring: HeldRing) -> None:
    """Set a one-second timer and wait (on the bus) until it has ended and rings."""
    async with app.orchestrator.bus.subscribe() as events:
        said = await ask(app, "set a timer for 1 second")
        assert said.model == "timers"
        async with asyncio.timeout(10):
            async for event in events:
                if isinstance(event, TimerFinished):
                    break
            await ring.playing.wait()
    assert _announcer(app).ringing


@pytest.fixture
def ring(app: App) -> HeldRing:
    held = HeldRing()
    _announcer(app).ring = held
    return held


async def test_stop_typed_while_a_timer_rings_silences_it(app: App, ring: HeldRing) -> None:
    await _ring_a_timer(app, ring)
    stopped = await ask(app, "stop")
    assert (stopped.text, stopped.backend, stopped.model) == ("Okay.", "skills", "ringing")
    assert not _announcer(app).ringing
    assert ring.stops >= 1
    # with nothing ringing, "stop" is not the ring's any more (the media's, or the model's)
    after = await ask(app, "stop")
    assert after.model != "ringing"


async def test_stop_the_timer_and_german_stopp_silence_the_ring(
    tmp_path: Path,
) -> None:
    app = await build_app(no_model_settings(tmp_path, ARIA_ASSIST__LANGUAGES="de,en"))  # type: ignore[arg-type]
    try:
        ring = HeldRing()
        _announcer(app).ring = ring
        await _ring_a_timer(app, ring)
        assert (await ask(app, "Stopp")).model == "ringing"
        assert not _announcer(app).ringing
        await _ring_a_timer(app, ring)
        stopped = await ask(app, "stop the timer")  # HA's cancel, said to a ringing timer
        assert stopped.text == "Okay."
        assert not _announcer(app).ringing
    finally:
        await app.aclose()


async def test_the_kill_switch_silences_a_ringing_timer(app: App, ring: HeldRing) -> None:
    await _ring_a_timer(app, ring)
    await app.orchestrator.handle(StopEverything())
    assert not _announcer(app).ringing


@pytest.mark.slow
@pytest.mark.usefixtures("dunst")
async def test_a_timer_that_ends_shows_a_desktop_notification(tmp_path: Path) -> None:
    """Through the composed ARIA to a real notification service (dunst on a private bus)."""
    app = await build_app(no_model_settings(tmp_path))  # type: ignore[arg-type]
    try:
        _announcer(app).ring = HeldRing()
        async with watch_calls(NOTIFICATIONS, "Notify") as next_call:
            await ask(app, "set a pasta timer for 1 second")
            call = await next_call()
        _app_name, _replaces, _icon, summary, body, _actions, hints, _expire = call.body
        assert (summary, body) == ("Timer", "Your pasta timer is done.")
        assert hints["urgency"] == ("y", 2)  # a ringing timer's notice stays until dismissed
        await _announcer(app).silence()
    finally:
        await app.aclose()


# --- the real sound path ---------------------------------------------------------------------


@pytest.fixture
def pulse(tmp_path: Path) -> Iterator[PulseServer]:
    with pulse_server(tmp_path / "pulse") as server:
        yield server


def _chime_heard(pcm: bytes) -> bool:
    """The chime's two notes (880 Hz, 659 Hz) stand out of the recording's spectrum."""
    samples = pcm_to_int16(pcm).astype(np.float64)
    if len(samples) < PIPELINE_RATE_HZ // 2 or np.max(np.abs(samples)) < 500:
        return False
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    freqs = np.fft.rfftfreq(len(samples), 1 / PIPELINE_RATE_HZ)

    def band(hz: float) -> float:
        return float(spectrum[(freqs > hz - 15) & (freqs < hz + 15)].max())

    floor = float(np.median(spectrum[(freqs > 100) & (freqs < 4000)]))
    return band(880) > 50 * floor and band(659.25) > 20 * floor


@pytest.mark.slow
async def test_a_timer_rings_on_the_speaker_until_stop(tmp_path: Path, pulse: PulseServer) -> None:
    """The chime through the voice's output path (PortAudio -> PulseAudio), heard back."""
    app = await build_app(no_model_settings(tmp_path))  # type: ignore[arg-type]
    recorded: list[bytes] = []
    arrived = asyncio.Event()

    async def record() -> None:
        async for frame in MicrophoneSource("pulse").frames():
            recorded.append(frame)
            arrived.set()

    async def frames_until(done: object, timeout_s: float) -> None:
        async with asyncio.timeout(timeout_s):
            while not done():  # type: ignore[operator]
                arrived.clear()
                await arrived.wait()

    recorder = asyncio.create_task(record())
    try:
        await frames_until(lambda: len(recorded) >= 3, 10)  # the microphone is live
        start = len(recorded)
        async with app.orchestrator.bus.subscribe() as events:
            await ask(app, "set a timer for 1 second")
            async with asyncio.timeout(10):
                async for event in events:
                    if isinstance(event, TimerFinished):
                        break
        await frames_until(lambda: _chime_heard(b"".join(recorded[start:])), 15)
        assert _announcer(app).ringing
        assert (await ask(app, "stop")).model == "ringing"
        assert not _announcer(app).ringing
        # after a short tail (what the sound server still held), the room is quiet
        quiet_from = len(recorded) + 5
        await frames_until(lambda: len(recorded) >= quiet_from + 25, 10)  # 2 s more
        after = pcm_to_int16(b"".join(recorded[quiet_from:])).astype(np.float64)
        assert np.sqrt(np.mean(after**2)) < 100, "the ring went on after stop"
        assert _announcer(app).rings_played >= 1
    finally:
        recorder.cancel()
        await asyncio.gather(recorder, return_exceptions=True)
        await app.aclose()
