"""Settings of the knowledge base (``[knowledge]``): recall into turns and per-document limits."""

from __future__ import annotations

from dataclasses import dataclass, field

from aria_desktop.settings.rules import AT_LEAST_1, NON_NEGATIVE, POSITIVE, rules

__all__ = ["KnowledgeSettings"]


@dataclass(frozen=True)
class KnowledgeSettings:
    """The knowledge base (the user's documents; sources are added with ``aria knowledge``).

    Attributes:
        enabled: index sources, watch folders and recall documents into turns.
        recall_limit: document passages put into each turn's prompt (0 turns recall off).
        recall_min_similarity: meaning-match floor for a passage to be recalled (0-1).
        max_file_mb: larger files and downloads are refused with a per-file error.
        fetch_timeout_s: a URL source's whole download must finish within this.
        watch_debounce_ms: changes in a watched folder closer together are applied together.
        ocr_max_pages: scanned PDF pages (no text layer) read by OCR per document at most;
            0 turns OCR off (such pages are then only reported).
        ocr_page_timeout_s: one scanned page's OCR must finish within this.
    """

    enabled: bool = True
    recall_limit: int = field(default=4, metadata=NON_NEGATIVE)
    recall_min_similarity: float = field(
        default=0.35, metadata=rules(minimum=(0.0, True), maximum=1.0)
    )
    max_file_mb: float = field(default=50.0, metadata=POSITIVE)
    fetch_timeout_s: float = field(default=30.0, metadata=POSITIVE)
    watch_debounce_ms: int = field(default=400, metadata=AT_LEAST_1)
    ocr_max_pages: int = field(default=50, metadata=NON_NEGATIVE)
    ocr_page_timeout_s: float = field(default=30.0, metadata=POSITIVE)
