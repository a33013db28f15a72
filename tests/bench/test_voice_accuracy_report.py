"""The accuracy benchmark's report: top word errors per voice and the reference check."""

from __future__ import annotations

import pytest

from aria_desktop.bench.voice_accuracy import _print_error_pairs, _print_reference_check, _Tally

_VOICES = ("robot", "person")
_SAID = ("Text Dmitri that I am on my way.", "Play some jazz on Spotify.")


def _tally(heard: dict[tuple[str, str], str]) -> _Tally:
    tally = _Tally()
    for voice in _VOICES:
        for said in _SAID:
            for decoder in ("ARIA", "defaults"):
                tally.add(voice, decoder, said, heard.get((voice, said), said), 0.1)
    return tally


def test_a_clip_every_model_mishears_is_listed_and_left_out_beside_the_full_figure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    tiny = _tally({("robot", _SAID[0]): "Next let me trim it, I'm on my way."})
    base = _tally({("robot", _SAID[0]): "Text the meat tree that I am on my way."})
    _print_reference_check({"tiny.en": tiny, "base": base}, _VOICES)
    out = capsys.readouterr().out
    assert "1 of 4 clips misheard by every decoding of every model" in out
    assert "robot: 1 (Text Dmitri that I am on my way.)" in out
    assert "person: 0" in out
    assert "tiny.en ARIA clean WER without them (3 clips): 0.000" in out


def test_one_decoding_that_hears_a_clip_clears_it(capsys: pytest.CaptureFixture[str]) -> None:
    tiny = _tally({("robot", _SAID[0]): "Next let me trim it, I'm on my way."})
    _print_reference_check({"tiny.en": tiny, "base": _tally({})}, _VOICES)
    assert "0 of 4 clips misheard" in capsys.readouterr().out


def test_the_most_frequent_errors_are_shown_per_voice(capsys: pytest.CaptureFixture[str]) -> None:
    tally = _tally({("person", _SAID[1]): "Play some jam on Spotify."})
    _print_error_pairs({"tiny.en": tally}, _VOICES)
    out = capsys.readouterr().out
    assert "tiny.en person: 'jazz'->'jam' x1" in out
    assert "tiny.en robot: none" in out
