"""Polyphase resampling of audio with numpy alone (what ``scipy.signal.resample_poly`` does).

Audio at another rate than the pipeline's 16 kHz (a Piper clip at 22,050 Hz, a 48 kHz
recording) is converted here. SciPy's ``resample_poly`` gave the same samples, but importing
``scipy.signal`` costs about a second of CPU (it imports most of SciPy), which was half of
``aria transcribe`` (ARCHITECTURE.md: start-up cost). This module designs the same filter —
a linear-phase low-pass FIR from a Kaiser window (beta 5), ``20 * max(up, down) + 1`` taps,
cut off at the lower of the two Nyquist rates — and applies it the same way (zero-stuffed by
``up``, filtered, kept every ``down``-th sample, delay removed), so the output matches SciPy's
to float32 rounding (tests compare them).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["resample_poly"]

_KAISER_BETA = 5.0
"""SciPy's default window for ``resample_poly``: ``("kaiser", 5.0)``."""
_BLOCK_OUTPUTS = 16_384
"""Output samples computed at once: bounds the memory of the tap matrix on long files."""


def _lowpass(up: int, down: int) -> npt.NDArray[np.float64]:
    """The anti-aliasing filter of ``up``/``down`` resampling, scaled by ``up``.

    A windowed sinc (Kaiser, beta 5) with ``10 * max(up, down)`` taps either side of its
    centre, cut off at ``1 / max(up, down)`` of Nyquist and normalised to unit gain at DC,
    as ``scipy.signal.firwin`` designs it for ``resample_poly``.
    """
    import numpy as np

    max_rate = max(up, down)
    cutoff = 1.0 / max_rate
    half_len = 10 * max_rate
    numtaps = 2 * half_len + 1
    offsets = np.arange(numtaps, dtype=np.float64) - 0.5 * (numtaps - 1)
    taps = cutoff * np.sinc(cutoff * offsets)
    taps *= np.kaiser(numtaps, _KAISER_BETA)
    taps /= np.sum(taps)
    return taps * up


def resample_poly(samples: npt.NDArray[np.float32], up: int, down: int) -> npt.NDArray[np.float32]:
    """``samples`` resampled by ``up / down`` (mono float32; the rates' ratio in lowest terms).

    Output sample ``j`` is the filtered, zero-stuffed input at position ``(j + delay) * down``
    with the filter's delay removed, exactly SciPy's ``resample_poly`` with its defaults
    (constant zero padding outside the signal). Each output sample uses one polyphase branch
    of the filter (about 20 taps), so the work is proportional to the output length.
    """
    import numpy as np

    g = math.gcd(up, down)
    up, down = up // g, down // g
    x = np.asarray(samples, dtype=np.float32)
    if up == down == 1:
        return x.copy()
    n_in = len(x)
    n_out = -(-n_in * up // down)
    half_len = 10 * max(up, down)
    # SciPy pads the filter in front so that the kept outputs start on a multiple of down.
    n_pre_pad = down - half_len % down
    n_pre_remove = (half_len + n_pre_pad) // down
    taps = np.concatenate([np.zeros(n_pre_pad), _lowpass(up, down)]).astype(np.float32)
    per_phase = -(-len(taps) // up)
    # phases[p, m] = taps[p + m * up]: the taps that meet input samples for phase p.
    flat = np.zeros(per_phase * up, dtype=np.float32)
    flat[: len(taps)] = taps
    phases = flat.reshape(per_phase, up).T
    # Input padded with zeros so every tap has a sample (SciPy's constant zero padding).
    padded = np.concatenate(
        [np.zeros(per_phase - 1, dtype=np.float32), x, np.zeros(per_phase, dtype=np.float32)]
    )
    out = np.empty(n_out, dtype=np.float32)
    back = np.arange(per_phase)
    for start in range(0, n_out, _BLOCK_OUTPUTS):
        positions = (np.arange(start, min(n_out, start + _BLOCK_OUTPUTS)) + n_pre_remove) * down
        newest = positions // up + per_phase - 1  # index in ``padded`` of tap 0's sample
        valid = np.minimum(newest, len(padded) - 1)
        window = padded[valid[:, None] - back[None, :]]
        window[newest >= len(padded)] = 0.0
        out[start : start + len(positions)] = np.einsum("ij,ij->i", window, phases[positions % up])
    return out
