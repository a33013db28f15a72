"""``aria say``, ``aria transcribe`` and ``aria voice devices`` through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aria_desktop.cli import main
from aria_desktop.voice.audio import read_wav


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
    assert "is not a PCM WAV file" in capfd.readouterr().err
    # this machine has no sound card: speaking aloud fails with a hint, no traceback
    assert main(["say", "hello"]) == 1
    err = capfd.readouterr().err
    assert "Error: There is no speaker" in err
    assert "Traceback" not in err


def test_voice_devices_without_a_sound_card(capfd: pytest.CaptureFixture[str]) -> None:
    assert main(["voice", "devices", "--json"]) == 0
    assert isinstance(json.loads(capfd.readouterr().out), list)
