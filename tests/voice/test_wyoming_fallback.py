"""The GPU machine's speech-to-text through a real wyoming-faster-whisper server (the packaged
model, started here), and this computer's Whisper hearing the commands while that server is
off: the probe doctor and the wizard use, the fallback, and the settings that build it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from aria_desktop.adapters.voice.audio import read_wav
from aria_desktop.adapters.voice.whisper import WhisperSTT
from aria_desktop.adapters.voice.wyoming_client import WyomingSTT, speech_to_text_models
from aria_desktop.compose.voice import build_stt, local_whisper
from aria_desktop.core.voice.stt_fallback import FallbackSTT
from aria_desktop.doctor.speech_server import check_speech_server
from aria_desktop.domain.errors import WyomingError
from aria_desktop.settings import (
    LLMSettings,
    OllamaSettings,
    Settings,
    SttSettings,
    VoiceSettings,
)
from tests.core.voice_rig import ManualClock
from tests.fakes import closed_port
from tests.voice.conftest import SpeechMaker
from tests.voice.wyoming_servers import free_port, whisper_server_process


def wyoming_settings(**stt: object) -> Settings:
    voice = dataclasses.replace(VoiceSettings(), stt=SttSettings(engine="wyoming", **stt))  # type: ignore[arg-type]
    return dataclasses.replace(Settings(), voice=voice)


def test_the_settings_put_this_computers_whisper_behind_the_server() -> None:
    stt = build_stt(wyoming_settings(wyoming_uri="tcp://gpu.lan:10300"))
    assert isinstance(stt, FallbackSTT)
    assert isinstance(stt.primary, WyomingSTT)
    assert stt.primary.uri == "tcp://gpu.lan:10300"
    assert isinstance(stt.fallback, WhisperSTT)
    # the wake phrase check and the names list use the local model behind the server
    assert local_whisper(stt) is stt.fallback
    alone = build_stt(wyoming_settings(wyoming_uri="tcp://gpu.lan:10300", fallback=False))
    assert isinstance(alone, WyomingSTT)
    assert local_whisper(alone) is None


@pytest.fixture(scope="module")
def whisper_uri(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from whisper_server_process(tmp_path_factory.mktemp("wyoming-whisper"))


@pytest.mark.slow
async def test_a_real_server_names_its_speech_models_and_other_servers_are_told_apart(
    whisper_uri: str, wake_server: str
) -> None:
    models = await speech_to_text_models(whisper_uri)
    assert len(models) == 1
    assert models[0].endswith("model")
    with pytest.raises(WyomingError, match="does not recognise speech"):
        await speech_to_text_models(wake_server)
    with closed_port() as port, pytest.raises(WyomingError, match="cannot connect"):
        await speech_to_text_models(f"tcp://127.0.0.1:{port}", timeout_s=1.0)


@pytest.mark.slow
async def test_doctor_offers_a_speech_server_that_answers(whisper_uri: str) -> None:
    settings = dataclasses.replace(
        Settings(),
        voice=dataclasses.replace(VoiceSettings(), stt=SttSettings(wyoming_uri=whisper_uri)),
    )
    (result,) = await check_speech_server(settings)
    assert result.status == "WARN"
    assert "this computer (tiny.en)" in result.detail
    assert f"answers at {whisper_uri}" in result.detail
    assert f"voice.stt.wyoming_uri {whisper_uri}" in result.fix
    assert "voice.stt.engine wyoming" in result.fix


@pytest.mark.slow
async def test_doctor_says_the_configured_server_answers_and_what_hears_when_it_is_off(
    whisper_uri: str,
) -> None:
    (result,) = await check_speech_server(wyoming_settings(wyoming_uri=whisper_uri))
    assert result.status == "OK"
    assert f"{whisper_uri} answers" in result.detail
    assert "this computer's tiny.en hears while it is off" in result.detail
    with closed_port() as port:
        uri = f"tcp://127.0.0.1:{port}"
        (down,) = await check_speech_server(wyoming_settings(wyoming_uri=uri))
    assert down.status == "WARN"
    assert "cannot connect" in down.detail
    assert "tiny.en hears commands meanwhile" in down.detail
    assert "wyoming-faster-whisper --uri tcp://0.0.0.0:10300 --model large-v3-turbo" in down.fix


async def test_doctor_says_how_to_start_the_server_on_the_gpu_machine() -> None:
    with closed_port() as port:
        llm = dataclasses.replace(
            LLMSettings(), ollama=OllamaSettings(url=f"http://127.0.0.1:{port}")
        )
        settings = dataclasses.replace(Settings(), llm=llm)
        (here,) = await check_speech_server(settings)
    assert (here.status, here.detail) == ("OK", "speech-to-text on this computer (tiny.en)")
    gpu = dataclasses.replace(LLMSettings(), ollama=OllamaSettings(url="http://198.51.100.7:11434"))
    (result,) = await check_speech_server(dataclasses.replace(Settings(), llm=gpu))
    assert result.status == "OK"
    assert "none answers on 198.51.100.7" in result.detail
    assert "pip install wyoming-faster-whisper" in result.detail


@pytest.mark.slow
async def test_commands_are_heard_on_this_computer_while_the_server_is_off(
    tmp_path: Path, say_piper: SpeechMaker, whisper: WhisperSTT
) -> None:
    clip = read_wav(say_piper("Set a timer for five minutes.", steady=True))
    port = free_port()
    server = whisper_server_process(tmp_path, port)
    uri = next(server)
    clock = ManualClock()
    stt = FallbackSTT(WyomingSTT(uri), whisper, clock=clock.monotonic)
    try:
        await stt.load()
        remote = await stt.transcribe(clip)
        assert remote.engine == f"wyoming {uri}"
        assert "timer" in remote.text.lower(), remote.text

        server.close()  # the GPU machine goes to sleep
        here = await stt.transcribe(clip)
        assert here.engine == whisper.name
        assert "timer" in here.text.lower(), here.text
        assert stt.using_fallback
        assert stt.last_problem is not None
        assert "cannot connect" in stt.last_problem.message

        server = whisper_server_process(tmp_path, port)  # it wakes up again
        next(server)
        assert (await stt.transcribe(clip)).engine == whisper.name  # still resting
        clock.now += 31
        back = await stt.transcribe(clip)
        assert back.engine == f"wyoming {uri}"
        assert not stt.using_fallback
    finally:
        server.close()
        await stt.primary.aclose()  # the session's Whisper stays open for other tests


@pytest.mark.slow
async def test_the_accuracy_bench_hears_through_a_real_server_beside_this_computer(
    whisper_uri: str, say_piper: SpeechMaker, capsys: pytest.CaptureFixture[str]
) -> None:
    from aria_desktop.bench.voice_accuracy import _measure_remote, _print_remote, _Tally

    said = "Set a timer for five minutes."
    clip = read_wav(say_piper(said, steady=True))
    pcm = clip.pcm if clip.sample_rate_hz == 16_000 else b""
    assert pcm, "the spoken clip is 16 kHz mono"
    remote = await _measure_remote(whisper_uri, {"piper": [pcm]}, [said])
    assert remote.wer(["piper"], "wyoming") <= 0.2
    local = _Tally()
    local.add("piper", "ARIA", said, said, 0.2)
    _print_remote(whisper_uri, remote, local, ["piper"])
    out = capsys.readouterr().out
    assert f"through Wyoming {whisper_uri} (its own model; no local fallback)" in out
    assert "median time per command" in out
