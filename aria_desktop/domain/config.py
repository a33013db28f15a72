"""Settings as front-ends see them: keys, types and values as text.

The GUI edits settings through ``core.ports.SettingsService`` with these values, so it never
imports the settings module (which reads files and environment variables).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class SettingInfo:
    """One settable key.

    Attributes:
        key: dotted key (``llm.ollama.url``).
        type_name: ``str``, ``int``, ``float``, ``bool``, ``tuple[str, ...]`` or the chains
            mapping type.
        value: the current effective value, written as ``aria config set`` takes it
            (lists comma-separated, booleans ``true``/``false``).
        default: the default, written the same way.
        choices: the values it may take (a list setting: the items it may hold); () = any.
        minimum: the smallest number it takes (None: no bound); ``above_minimum``: the
            bound itself is refused.
        maximum: the largest number it takes (None: no bound).
    """

    key: str
    type_name: str
    value: str
    default: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    above_minimum: bool = False
    maximum: float | None = None


@dataclass(frozen=True, kw_only=True)
class ServerCheck:
    """Outcome of testing a server's address (a model server, Home Assistant).

    Attributes:
        url: the address tested.
        ok: the server answered like the expected API.
        models: model names it offers (from Ollama's ``/api/tags``).
        message: plain-words result ("Connected: 3 models" / why it failed and what to do).
        latency_ms: round-trip time of the probe in milliseconds.
    """

    url: str
    ok: bool
    models: tuple[str, ...] = ()
    message: str = ""
    latency_ms: float = 0.0


LIVE_SECTIONS: tuple[str, ...] = ("llm", "voice")
"""Settings sections a running ARIA applies at once: the model router is rebuilt for the next
turn, voice parts are swapped before the next utterance (ARCHITECTURE.md: settings applied
live). Any other change applies after a restart."""


def applies_live(key: str) -> bool:
    """Whether a change of dotted ``key`` takes effect without restarting ARIA.

    ``voice.enabled`` is the exception: switching voice on or off builds or ends the pipeline,
    which happens at start-up only.
    """
    section = key.split(".", 1)[0]
    return section in LIVE_SECTIONS and key != "voice.enabled"
