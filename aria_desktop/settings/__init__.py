"""ARIA's settings: frozen dataclasses loaded from TOML, then overridden by ``ARIA_*`` variables.

Precedence, lowest first: the dataclass defaults (``settings.schema``), ``settings.toml``
(``paths.settings_file``), then environment variables named ``ARIA_<SECTION>__<KEY>`` with
``__`` for each level of nesting (``ARIA_LLM__OLLAMA__URL=http://gpu:11434``,
``ARIA_AGENT__MAX_STEPS=4``, ``ARIA_LLM__CHAINS__CHAT=ollama,anthropic``). Environment values
are strings and are coerced to the field's type; TOML values must already have the right type
(an integer is accepted where a float is expected).

Every mistake becomes a ``ConfigError`` naming the dotted key, where it came from and what was
expected, because a user editing a file needs that and not a traceback. Values echoed in errors
are shortened and pass the log scrubber.

Secrets never live in ``settings.toml``: a secret-looking key there is refused with a pointer to
``aria config set-secret`` (see ``keystore``).

``llm.chains`` maps an agent name to its backend fallback chain. Entries from the file and the
environment are merged over the default (so adding ``vision = ["anthropic"]`` keeps ``chat``);
the mapping is stored read-only (``MappingProxyType``) so the frozen dataclass stays immutable.

The modules, one job each (see ``aria_desktop/ARCHITECTURE.md``): ``schema`` (the
dataclasses), ``rules`` (per-field constraints), ``keys`` (the schema as dotted keys),
``coercion`` (text or TOML value -> checked value), ``errors`` (the messages), ``sources``
(raw values from TOML and text), ``loading`` (``load_settings``), ``writing`` (``set_value``,
``FileSettingsAccess``) and ``toml_dump``. Everything public is importable from here.
"""

from __future__ import annotations

from aria_desktop.settings.keys import describe_keys, env_var_name, settings_as_dict
from aria_desktop.settings.loading import load_settings
from aria_desktop.settings.schema import (
    BACKEND_NAMES,
    COMPUTER_CONFIRM_LEVELS,
    COMPUTER_VISION_MODES,
    EMBEDDERS,
    FALLBACK_REASONS,
    LOG_LEVELS,
    PUSH_TO_TALK_MODES,
    VOICE_ENGINES,
    WHISPER_MODELS,
    AgentSettings,
    AnthropicSettings,
    ApiSettings,
    AutomationRule,
    AutomationsSettings,
    BreakerSettings,
    ComputerSettings,
    DaemonSettings,
    GuiSettings,
    LLMSettings,
    LogSettings,
    MemorySettings,
    OllamaSettings,
    OpenAICompatSettings,
    RetrySettings,
    Settings,
    StorageSettings,
    SttSettings,
    TimeoutSettings,
    TtsSettings,
    VadSettings,
    VoiceSettings,
    WakeSettings,
    resolve_database_path,
    resolve_log_file,
)
from aria_desktop.settings.writing import FileSettingsAccess, set_value, set_values

__all__ = [
    "BACKEND_NAMES",
    "COMPUTER_CONFIRM_LEVELS",
    "COMPUTER_VISION_MODES",
    "EMBEDDERS",
    "FALLBACK_REASONS",
    "LOG_LEVELS",
    "PUSH_TO_TALK_MODES",
    "VOICE_ENGINES",
    "WHISPER_MODELS",
    "AgentSettings",
    "AnthropicSettings",
    "ApiSettings",
    "AutomationRule",
    "AutomationsSettings",
    "BreakerSettings",
    "ComputerSettings",
    "DaemonSettings",
    "FileSettingsAccess",
    "GuiSettings",
    "LLMSettings",
    "LogSettings",
    "MemorySettings",
    "OllamaSettings",
    "OpenAICompatSettings",
    "RetrySettings",
    "Settings",
    "StorageSettings",
    "SttSettings",
    "TimeoutSettings",
    "TtsSettings",
    "VadSettings",
    "VoiceSettings",
    "WakeSettings",
    "describe_keys",
    "env_var_name",
    "load_settings",
    "resolve_database_path",
    "resolve_log_file",
    "set_value",
    "set_values",
    "settings_as_dict",
]
