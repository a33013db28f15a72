"""``aria bench voice --accuracy``: word error rate per voice, ARIA beside Whisper's defaults.

Spoken commands (names, numbers, times, dates) are made at run time in voices ARIA's tests
never use (``voice_corpus.py``: espeak-ng accents and speeds, Piper at two speeds, two of them
in 10 dB pink noise). Each clip is transcribed, for tiny.en and the multilingual base model,
by:

- ``ARIA``: ``WhisperSTT`` as configured by default (beam 5, full window, fallback);
- ``+names``: the same with the user's names as vocabulary (as memory would supply them);
- ``greedy``: ARIA with ``beam_size`` 1 (what accuracy costs in time);
- ``fitted``: ARIA with ``fitted_window`` (the encoder window fitted to the command, full
  window where faster-whisper does not trust it), and how many transcripts it changes — the
  default only if it ever changes none;
- ``defaults``: faster-whisper's ``model.transcribe(audio)`` with its default arguments.

With ``--stt-uri tcp://host:10300`` the same clips also go to that Wyoming speech-to-text
server (the GPU machine's Whisper; no local fallback, so its misses count), printed beside
ARIA's local figures with the time per command.

WER is (substitutions + deletions + insertions) / words, numbers compared as said
(``core/voice/wer.py``). Then the same commands said after the wake word, cut and transcribed as
the pipeline does (``voice_after_wake.py``), and the wake word part (``voice_wake.py``).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aria_desktop.bench.voice_corpus import COMMANDS, USER_NAMES, VOICES, synthesize
from aria_desktop.core.voice.wer import error_pairs, word_errors
from aria_desktop.domain.audio import AudioClip

__all__ = ["run_voice_accuracy"]

_DECODERS = ("ARIA", "+names", "greedy", "fitted", "defaults")
_MODELS = ("tiny.en", "base")
_UNHEARD_SHARE = 0.25
"""A clip whose best transcript has this share of its words wrong counts as unintelligible."""


class _Tally:
    """Word errors, words and seconds per (voice, decoder)."""

    def __init__(self) -> None:
        self.errors: dict[tuple[str, str], int] = defaultdict(int)
        self.words: dict[tuple[str, str], int] = defaultdict(int)
        self.seconds: dict[str, list[float]] = defaultdict(list)
        self.misheard: dict[str, list[tuple[str, str]]] = defaultdict(list)
        self.pairs: dict[tuple[str, str], Counter[tuple[str, str]]] = defaultdict(Counter)
        self.by_clip: dict[tuple[str, str], dict[str, tuple[int, int]]] = defaultdict(dict)
        """(voice, reference) -> decoder -> (errors, words)."""
        self.fitted_changed = 0
        self.clips = 0

    def add(self, voice: str, decoder: str, reference: str, text: str, seconds: float) -> None:
        errors, words = word_errors(reference, text)
        self.errors[voice, decoder] += errors
        self.words[voice, decoder] += words
        self.seconds[decoder].append(seconds)
        self.by_clip[voice, reference][decoder] = (errors, words)
        if errors:
            self.misheard[decoder].append((reference, text))
            self.pairs[voice, decoder].update(error_pairs(reference, text))

    def wer(self, voices: Sequence[str], decoder: str) -> float:
        words = sum(self.words[v, decoder] for v in voices)
        return sum(self.errors[v, decoder] for v in voices) / max(1, words)


def _plain_model(model: str, cache_dir: Path) -> Any:
    """faster-whisper's ``WhisperModel`` for ``model``, loaded the way ARIA loads it."""
    from faster_whisper import WhisperModel

    from aria_desktop.adapters.voice.whisper_models import whisper_model_path

    path = whisper_model_path(model, cache_dir=cache_dir)
    return WhisperModel(
        str(path), device="cpu", compute_type="int8", cpu_threads=2, local_files_only=True
    )


def _defaults(model: Any, pcm: bytes) -> str:
    from aria_desktop.adapters.voice.audio import pcm_to_float32

    segments, _info = model.transcribe(pcm_to_float32(pcm))
    return " ".join(segment.text.strip() for segment in segments).strip()


async def _measure_model(
    model: str, clips: dict[str, list[bytes]], references: Sequence[str], cache_dir: Path
) -> _Tally:
    import asyncio

    from aria_desktop.adapters.voice.whisper import WhisperSTT

    aria = WhisperSTT(model, cache_dir=cache_dir)
    named = WhisperSTT(model, cache_dir=cache_dir, vocabulary=USER_NAMES)
    greedy = WhisperSTT(model, cache_dir=cache_dir, beam_size=1)
    fitted = WhisperSTT(model, cache_dir=cache_dir, fitted_window=True)
    engines = (("ARIA", aria), ("+names", named), ("greedy", greedy), ("fitted", fitted))
    plain = await asyncio.to_thread(_plain_model, model, cache_dir)
    tally = _Tally()
    for voice, pcms in clips.items():
        for reference, pcm in zip(references, pcms, strict=True):
            texts = {}
            for decoder, stt in engines:
                t = await stt.transcribe(AudioClip(pcm=pcm))
                tally.add(voice, decoder, reference, t.text, t.latency_ms / 1000)
                texts[decoder] = t.text
            tally.clips += 1
            tally.fitted_changed += texts["fitted"] != texts["ARIA"]
            started = time.perf_counter()
            text = await asyncio.to_thread(_defaults, plain, pcm)
            tally.add(voice, "defaults", reference, text, time.perf_counter() - started)
    for _decoder, stt in engines:
        await stt.aclose()
    return tally


async def _measure_remote(
    uri: str, clips: dict[str, list[bytes]], references: Sequence[str]
) -> _Tally:
    """The clips through a Wyoming server (time per command includes the network)."""
    from aria_desktop.adapters.voice.wyoming_client import WyomingSTT

    stt = WyomingSTT(uri)
    await stt.load()
    tally = _Tally()
    for voice, pcms in clips.items():
        for reference, pcm in zip(references, pcms, strict=True):
            t = await stt.transcribe(AudioClip(pcm=pcm))
            tally.add(voice, "wyoming", reference, t.text, t.latency_ms / 1000)
            tally.clips += 1
    return tally


def _print_remote(uri: str, remote: _Tally, local: _Tally | None, voices: Sequence[str]) -> None:
    """The server's WER per voice beside this computer's (ARIA's tiny.en decoding)."""
    print(f"  through Wyoming {uri} (its own model; no local fallback):")
    print(f"  {'WER per voice':32} {'Wyoming':>10} {'here (ARIA)':>12}")
    clean = [v for v in voices if "pink" not in v]
    noisy = [v for v in voices if "pink" in v]
    for label, group in (
        *((voice, [voice]) for voice in voices),
        ("all clean voices", clean),
        ("in 10 dB pink noise", noisy),
    ):
        here = f"{local.wer(group, 'ARIA'):12.3f}" if local is not None else f"{'-':>12}"
        print(f"  {label:32} {remote.wer(group, 'wyoming'):10.3f} {here}")
    remote_ms = statistics.median(remote.seconds["wyoming"]) * 1000
    local_ms = statistics.median(local.seconds["ARIA"]) * 1000 if local is not None else 0.0
    print(f"  {'median time per command':32} {remote_ms:7.0f} ms {local_ms:9.0f} ms")


def _print_table(results: dict[str, _Tally], voices: Sequence[str], clips: int) -> None:
    header = "  ".join(f"{m + ' ' + d:>16}" for m in results for d in _DECODERS)
    print(f"  {'WER per voice':32} {header}")
    for voice in voices:
        row = "  ".join(f"{results[m].wer([voice], d):16.3f}" for m in results for d in _DECODERS)
        print(f"  {voice:32} {row}")
    clean = [v for v in voices if "pink" not in v]
    noisy = [v for v in voices if "pink" in v]
    for label, group in (("all clean voices", clean), ("in 10 dB pink noise", noisy)):
        row = "  ".join(f"{results[m].wer(group, d):16.3f}" for m in results for d in _DECODERS)
        print(f"  {label:32} {row}")
    row = "  ".join(
        f"{statistics.median(results[m].seconds[d]) * 1000:13.0f} ms"
        for m in results
        for d in _DECODERS
    )
    print(f"  {'median time per command':32} {row}")
    print(f"  ({clips} clips per model; ARIA must be <= defaults on every voice)")


def _print_error_pairs(results: dict[str, _Tally], voices: Sequence[str]) -> None:
    """The most frequent (said -> heard) word errors of ARIA per voice and model."""
    print("  top word errors per voice, ARIA (said -> heard; normalized, as scored):")
    for model, tally in results.items():
        for voice in voices:
            top = tally.pairs[voice, "ARIA"].most_common(4)
            shown = "; ".join(f"{said or '-'!r}->{heard or '-'!r} x{n}" for (said, heard), n in top)
            print(f"    {model} {voice}: {shown or 'none'}")


def _print_reference_check(results: dict[str, _Tally], voices: Sequence[str]) -> None:
    """Clips that every decoding of every model gets badly wrong: suspect reference audio.

    Nobody can listen to the generated clips in a benchmark run; a clip whose best
    transcript, over all models and decoders, still has a quarter of its words wrong is
    likely unintelligible (a robotic voice at speed, two words run together) or holds a word
    none of the models knows ("Inkscape" -> "in escape"), not a mistake only ARIA makes.
    ARIA's WER on the other clips is printed beside the full figure, never instead of it.
    """
    clips = {clip for tally in results.values() for clip in tally.by_clip}
    unheard = {
        clip
        for clip in clips
        if min(e / max(1, n) for t in results.values() for e, n in t.by_clip[clip].values())
        >= _UNHEARD_SHARE
    }
    print(
        f"  reference check: {len(unheard)} of {len(clips)} clips misheard by every decoding of"
        f" every model (best >= {_UNHEARD_SHARE:.0%} words wrong: suspect audio, or a word no"
        " model knows):"
    )
    for voice in voices:
        said = [ref for v, ref in sorted(unheard) if v == voice]
        print(f"    {voice}: {len(said)}" + (f" ({' | '.join(said[:3])})" if said else ""))
    clean = {clip for clip in clips if "pink" not in clip[0] and clip not in unheard}
    for model, tally in results.items():
        errors = sum(tally.by_clip[clip]["ARIA"][0] for clip in clean)
        words = sum(tally.by_clip[clip]["ARIA"][1] for clip in clean)
        print(
            f"    {model} ARIA clean WER without them ({len(clean)} clips): "
            f"{errors / max(1, words):.3f}"
        )


async def run_voice_accuracy(
    *, commands: int, models: Sequence[str] = _MODELS, stt_uri: str = ""
) -> None:
    """Measure and print the accuracy figures (also through ``stt_uri``), then the wake word's."""
    from aria_desktop.bench.voice_after_wake import run_after_wake_accuracy
    from aria_desktop.bench.voice_wake import run_wake_accuracy
    from aria_desktop.bench.voice_wake_voices import run_wake_voices
    from aria_desktop.domain.errors import AriaError

    references = COMMANDS[: max(1, commands)]
    piper: dict[float, Any] = {}
    clips = {v.label: await synthesize(references, v, piper=piper, seed=7) for v in VOICES}
    count = sum(len(c) for c in clips.values())
    results: dict[str, _Tally] = {}
    with tempfile.TemporaryDirectory(prefix="aria-bench-accuracy-") as tmp:
        for model in models:
            try:
                results[model] = await _measure_model(model, clips, references, Path(tmp))
            except AriaError as exc:
                print(f"  {model}: not measured: {exc.message}")
    print(f"aria bench voice --accuracy — {len(references)} commands x {len(VOICES)} voices")
    if results:
        _print_table(results, [v.label for v in VOICES], count)
        for model, tally in results.items():
            print(
                f"  {model} fitted window: {tally.fitted_changed} of {tally.clips} transcripts"
                " differ from ARIA's full-window ones"
            )
            for reference, text in tally.misheard["ARIA"][:6]:
                print(f"    {model} ARIA misheard: {reference!r} -> {text!r}")
        _print_error_pairs(results, [v.label for v in VOICES])
        _print_reference_check(results, [v.label for v in VOICES])
    if stt_uri:
        try:
            remote = await _measure_remote(stt_uri, clips, references)
        except AriaError as exc:
            print(f"  Wyoming {stt_uri}: not measured: {exc.message} {exc.hint}")
        else:
            _print_remote(stt_uri, remote, results.get("tiny.en"), [v.label for v in VOICES])
    await run_after_wake_accuracy(references, piper)
    await run_wake_accuracy(piper)
    await run_wake_voices()
