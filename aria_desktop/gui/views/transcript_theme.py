"""The chat transcript's colours on a light and a dark desktop (``TranscriptView`` picks one).

Apart from the view so the colours of cards, notices and errors are read and changed in one
place.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DARK", "LIGHT", "TranscriptTheme"]


@dataclass(frozen=True)
class TranscriptTheme:
    """The transcript's colours on a light or a dark desktop (picked from the palette).

    A reply's Markdown takes the palette's text colour, so the cards under it follow the
    palette's lightness: light cards with dark text, or dark cards with light text.
    """

    text: str
    muted: str
    link: str
    you: str
    aria: str
    user_bg: str
    aria_bg: str
    aria_border: str
    card_bg: str
    card_borders: tuple[tuple[str, str], ...]
    thinking_border: str
    detail: str
    note: str
    error_bg: str
    error_border: str
    error_text: str
    error_hint: str
    notice_bg: str
    notice_border: str
    notice_text: str
    code_bg: str

    def card_border(self, status: str) -> str:
        """A tool card's border: green done, red failed, amber not allowed, grey otherwise."""
        return dict(self.card_borders).get(status, dict(self.card_borders)[""])

    def style(self) -> str:
        """The document's style sheet (code and links)."""
        return (
            f"code {{ background-color: {self.code_bg}; font-family: monospace; }}\n"
            f"pre {{ background-color: {self.code_bg}; font-family: monospace; }}\n"
            f"a {{ color: {self.link}; }}\n"
        )


LIGHT = TranscriptTheme(
    text="#1f2328",
    muted="#6b7280",
    link="#2457c5",
    you="#2457c5",
    aria="#53309e",
    user_bg="#e9f0fd",
    aria_bg="#ffffff",
    aria_border="#dde1e7",
    card_bg="#f4f5f7",
    card_borders=(("ok", "#9fc9a8"), ("error", "#e0a3a3"), ("denied", "#e6c07b"), ("", "#c8ccd2")),
    thinking_border="#d8d2ea",
    detail="#374151",
    note="#a35505",
    error_bg="#fdecec",
    error_border="#e0a3a3",
    error_text="#952020",
    error_hint="#4b1d1d",
    notice_bg="#fff6e5",
    notice_border="#e6c07b",
    notice_text="#7a4b00",
    code_bg="#f1f3f5",
)
DARK = TranscriptTheme(
    text="#e8eaed",
    muted="#a0a7b1",
    link="#8ab4f8",
    you="#8ab4f8",
    aria="#c6a8f7",
    user_bg="#1e2d4a",
    aria_bg="#23262a",
    aria_border="#3a3f45",
    card_bg="#2b2f34",
    card_borders=(("ok", "#3f6b4a"), ("error", "#7a3b3b"), ("denied", "#7a6531"), ("", "#454a51")),
    thinking_border="#4a4360",
    detail="#c9ced6",
    note="#f0b35a",
    error_bg="#3d2224",
    error_border="#7a3b3b",
    error_text="#f4a6a6",
    error_hint="#ead0d0",
    notice_bg="#33291a",
    notice_border="#7a6531",
    notice_text="#f0c674",
    code_bg="#30343a",
)
