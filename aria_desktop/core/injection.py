"""The one injection scanner: what in untrusted text may be trying to steer the model.

Every piece of untrusted text — a tool's result (files, shell, web, screen, memory), screen text
in the task loop — is scanned here and nowhere else (``aria_desktop/ARCHITECTURE.md``, safety).
Three kinds of findings:

* ``instruction``: text that reads like an order to an assistant ("ignore previous
  instructions", "assistant: click…", chat-template markers);
* ``hidden``: text a person reading the same content would not see — zero-width characters,
  bidirectional controls, Unicode tag characters (decoded and scanned too), and passages the
  adapter found hidden in a page (``display:none``, white on white: passed in as ``hidden``);
* ``tool-call``: look-alikes of a tool call (``{"name": …, "arguments": …}``, ``<tool_call>``
  tags, ``web_fetch(url=…)`` for a registered tool's name).

The scanner is pure and deterministic; it only reports. What a finding changes is decided by
the agent loop (the rest of the turn asks before acting) and never by the content itself.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "Finding",
    "FindingKind",
    "clean_invisible",
    "scan_text",
]

FindingKind = Literal["instruction", "hidden", "tool-call"]

_EXCERPT_CHARS = 300
_MAX_FINDINGS = 20

INSTRUCTION_RE = re.compile(
    r"ignore\s+(all\s+|any\s+|the\s+)?(previous|prior|above|earlier|your|preceding)\s+"
    r"(instructions?|prompts?|messages?|rules|directions)"
    r"|disregard\s+(all\s+|the\s+|your\s+|any\s+)?(previous|prior|above|earlier|instructions?"
    r"|system|safety)"
    r"|forget\s+(all\s+|everything\s+|your\s+)?(previous\s+|prior\s+)?(instructions|you\s+were\s+told)"
    r"|you\s+are\s+now\b|new\s+instructions?\s*:|updated\s+instructions?\s*:|\bsystem\s+prompt\b"
    r"|developer\s+mode|jailbreak|\bDAN\s+mode"
    r"|do\s+not\s+(tell|inform|alert|warn)\s+the\s+user|without\s+(telling|asking)\s+the\s+user"
    r"|override\s+(the\s+)?(policy|safety|rules|restrictions)"
    r"|\b(assistant|aria|ai|agent|model|chatbot|llm)\s*[,:]\s*(please\s+)?(click|type|press|send"
    r"|delete|open|run|execute|fetch|visit|write|remove|forward|email|call|transfer|buy|pay)"
    r"|(click|press)\s+(on\s+)?(the\s+)?[\"']?\w+[\"']?\s+(button\s+)?(now|immediately|right\s+away)"
    r"|(send|email|forward|upload|post|exfiltrate|leak)\s+(the\s+|all\s+|your\s+|my\s+|their\s+)*"
    r"(passwords?|credentials|api\s+keys?|tokens?|secrets?|ssh\s+keys?|private\s+keys?"
    r"|cookies|files|contacts|conversation|chat\s+history)\b"
    r"|(run|execute)\s+(the\s+following|this)\s+(command|code|script)"
    r"|<\|im_start\|>|<\|im_end\|>|\[/?INST\]|<\|(system|user|assistant)\|>|<<SYS>>"
    r"|^\s*(#+\s*)?(system|assistant)\s*(message|prompt)?\s*:"
    r"|\bIMPORTANT\s*(NOTE\s*)?(FOR|TO)\s+(THE\s+)?(AI|ASSISTANT|AGENT|MODEL|LLM)",
    re.IGNORECASE | re.MULTILINE,
)
"""Phrases that address an assistant or try to replace its instructions."""

_TOOL_CALL_RE = re.compile(
    r"\{\s*\"(name|tool|tool_name|function)\"\s*:\s*\"[^\"]{1,80}\"\s*,\s*"
    r"\"(arguments|parameters|args|input|params)\"\s*:"
    r"|\{\s*\"(arguments|parameters|args|input|params)\"\s*:\s*\{[^{}]{0,400}\}\s*,\s*"
    r"\"(name|tool|tool_name|function)\"\s*:"
    r"|\"(tool_calls|function_call)\"\s*:"
    r"|</?\s*(tool_call|tool_use|function_call|function_calls|invoke|antml:invoke|tool_result)\b"
    r"|<\|?(tool_call|python_tag|plugin)\|?>|\[TOOL_CALLS\]|<function\s*=",
    re.IGNORECASE,
)
"""Shapes in which models emit tool calls (OpenAI, Anthropic, Llama, Mistral, Hermes)."""

_ZERO_WIDTH = frozenset("\u200b\u2060\u2061\u2062\u2063\u2064\ufeff\u180e\u034f")
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_JOINERS = frozenset("\u200c\u200d")
"""Zero-width (non-)joiners: needed inside emoji sequences and by scripts such as Persian."""
_TAG_FIRST, _TAG_LAST = 0xE0000, 0xE007F
_BLACK_FLAG = "\U0001f3f4"
_INVISIBLE_RE = re.compile(
    "[\u200b-\u200d\u2060-\u2064\ufeff\u180e\u034f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]"
)
"""Any character the checks for hidden text look at (most text has none: the fast path)."""
_TRIGGERS = (
    "ignore", "disregard", "forget", "are now", "instruction", "system", "developer",
    "jailbreak", "dan mode", "the user", "override", "assistant", "aria", "ai ", "ai:", "ai,",
    "agent", "model", "chatbot", "llm", "click", "press", "send", "email", "forward", "upload",
    "post", "exfiltrate", "leak", "run ", "execute", "<|", "inst]", "<<sys", "important",
    "name", "tool", "function", "invoke", "call", "plugin", "python_tag", "(",
)  # fmt: skip
"""Words without which no instruction or tool-call pattern can match: lines lacking all of
them are not run through the patterns (a 16,000-character result scans in about a
millisecond instead of ten)."""
_ZERO_WIDTH_FLAG_AT = 3
"""Invisible characters in a text before it counts as hiding something (one ZWSP is typography)."""


@dataclass(frozen=True)
class Finding:
    """One suspicious place in untrusted text.

    Attributes:
        kind: instruction, hidden or tool-call.
        excerpt: the line (or hidden passage) it was found in, shortened, invisible characters
            made visible as ``U+XXXX``.
        pattern: what matched (a phrase, or a description of the hidden characters).
    """

    kind: FindingKind
    excerpt: str
    pattern: str


def _is_tag(ch: str) -> bool:
    return _TAG_FIRST <= ord(ch) <= _TAG_LAST


def _visible(text: str) -> str:
    """``text`` with invisible and control characters shown as ``U+XXXX`` (for excerpts)."""
    out = []
    for ch in text:
        if ch in _ZERO_WIDTH or ch in _BIDI or _is_tag(ch):
            out.append(f"<U+{ord(ch):04X}>")
        else:
            out.append(ch)
    return "".join(out)[:_EXCERPT_CHARS]


def _decode_tags(text: str) -> str:
    """The ASCII hidden in tag characters (U+E0020..U+E007E mirror printable ASCII)."""
    return "".join(chr(ord(ch) - _TAG_FIRST) for ch in text if 0xE0020 <= ord(ch) <= 0xE007E)


def _hidden_characters(text: str) -> list[Finding]:
    findings: list[Finding] = []
    tags = _hidden_tags(text)
    if tags:
        decoded = _decode_tags("".join(text[i] for i in sorted(tags)))
        findings.append(
            Finding("hidden", _visible(decoded or text[:200]), "Unicode tag characters")
        )
    bidi = sum(1 for ch in text if ch in _BIDI)
    if bidi:
        line = next(line for line in text.splitlines() or [text] if any(c in _BIDI for c in line))
        findings.append(Finding("hidden", _visible(line), f"{bidi} bidirectional control(s)"))
    zero = sum(1 for ch in text if ch in _ZERO_WIDTH)
    zero += sum(1 for i, ch in enumerate(text) if ch in _JOINERS and not _joins_symbols(text, i))
    if zero >= _ZERO_WIDTH_FLAG_AT:
        line = next(
            (line for line in text.splitlines() if any(c in _ZERO_WIDTH for c in line)), text
        )
        findings.append(Finding("hidden", _visible(line), f"{zero} zero-width characters"))
    return findings


def _hidden_tags(text: str) -> set[int]:
    """Indexes of the tag characters that hide text.

    All but those of subdivision flags (🏴 + tag letters + cancel tag); one pass, so a long run
    costs no more than its length.
    """
    hidden: set[int] = set()
    index, end = 0, len(text)
    while index < end:
        if not _is_tag(text[index]):
            index += 1
            continue
        run_end = index
        while run_end < end and _is_tag(text[run_end]):
            run_end += 1
        if not (index > 0 and text[index - 1] == _BLACK_FLAG):
            hidden.update(range(index, run_end))
        index = run_end
    return hidden


def _joins_symbols(text: str, index: int) -> bool:
    """Whether a zero-width joiner sits inside an emoji sequence or a script that needs it."""
    before = text[index - 1] if index > 0 else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    return bool(before and after) and not (before.isascii() or after.isascii())


def _line_of(text: str, start: int) -> str:
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    return text[line_start : line_end if line_end >= 0 else len(text)].strip()


def _matches(regex: re.Pattern[str], kind: FindingKind, text: str, seen: set[str]) -> list[Finding]:
    findings = []
    for match in regex.finditer(text):
        line = _line_of(text, match.start())
        if line in seen:
            continue
        seen.add(line)
        findings.append(Finding(kind, _visible(line), match.group(0).strip()[:80]))
        if len(findings) >= _MAX_FINDINGS:
            break
    return findings


def _tool_name_calls(text: str, tool_names: Iterable[str], seen: set[str]) -> list[Finding]:
    names = sorted({n for n in tool_names if n}, key=len, reverse=True)
    if not names:
        return []
    regex = re.compile(
        r"(?<![\w.])(" + "|".join(re.escape(n) for n in names) + r")\s*\(\s*(\w+\s*=|[\"'{])"
    )
    return _matches(regex, "tool-call", text, seen)


def _candidate_lines(text: str) -> str:
    """The lines of ``text`` that hold a trigger word (the only ones a pattern can match)."""
    lower = " ".join(text.lower().split())
    present = [word for word in _TRIGGERS if word in lower]
    if not present:
        return ""
    kept = []
    for line in text.splitlines():
        flat = " ".join(line.lower().split())
        if any(word in flat for word in present):
            kept.append(line)
    return "\n".join(kept)


def scan_text(
    text: str, *, tool_names: Iterable[str] = (), hidden: Iterable[str] = ()
) -> list[Finding]:
    """Everything suspicious in ``text`` (and in the ``hidden`` passages an adapter removed).

    Args:
        text: the untrusted text as it would be shown to the model.
        tool_names: the names of the tools the model can call (``web_fetch(url=…)`` with one
            of them is a tool-call look-alike; arbitrary code calls are not).
        hidden: passages the adapter found but a reader would not see (HTML hidden elements);
            each is reported as ``hidden`` and scanned for instructions and tool calls too.
    """
    invisible = _INVISIBLE_RE.search(text) is not None
    findings = _hidden_characters(text) if invisible else []
    decoded = _decode_tags(text) if invisible else ""
    normal = _candidate_lines(unicodedata.normalize("NFKC", text))
    seen: set[str] = set()
    for candidate in (normal, decoded) if decoded else (normal,):
        findings += _matches(INSTRUCTION_RE, "instruction", candidate, seen)
        findings += _matches(_TOOL_CALL_RE, "tool-call", candidate, seen)
        findings += _tool_name_calls(candidate, tool_names, seen)
    for passage in hidden:
        inner = scan_text(passage, tool_names=tool_names)
        if inner:
            what = ", ".join(sorted({f.kind for f in inner}))
            findings.append(
                Finding("hidden", _visible(passage), f"hidden page text containing {what}")
            )
    return findings[:_MAX_FINDINGS]


def clean_invisible(text: str) -> str:
    """``text`` without tag characters, bidirectional controls and zero-width characters.

    What the model is shown must be what a reader sees: invisible characters can carry text
    (tag characters) or reorder it (bidi controls). Joiners inside emoji and scripts that
    need them are kept.
    """
    if _INVISIBLE_RE.search(text) is None:
        return text
    tags = _hidden_tags(text)
    out = []
    for i, ch in enumerate(text):
        if ch in _ZERO_WIDTH or ch in _BIDI or i in tags:
            continue
        if ch in _JOINERS and not _joins_symbols(text, i):
            continue
        out.append(ch)
    return "".join(out)
