"""``voice.resample`` gives SciPy's ``resample_poly`` samples without importing SciPy."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from aria_desktop.adapters.voice.audio import resample_pcm
from aria_desktop.adapters.voice.resample import resample_poly

RATE_PAIRS = [
    (22_050, 16_000),  # Piper's voice -> the pipeline
    (44_100, 16_000),
    (48_000, 16_000),
    (24_000, 16_000),
    (11_025, 16_000),
    (8_000, 16_000),
    (16_000, 22_050),
    (16_000, 48_000),
]


def _signal(rate_hz: int, seconds: float = 1.5) -> np.ndarray:
    """A speech-like test signal: two swept tones under noise, at speech loudness."""
    rng = np.random.default_rng(rate_hz)
    t = np.arange(int(rate_hz * seconds)) / rate_hz
    tones = np.sin(2 * np.pi * (150 + 400 * t) * t) + 0.5 * np.sin(2 * np.pi * 3_100 * t)
    return (6_000 * tones + 1_500 * rng.standard_normal(len(t))).astype(np.float32)


@pytest.mark.parametrize(("from_hz", "to_hz"), RATE_PAIRS)
def test_the_samples_are_scipys_to_float32_rounding(from_hz: int, to_hz: int) -> None:
    scipy_signal = pytest.importorskip("scipy.signal")
    x = _signal(from_hz)
    g = np.gcd(from_hz, to_hz)
    expected = scipy_signal.resample_poly(x, to_hz // g, from_hz // g).astype(np.float32)
    got = resample_poly(x, to_hz, from_hz)
    assert got.dtype == np.float32
    assert got.shape == expected.shape
    # float32 sums in another order: differences far below one 16-bit step
    assert np.max(np.abs(got - expected)) < 0.02
    as_pcm = [np.clip(np.round(a), -32768, 32767).astype(np.int16) for a in (got, expected)]
    steps = np.abs(as_pcm[0].astype(np.int32) - as_pcm[1])
    assert steps.max() <= 1
    assert np.count_nonzero(steps) <= len(steps) // 1_000  # at most 0.1 % of samples


@pytest.mark.parametrize("length", [0, 1, 2, 7, 441])
def test_short_inputs_have_scipys_length(length: int) -> None:
    scipy_signal = pytest.importorskip("scipy.signal")
    x = _signal(22_050)[:length]
    expected = scipy_signal.resample_poly(x, 320, 441)
    got = resample_poly(x, 16_000, 22_050)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, atol=0.02)


def test_equal_rates_give_a_copy() -> None:
    x = _signal(16_000)
    got = resample_poly(x, 3, 3)
    np.testing.assert_array_equal(got, x)
    assert got is not x


def test_long_audio_is_filtered_in_blocks_without_seams() -> None:
    x = _signal(22_050, seconds=3.0)  # 48,000 outputs: three blocks
    whole = resample_poly(x, 16_000, 22_050)
    scipy_signal = pytest.importorskip("scipy.signal")
    expected = scipy_signal.resample_poly(x, 320, 441)
    np.testing.assert_allclose(whole, expected, atol=0.02)


def test_resampling_pcm_does_not_import_scipy() -> None:
    code = (
        "import sys\n"
        "from aria_desktop.adapters.voice.audio import resample_pcm\n"
        "resample_pcm(b'\\x01\\x00' * 22050, 22050, 16000)\n"
        "print('scipy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_stereo_pcm_is_averaged_then_resampled() -> None:
    mono = np.round(_signal(48_000)).astype("<i2")
    stereo = np.repeat(mono, 2).tobytes()
    assert resample_pcm(stereo, 48_000, 16_000, channels=2) == resample_pcm(
        mono.tobytes(), 48_000, 16_000
    )
