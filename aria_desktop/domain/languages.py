"""The languages speech recognition knows, in a module of their own.

Settings validation checks ``voice.stt.language`` against them on every ``aria`` command;
``domain.audio`` (which re-exports them) also defines the audio dataclasses, and building those
is start-up time that a command without audio should not pay (ARCHITECTURE.md: start-up cost).
"""

from __future__ import annotations

__all__ = ["WHISPER_LANGUAGES"]

WHISPER_LANGUAGES = (
    "af", "am", "ar", "as", "az", "ba", "be", "bg", "bn", "bo", "br", "bs", "ca", "cs", "cy",
    "da", "de", "el", "en", "es", "et", "eu", "fa", "fi", "fo", "fr", "gl", "gu", "ha", "haw",
    "he", "hi", "hr", "ht", "hu", "hy", "id", "is", "it", "ja", "jw", "ka", "kk", "km", "kn",
    "ko", "la", "lb", "ln", "lo", "lt", "lv", "mg", "mi", "mk", "ml", "mn", "mr", "ms", "mt",
    "my", "ne", "nl", "nn", "no", "oc", "pa", "pl", "ps", "pt", "ro", "ru", "sa", "sd", "si",
    "sk", "sl", "sn", "so", "sq", "sr", "su", "sv", "sw", "ta", "te", "tg", "th", "tk", "tl",
    "tr", "tt", "uk", "ur", "uz", "vi", "yi", "yo", "zh", "yue",
)  # fmt: skip
"""Language codes Whisper knows (faster-whisper's list; a test keeps the two equal).

Kept here, stdlib-only, so settings validation and the GUI need not import faster-whisper.
"""
