"""A file that is not a 16-bit WAV is named for what it is, with what works and how to convert."""

from __future__ import annotations

import pytest

from aria_desktop.domain.audio import decode_wav
from aria_desktop.domain.errors import AudioFormatError


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"ID3\x04\x00\x00\x00\x00\x00\x00" + b"\x00" * 64, "is an MP3 file, not a WAV file"),
        (b"OggS" + b"\x00" * 64, "is an Ogg file"),
        (b"", "is empty"),
        (b"hello, not audio", "is not a WAV file"),
    ],
    ids=["mp3", "ogg", "empty", "text"],
)
def test_a_file_that_is_not_wav_says_what_it_is_and_how_to_convert(data: bytes, said: str) -> None:
    with pytest.raises(AudioFormatError) as raised:
        decode_wav(data, name="song.mp3")
    message = raised.value.message
    assert message.startswith(f"song.mp3 {said}")
    assert "()" not in message
    assert "16-bit" in message
    assert "WAV" in raised.value.hint
    assert "ffmpeg" in raised.value.hint
