"""Voice over the API with the real models: ``aria daemon`` with voice enabled on a machine
without a sound card serves ``/speak`` (Piper) and ``/transcribe`` (Whisper), explains why
``/listen`` cannot work, and an ARIA without voice answers 503 with a hint."""

from __future__ import annotations

import io
import wave
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from aria_desktop.api.client.api_client import ApiClient
from aria_desktop.domain.audio import SpeechAudio, Transcript
from aria_desktop.domain.commands import PushToTalk, Speak, Transcribe
from aria_desktop.domain.errors import VoiceUnavailableError
from tests.api.conftest import Api
from tests.api.daemon_proc import DaemonProcess
from tests.fakes import FakeOllama
from tests.voice.conftest import SpeechMaker, say_espeak, speech_dir
from tests.voice.wer import word_errors

__all__ = ["say_espeak", "speech_dir"]  # fixtures shared with tests/voice

P = "/api/v1"


@pytest.fixture(scope="module")
def voice_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonProcess]:
    root = tmp_path_factory.mktemp("voice-daemon")
    with FakeOllama() as ollama:
        daemon = DaemonProcess(
            root,
            ollama.url,
            extra_env={"ARIA_VOICE__ENABLED": "true", "ARIA_VOICE__WAKE__ENABLED": "false"},
        ).start(timeout_s=60)
        try:
            yield daemon
        finally:
            daemon.stop()


def _client(daemon: DaemonProcess) -> httpx.Client:
    return httpx.Client(base_url=daemon.url, headers=daemon.headers(), timeout=120)


@pytest.mark.slow
def test_daemon_speaks_a_wav_that_whisper_transcribes_back(voice_daemon: DaemonProcess) -> None:
    text = "The library opens at nine in the morning."
    with _client(voice_daemon) as client:
        spoken = client.post(f"{P}/speak", json={"text": text})
        assert spoken.status_code == 200, spoken.text
        assert spoken.headers["content-type"] == "audio/wav"
        with wave.open(io.BytesIO(spoken.content)) as wav:
            assert (wav.getnchannels(), wav.getsampwidth()) == (1, 2)
            assert wav.getframerate() == 22_050  # the packaged Piper voice
            assert 1.0 < wav.getnframes() / wav.getframerate() < 8.0
        heard = client.post(
            f"{P}/transcribe", content=spoken.content, headers={"Content-Type": "audio/wav"}
        )
        assert heard.status_code == 200, heard.text
        errors, _words = word_errors(text, heard.json()["text"])
        assert errors <= 1, heard.json()
        assert heard.json()["audio_s"] == pytest.approx(wav.getnframes() / 22_050, abs=0.05)
        # Headless: voice exists but cannot listen, and says why.
        voice = next(c for c in client.get(f"{P}/capabilities").json() if c["name"] == "voice")
        assert voice["available"] is False
        assert voice["reason"]
    assert "Traceback" not in voice_daemon.output()


@pytest.mark.slow
async def test_transcribe_an_espeak_recording_and_refuse_what_cannot_work(
    voice_daemon: DaemonProcess, say_espeak: SpeechMaker
) -> None:
    recording = say_espeak("What is the weather like today").read_bytes()
    async with ApiClient(voice_daemon.url, voice_daemon.token) as client:
        transcript = await client.execute(Transcribe(wav=recording))
        assert isinstance(transcript, Transcript)
        errors, _ = word_errors("what is the weather like today", transcript.text)
        assert errors <= 2, transcript
        speech = await client.execute(Speak(text="Done.", play=False))
        assert isinstance(speech, SpeechAudio)
        assert speech.duration_s > 0.2
    with _client(voice_daemon) as client:
        wrong_type = client.post(
            f"{P}/transcribe", content=recording, headers={"Content-Type": "application/json"}
        )
        assert wrong_type.status_code == 415
        not_wav = client.post(
            f"{P}/transcribe", content=b"RIFF nonsense", headers={"Content-Type": "audio/wav"}
        )
        assert not_wav.status_code == 422
        assert not_wav.json()["error"]["code"] == "audio_format_invalid"
        german = client.post(  # tiny.en is English-only: refused, not heard as English
            f"{P}/transcribe",
            params={"language": "de"},
            content=recording,
            headers={"Content-Type": "audio/wav"},
        )
        assert german.status_code == 422, german.text
        assert german.json()["error"]["code"] == "stt_language_unsupported"
        assert "voice.stt.model" in german.json()["error"]["hint"]
        json_speak = client.post(
            f"{P}/speak", content=b"text=hi", headers={"Content-Type": "audio/wav"}
        )
        assert json_speak.status_code == 415  # only /transcribe takes audio
        listen = client.post(f"{P}/listen")  # no microphone on this machine
        assert listen.status_code == 503
        assert listen.json()["error"]["code"] == "voice_unavailable"
        assert listen.json()["error"]["hint"]
        played = client.post(f"{P}/speak", json={"text": "Hello there.", "play": True})
        assert played.status_code == 503  # no speaker either
        assert played.json()["error"]["code"] == "audio_device_unavailable"


async def test_voice_routes_answer_503_with_a_hint_when_voice_is_not_set_up(api: Api) -> None:
    for path, kwargs in (
        (f"{P}/speak", {"json": {"text": "hello"}}),
        (f"{P}/transcribe", {"content": b"RIFF", "headers": {"Content-Type": "audio/wav"}}),
        (f"{P}/listen", {}),
        (f"{P}/push-to-talk", {"json": {"action": "press"}}),
    ):
        response = await api.client.post(path, **kwargs)
        assert response.status_code == 503, (path, response.text)
        error = response.json()["error"]
        assert error["code"] == "voice_unavailable"
        assert "voice.enabled" in error["hint"]
    async with ApiClient(api.url, api.token) as client:
        with pytest.raises(VoiceUnavailableError):
            await client.execute(Speak(text="hello", play=False))
        with pytest.raises(VoiceUnavailableError):
            await client.execute(PushToTalk(action="press"))
    for body in ({"action": "hold"}, {}, {"action": "press", "extra": 1}, {"action": 1}):
        response = await api.client.post(f"{P}/push-to-talk", json=body)
        assert response.status_code == 422, (body, response.text)


async def test_a_wav_upload_is_held_to_the_body_cap_with_and_without_length(api: Api) -> None:
    big = b"RIFF" + bytes(2 * 1024 * 1024)

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(big), 65_536):
            yield big[start : start + 65_536]

    headers = {"Content-Type": "audio/wav"}
    sized = await api.client.post(f"{P}/transcribe", content=big, headers=headers)
    chunked = await api.client.post(f"{P}/transcribe", content=chunks(), headers=headers)
    assert (sized.status_code, chunked.status_code) == (413, 413)
