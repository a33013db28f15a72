"""ARIA's settings: frozen dataclasses loaded from TOML, then overridden by ``ARIA_*`` variables.

It owns the settings file and every value in it. Precedence, lowest first: the dataclass
defaults (``schema`` and the sections' ``schema_*`` modules), ``settings.toml``
(``paths.settings_file``), then environment variables ``ARIA_<SECTION>__<KEY>`` with ``__`` for
each level of nesting (``ARIA_LLM__OLLAMA__URL=http://gpu:11434``,
``ARIA_LLM__CHAINS__CHAT=ollama,anthropic``), coerced to the field's type (TOML values must
have it already; an integer is accepted where a float is expected). Every mistake is a
``ConfigError`` naming the dotted key, where it came from and what was expected, its value
shortened and scrubbed; a secret-looking key in the file is refused with a pointer to ``aria
config set-secret`` (``keystore``); ``llm.chains`` entries are merged over the default chains
and stored read-only. One job per module: ``rules`` (per-field limits), ``keys`` (dotted keys),
``coercion``, ``errors``, ``sources`` (raw values from TOML and text), ``loading``
(``load_settings``, strict; ``load_settings_with_problems``, which never fails on the file and
reports each mistake as a ``SettingsProblem`` instead), ``problems`` (those values, worded and
located) and ``writing`` (``set_value``, ``add_named_tables``, ``FileSettingsAccess``); everything
public is importable from here.
"""

from __future__ import annotations

from aria_desktop.settings.keys import describe_keys, env_var_name, settings_as_dict
from aria_desktop.settings.loading import (
    LoadedSettings,
    load_settings,
    load_settings_with_problems,
)
from aria_desktop.settings.schema import (
    COMPUTER_CONFIRM_LEVELS,
    COMPUTER_VISION_MODES,
    EMBEDDERS,
    LOG_LEVELS,
    AgentSettings,
    ApiSettings,
    AutomationRule,
    AutomationsSettings,
    ComputerSettings,
    DaemonSettings,
    GuiSettings,
    LogSettings,
    MemorySettings,
    Settings,
    StorageSettings,
    resolve_database_path,
    resolve_log_file,
)
from aria_desktop.settings.schema_llm import (
    BACKEND_NAMES,
    FALLBACK_REASONS,
    AnthropicSettings,
    BreakerSettings,
    LLMSettings,
    OllamaSettings,
    OpenAICompatSettings,
    RetrySettings,
    TimeoutSettings,
)
from aria_desktop.settings.schema_voice import (
    PUSH_TO_TALK_MODES,
    VOICE_ENGINES,
    WHISPER_MODELS,
    SttSettings,
    TtsSettings,
    VadSettings,
    VoiceSettings,
    WakeSettings,
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
    "LoadedSettings",
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
    "load_settings_with_problems",
    "resolve_database_path",
    "resolve_log_file",
    "set_value",
    "set_values",
    "settings_as_dict",
]
