"""``aria say``, ``aria transcribe``, ``aria listen --pcm`` and ``aria voice devices`` through
the real entry point."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from aria_desktop.adapters.voice.audio import read_wav
from aria_desktop.adapters.voice.whisper import WhisperSTT
from aria_desktop.cli import main
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text
from tests.voice.conftest import SpeechMaker, silence
from tests.voice.wer import normalize

# Outside the fast loop: `aria` subprocesses loading the real voice models.
pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ARIA_CONFIG_DIR", "ARIA_DATA_DIR", "ARIA_STATE_DIR"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))


def test_say_to_a_wav_then_transcribe_it(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "hello.wav"
    assert main(["say", "Good morning. The coffee is ready.", "--out", str(out)]) == 0
    clip = read_wav(out)
    assert clip.sample_rate_hz == 22_050
    assert 1.5 < clip.duration_s < 6
    capfd.readouterr()
    assert main(["transcribe", str(out), "--json"]) == 0
    result = json.loads(capfd.readouterr().out)
    assert "coffee is ready" in result["text"].lower()
    assert result["engine"] == "faster-whisper tiny.en"


def test_bad_wav_and_no_speaker_are_plain_errors(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    bogus = tmp_path / "x.wav"
    bogus.write_bytes(b"not audio")
    assert main(["transcribe", str(bogus)]) == 1
    assert "is not a WAV file" in capfd.readouterr().err
    # this machine has no sound card: speaking aloud fails with a hint, no traceback
    assert main(["say", "hello"]) == 1
    err = capfd.readouterr().err
    assert "Error: There is no speaker" in err
    assert "Traceback" not in err


def test_voice_devices_without_a_sound_card(capfd: pytest.CaptureFixture[str]) -> None:
    assert main(["voice", "devices", "--json"]) == 0
    assert isinstance(json.loads(capfd.readouterr().out), list)


# --- aria listen --pcm: raw audio on a pipe, through the real entry point ----------------


@pytest.fixture
def aria_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARIA_", "ANTHROPIC_"))}
    env.update(
        ARIA_CONFIG_DIR=str(tmp_path / "config"),
        ARIA_DATA_DIR=str(tmp_path / "data"),
        ARIA_STATE_DIR=str(tmp_path / "state"),
        ARIA_RUNTIME_DIR=str(tmp_path / "run"),
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
    )
    return env


def aria(env: dict[str, str], *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "aria_desktop", *args],
        env=env,
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
    )
    out = subprocess.CompletedProcess(
        result.args, result.returncode, result.stdout.decode(), result.stderr.decode()
    )
    assert "Traceback" not in out.stderr, out.stderr
    return out


@pytest.mark.slow
async def test_listen_takes_a_voice_turn_from_raw_pcm_on_stdin(
    aria_env: dict[str, str], say_piper: SpeechMaker, whisper: WhisperSTT, tmp_path: Path
) -> None:
    # Steady speech: the check is the CLI's wiring, not how one random Piper draw is heard
    # (one made tiny.en write "the weather light today").
    wav = say_piper("Hey Jarvis.", "What is the weather like today?", pause_s=0.4, steady=True)
    pcm = read_wav(wav).pcm
    reply = "It is sunny and warm today."
    out = tmp_path / "reply.wav"
    with FakeOllama() as ollama:
        ollama.script("/api/chat", ollama_text(reply, chunks=4))
        aria_env.update(ARIA_LLM__OLLAMA__URL=ollama.url, ARIA_LLM__OLLAMA__MODEL="llama3.2")
        result = await asyncio.to_thread(
            aria, aria_env, "listen", "--pcm", "-", "--out", str(out), stdin=pcm + silence(1.5)
        )
        sent = ollama.requests[-1].json()["messages"][-1]["content"]
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == reply
    stages = [
        "waiting for the wake word (hey_jarvis)",
        "wake word hey_jarvis heard",
        "listening (wake)",
        "speech started",
        "command ended: silence",
        "heard '",
        "thinking",
        "speaking",
        "spoke 1 sentence(s): first audio after",
        "timings: end of speech -> transcript",
    ]
    lines = result.stderr.splitlines()
    positions = [next(i for i, line in enumerate(lines) if stage in line) for stage in stages]
    assert positions == sorted(positions), result.stderr
    heard = next(line for line in lines if "heard '" in line)
    assert "weather like today" in heard.lower()
    assert normalize(sent) == normalize("What is the weather like today?")
    spoken = await whisper.transcribe(read_wav(out))
    words = normalize(spoken.text)  # Piper varies its voice run to run: check the key words
    assert "sunny" in words, spoken.text
    assert "warm" in words, spoken.text


def test_listen_pcm_ends_cleanly_when_the_pipe_closes_without_a_command(
    aria_env: dict[str, str], tmp_path: Path
) -> None:
    # a FIFO fed by another program: 48 kHz stereo silence, then the writer closes it
    fifo = tmp_path / "mic.fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with fifo.open("wb") as pipe:
            pipe.write(b"\0" * (48_000 * 2 * 2))  # 1 s

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    result = aria(aria_env, "listen", "--pcm", str(fifo), "--rate", "48000", "--channels", "2")
    writer.join(timeout=10)
    assert result.returncode == 1
    assert "the audio ended without the wake word (use --no-wake" in result.stderr
    assert "timings:" not in result.stderr

    empty = aria(aria_env, "listen", "--pcm", "-")
    assert empty.returncode == 1
    assert "no audio arrived: stdin was closed before sending any" in empty.stderr

    missing = aria(aria_env, "listen", "--pcm", str(tmp_path / "nope.raw"))
    assert missing.returncode == 1
    assert f"Error: Cannot read {tmp_path / 'nope.raw'}: No such file or directory." in (
        missing.stderr
    )
    usage = aria(aria_env, "listen", "--rate", "48000")
    assert usage.returncode == 2
    assert "use them with --pcm" in usage.stderr
    assert "--pcm FILE" in aria(aria_env, "listen", "--help").stdout
