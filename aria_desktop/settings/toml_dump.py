"""Writing settings back as TOML: the small subset settings files ever hold.

``tomllib`` only reads, and the settings file holds nothing but nested tables of strings,
numbers, booleans and lists of strings, so this writer covers exactly that (comments and
formatting of an edited file are not preserved; see ``aria_desktop/ARCHITECTURE.md``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["dump_toml"]

_BARE_KEY_RE = re.compile(r"^[A-Za-z0-9_-]+$")
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _toml_key(key: str) -> str:
    return key if _BARE_KEY_RE.match(key) else _toml_string(key)


def _escape_char(char: str, *, multiline: bool) -> str:
    if multiline and char == "\n":
        return char
    if char in _ESCAPES:
        return _ESCAPES[char]
    if ord(char) < 0x20 or ord(char) == 0x7F:
        return f"\\u{ord(char):04X}"
    return char


def _toml_string(text: str) -> str:
    if "\n" in text:
        body = "".join(_escape_char(c, multiline=True) for c in text)
        return f'"""\n{body}"""'
    return '"' + "".join(_escape_char(c, multiline=False) for c in text) + '"'


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def dump_toml(data: Mapping[str, Any]) -> str:
    """Serialize nested tables of str/int/float/bool/lists (all settings ever hold)."""
    lines: list[str] = []

    def table(node: Mapping[str, Any], path: list[str]) -> None:
        scalars = [(k, v) for k, v in node.items() if not isinstance(v, Mapping)]
        subtables = [(k, v) for k, v in node.items() if isinstance(v, Mapping)]
        if path and (scalars or not subtables):
            if lines:
                lines.append("")
            lines.append("[" + ".".join(_toml_key(p) for p in path) + "]")
        for k, v in scalars:
            lines.append(f"{_toml_key(k)} = {_toml_value(v)}")
        for k, v in subtables:
            table(v, [*path, k])

    table(data, [])
    return "\n".join(lines) + "\n"
