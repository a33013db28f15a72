"""Settings of the OpenAI- and Ollama-compatible endpoints (``[compat]``).

Which model names ARIA offers to other programs (Home Assistant's Ollama integration, Open
WebUI, scripts using ``openai``/``ollama``), which routing chain each name uses, and which
names or clients are private (never mined for long-term memories). Translated into the API's
``CompatConfig`` by ``owner.api_config``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from aria_desktop.settings.rules import AT_LEAST_1, rules

__all__ = ["CompatSettings", "parse_model_entry"]

_ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._:-]{0,127})(?:=([A-Za-z0-9_-]{1,64}))?$")
_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$")


def parse_model_entry(entry: str) -> tuple[str, str] | None:
    """``"name"`` or ``"name=agent"`` as (name, agent); None when malformed."""
    match = _ENTRY.match(entry.strip())
    if match is None:
        return None
    return match.group(1), match.group(2) or "chat"


def _check_models(value: object) -> str | None:
    entries = value if isinstance(value, tuple) else ()
    if not entries:
        return "offer at least one model name"
    names = []
    for entry in entries:
        parsed = parse_model_entry(str(entry))
        if parsed is None:
            return (
                f"{entry!r} is not 'name' or 'name=agent' (letters, digits, . _ : -; the agent "
                "names a chain of llm.chains)"
            )
        names.append(parsed[0])
    if len(set(names)) != len(names):
        return "a model name is listed twice"
    return None


def _check_labels(value: object) -> str | None:
    for entry in value if isinstance(value, tuple) else ():
        if not _LABEL.match(str(entry).strip()):
            return f"{entry!r} is not a model name or client label (letters, digits, . _ : / -)"
    return None


@dataclass(frozen=True)
class CompatSettings:
    """The OpenAI- and Ollama-compatible endpoints (``/v1/*``, Ollama's ``/api/*``).

    Attributes:
        enabled: serve them (same port, token and protections as the API).
        models: names offered, each ``name`` or ``name=agent`` (the chain of ``llm.chains``
            its turns use; default ``chat``). Ollama clients see ``name:latest``.
        private_models: names whose turns are never mined for long-term memories.
        private_clients: clients whose turns are never mined: ``ollama``, ``openai``, a
            User-Agent product such as ``ollama-python``, or ``ollama/ollama-python``.
        max_context_tokens: the largest context window (Ollama ``num_ctx``) a client may ask
            of a backend; larger requests are capped.
        context_tokens: the context length ``/api/show`` reports.
    """

    enabled: bool = True
    models: tuple[str, ...] = field(default=("aria",), metadata=rules(check=_check_models))
    private_models: tuple[str, ...] = field(default=(), metadata=rules(check=_check_labels))
    private_clients: tuple[str, ...] = field(default=(), metadata=rules(check=_check_labels))
    max_context_tokens: int = field(default=32_768, metadata=AT_LEAST_1)
    context_tokens: int = field(default=8_192, metadata=AT_LEAST_1)
