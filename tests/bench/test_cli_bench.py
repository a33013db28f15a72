"""``aria bench cli``: the suite runs every command for real and prints one row per command
(behaviour only: the figures themselves are the benchmark's business, never asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aria_desktop.bench.cli import (
    CLIP_S,
    CommandTiming,
    format_rows,
    make_speech_clip,
    run_cli_bench,
)
from aria_desktop.domain.audio import decode_wav

_LABELS = (
    "python -c pass",
    "aria --help",
    f"aria transcribe ({CLIP_S:g} s clip)",
    "aria memory search (no owner)",
    "aria memory search (through owner)",
)


def test_rows_show_median_target_margin_and_verdict() -> None:
    rows = [
        CommandTiming(label="python -c pass", median_s=0.02),
        CommandTiming(label="aria --help", median_s=0.25, cpu_s=0.2, target_s=0.3),
        CommandTiming(label="aria memory search (no owner)", median_s=0.9, target_s=0.8),
        CommandTiming(label="aria transcribe (2 s clip)", median_s=None, note="no voice"),
    ]
    lines = format_rows(rows, runs=3)
    assert "3 run(s)" in lines[0]
    body = {line.split("  ")[1].strip(): line for line in lines[2:]}
    assert "+" not in body["python -c pass"]
    assert "<= 0.3 s" in body["aria --help"]
    assert "+0.230 s" in body["aria --help"]
    assert " 0.20 s" in body["aria --help"]  # CPU time
    assert body["aria --help"].endswith("meets target")
    assert body["aria memory search (no owner)"].endswith("OVER target")
    assert body["aria transcribe (2 s clip)"].endswith("skipped: no voice")


@pytest.mark.slow
async def test_speech_clip_lasts_exactly_the_asked_length(tmp_path: Path) -> None:
    clip = tmp_path / "clip.wav"
    voice = await make_speech_clip(clip, seconds=1.5)
    audio = decode_wav(clip.read_bytes())
    assert voice in {"Piper", "espeak-ng"}
    assert audio.channels == 1
    assert len(audio.pcm) == round(1.5 * audio.sample_rate_hz) * 2
    assert any(audio.pcm)  # speech, not only the silence it was padded with


@pytest.mark.slow
async def test_suite_times_every_command_and_prints_its_row(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = await run_cli_bench(runs=1)
    assert [row.label for row in rows] == list(_LABELS)
    assert all(row.median_s is not None and row.median_s > 0 for row in rows)
    assert all(row.cpu_s is not None and row.cpu_s > 0 for row in rows)
    out = capsys.readouterr().out.splitlines()
    assert "1 run(s)" in out[0]
    for label in _LABELS:
        assert any(line.strip().startswith(label) for line in out), label
