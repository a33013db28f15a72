"""Speech-to-text from the GPU machine while it answers, from this computer while it does not:
the same audio is heard either way, and a dead server is not waited for on every command."""

from __future__ import annotations

import pytest

from aria_desktop.core.voice.stt_fallback import FallbackSTT
from aria_desktop.domain.audio import AudioClip
from aria_desktop.domain.errors import SpeechRecognitionError, WyomingError
from tests.core.voice_rig import FakeStt, ManualClock

CLIP = AudioClip(pcm=b"\0\0" * 1600)


class LoadCountingStt(FakeStt):
    """A fake engine that counts its loads and can refuse to load."""

    def __init__(self, name: str, *, load_error: Exception | None = None) -> None:
        super().__init__()
        self.name = name
        self.loads = 0
        self.load_error = load_error

    async def load(self) -> None:
        self.loads += 1
        if self.load_error is not None:
            raise self.load_error


def engines() -> tuple[LoadCountingStt, LoadCountingStt, ManualClock, FallbackSTT]:
    remote, local, clock = LoadCountingStt("remote"), LoadCountingStt("local"), ManualClock()
    return remote, local, clock, FallbackSTT(remote, local, clock=clock.monotonic)


def down() -> WyomingError:
    return WyomingError("The Wyoming speech-to-text service: cannot connect.", hint="Start it.")


async def test_the_remote_engine_hears_while_it_answers() -> None:
    remote, local, _clock, stt = engines()
    await stt.load()
    remote.script = ["turn on the lights"]
    transcript = await stt.transcribe(CLIP, language="en", starts_with="hey jarvis")
    assert (transcript.text, transcript.engine) == ("turn on the lights", "remote")
    assert remote.starts == ["hey jarvis"]
    assert local.heard == []
    assert not stt.using_fallback


async def test_a_failed_server_hands_the_same_audio_to_this_computer() -> None:
    remote, local, _clock, stt = engines()
    await stt.load()
    remote.script = [down()]
    local.script = ["set a timer for five minutes"]
    transcript = await stt.transcribe(CLIP, starts_with="hey jarvis")
    assert (transcript.text, transcript.engine) == ("set a timer for five minutes", "local")
    assert local.heard == [CLIP]
    assert local.starts == ["hey jarvis"]
    assert stt.using_fallback
    assert stt.last_problem is not None
    assert "cannot connect" in stt.last_problem.message
    assert "while remote does not answer" in stt.name


async def test_a_failed_server_rests_then_is_tried_again() -> None:
    remote, local, clock, stt = engines()
    await stt.load()
    remote.script = [down(), "it is back"]
    local.script = ["first", "second"]
    assert (await stt.transcribe(CLIP)).text == "first"
    clock.now += 29
    assert (await stt.transcribe(CLIP)).text == "second"
    assert len(remote.heard) == 1  # resting: not asked again within 30 s
    clock.now += 2
    assert (await stt.transcribe(CLIP)).text == "it is back"
    assert not stt.using_fallback
    assert stt.last_problem is None


async def test_a_server_that_is_off_at_start_is_not_an_error() -> None:
    remote = LoadCountingStt("remote", load_error=down())
    local, clock = LoadCountingStt("local"), ManualClock()
    stt = FallbackSTT(remote, local, clock=clock.monotonic)
    await stt.load()
    assert stt.using_fallback
    assert local.loads == 1
    local.script = ["what time is it"]
    assert (await stt.transcribe(CLIP)).engine == "local"
    assert remote.heard == []


async def test_the_local_engine_loads_once_before_it_is_needed() -> None:
    remote, local, _clock, stt = engines()
    await stt.load()
    assert local.loads == 1
    remote.script = [down(), down()]
    local.script = ["one", "two"]
    await stt.transcribe(CLIP)
    await stt.transcribe(CLIP)
    assert local.loads == 1


async def test_with_neither_engine_loading_the_servers_problem_is_said() -> None:
    remote = LoadCountingStt("remote", load_error=down())
    local = LoadCountingStt("local", load_error=SpeechRecognitionError("No model.", hint="x"))
    stt = FallbackSTT(remote, local, clock=ManualClock().monotonic)
    with pytest.raises(WyomingError, match="cannot connect"):
        await stt.load()


async def test_a_local_engine_that_cannot_load_leaves_the_server_in_use() -> None:
    remote = LoadCountingStt("remote")
    local = LoadCountingStt("local", load_error=SpeechRecognitionError("No model.", hint="x"))
    stt = FallbackSTT(remote, local, clock=ManualClock().monotonic)
    await stt.load()
    remote.script = ["hello"]
    assert (await stt.transcribe(CLIP)).engine == "remote"
