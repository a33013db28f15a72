"""Numbered citations in a reply: ``[n]`` becomes a link to the source ARIA gave as ``n``.

Pure text work (no Qt), so it is tested on its own. Only the numbers of the turn's
``knowledge-cited`` event are linked, to the targets ARIA made (a file URL at the page, or the
source's URL); a link the model wrote itself stays an ordinary, untrusted link.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from aria_desktop.domain.knowledge import Citation

__all__ = ["link_citations"]

_REFERENCE = re.compile(r"\[(\d{1,3})\](?!\()")


def link_citations(markdown: str, citations: Sequence[Citation]) -> tuple[str, list[Citation]]:
    """``markdown`` with each ``[n]`` of a known citation linked, and the citations it used.

    Code spans and blocks are left alone; the used citations come in number order.
    """
    by_number = {c.number: c for c in citations}
    used: dict[int, Citation] = {}

    def link(match: re.Match[str]) -> str:
        citation = by_number.get(int(match.group(1)))
        if citation is None or not citation.target:
            return match.group(0)
        used[citation.number] = citation
        return f"[\\[{citation.number}\\]]({citation.target})"

    parts = re.split(r"(```.*?```|`[^`\n]*`)", markdown, flags=re.DOTALL)
    linked = "".join(
        part if index % 2 else _REFERENCE.sub(link, part) for index, part in enumerate(parts)
    )
    return linked, [used[n] for n in sorted(used)]
