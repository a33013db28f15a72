"""ARIA's reply sentences, per language, from ``resources/skills/replies/<lang>.yaml``.

One flat table per language (``key: sentence`` with ``{field}`` placeholders). A key missing in
a language falls back to English, so a language with templates but no replies still answers.
"""

from __future__ import annotations

import logging
import string
from collections.abc import Mapping
from pathlib import Path

import yaml

__all__ = ["YamlPhrasebook", "replies_dir"]

_LOGGER = logging.getLogger(__name__)
_FALLBACK = "en"


def replies_dir() -> Path:
    """Where the reply files live (``resources/skills/replies``)."""
    return Path(__file__).resolve().parents[3] / "resources" / "skills" / "replies"


class _Missing(dict[str, object]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


class YamlPhrasebook:
    """The phrasebook port (``core/skills/ports.py``) over the YAML reply files."""

    def __init__(self, folder: Path | None = None) -> None:
        """Read every ``<lang>.yaml`` of ``folder`` (default: the packaged replies)."""
        self._tables: dict[str, Mapping[str, str]] = {}
        for path in sorted((folder or replies_dir()).glob("*.yaml")):
            loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            self._tables[path.stem] = {str(k): str(v) for k, v in loaded.items()}
        if _FALLBACK not in self._tables:
            raise FileNotFoundError(f"no {_FALLBACK}.yaml in {folder or replies_dir()}")

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages with reply files."""
        return tuple(self._tables)

    def say(self, key: str, language: str, /, **fields: object) -> str:
        """The sentence ``key`` in ``language`` (English when missing), fields filled in."""
        table = self._tables.get(language.split("-")[0], {})
        template = table.get(key) or self._tables[_FALLBACK].get(key)
        if template is None:
            _LOGGER.error("No reply sentence %r", key)
            return key
        return string.Formatter().vformat(template, (), _Missing(fields))
