"""What people read about each setting: its page, label, one line of help, unit and picker.

The one table of the settings dialog's words (Qt-free). The schema keeps what a value may be
(type, choices, bounds: they reach the form through ``SettingInfo``); this keeps how it is
presented, keyed by setting. A key on no page is on the Advanced page, grouped by section,
its label made from its name; the unit comes from the name's suffix (``timeout_s`` -> s),
as ARIA's names carry units. Whether a change applies at once is ``domain.config.applies_live``
(plus the desktop's own ``gui.*`` settings, which the app applies on Save).
"""

from __future__ import annotations

from dataclasses import dataclass

from aria_desktop.domain.config import applies_live

__all__ = [
    "ADVANCED",
    "FILE_ONLY",
    "PAGES",
    "Entry",
    "Page",
    "entry",
    "live_note",
    "section_title",
    "unit_of",
]


@dataclass(frozen=True)
class Entry:
    """How one setting is shown.

    Attributes:
        label: the field's label.
        help: one line under it ("" for none).
        picker: "folder" (one folder), "folders" (a list: Add folder… appends) or "".
        placeholder: shown in an empty text field.
        zero: what a number of 0 means, shown instead of "0" ("Automatic", "No limit").
    """

    label: str
    help: str = ""
    picker: str = ""
    placeholder: str = ""
    zero: str = ""


@dataclass(frozen=True)
class Page:
    """One page of the sidebar: its title and the generic settings it lists, in order."""

    title: str
    keys: tuple[str, ...]


_E = Entry
ENTRIES: dict[str, Entry] = {
    # Model
    "llm.think": _E("Think before answering", "Auto: only models that reason do it."),
    "llm.anthropic.model": _E("Claude model", "Which Claude answers when Claude is used."),
    "llm.openai.url": _E(
        "OpenAI-compatible server",
        "A llama.cpp, vLLM or LM Studio server. Empty: not used.",
        placeholder="http://127.0.0.1:8080",
    ),
    "llm.openai.model": _E("Its model", "The model name that server expects."),
    "llm.cloud.max_cost_per_turn": _E("Cloud budget per answer", zero="No limit"),
    "llm.cloud.max_cost_per_day": _E("Cloud budget per day", zero="No limit"),
    # Voice
    "voice.enabled": _E("Use voice", "Talk to ARIA and hear it answer."),
    "voice.push_to_talk": _E(
        "Push-to-talk key", "Hold: talk while the key is held. Toggle: press once to start."
    ),
    "voice.wake.enabled": _E("Listen for the wake word", "Say it, then your question."),
    "voice.wake.model": _E("Wake word", "hey_jarvis is “Hey Jarvis”; or a custom model's name."),
    "voice.stt.model": _E(
        "Speech recognition model",
        "tiny.en: English, fastest. base: many languages, about three times slower. "
        "Or the folder of a Whisper model.",
        picker="folder",
    ),
    "voice.stt.language": _E(
        "Spoken language",
        "Empty: English with tiny.en, detected with base. Or a code such as de, fr, es.",
        placeholder="automatic",
    ),
    "voice.stt.engine": _E(
        "Where speech is recognised",
        "A Wyoming server: the Whisper on your GPU computer hears you better.",
    ),
    "voice.stt.wyoming_uri": _E(
        "Speech recognition server",
        "Its address, such as tcp://192.168.1.20:10300.",
        placeholder="tcp://192.168.1.20:10300",
    ),
    "voice.stt.fallback": _E(
        "Hear me here while it is off",
        "This computer's own model hears you when the server does not answer.",
    ),
    "voice.tts.voice": _E("ARIA's voice", "Empty: the voice that comes with ARIA."),
    "voice.tts.length_scale": _E("Speaking pace", "Above 1 is slower, below 1 faster."),
    "voice.follow_up_s": _E(
        "Listen for a follow-up", "How long ARIA keeps listening after it answered."
    ),
    "voice.vad.silence_s": _E(
        "Pause that ends a question", "Longer lets you pause mid-sentence; shorter answers sooner."
    ),
    # General
    "gui.theme": _E("Colours", "System follows your desktop's light or dark setting."),
    "assist.prefer_local": _E(
        "Answer everyday commands here",
        "Timers, reminders, lists and the time are answered on this computer, without a model.",
    ),
    "assist.fuzzy_voice": _E(
        "Forgive misheard words", "A spoken command close to a known one still counts."
    ),
    # Privacy & memory
    "memory.auto_extract": _E(
        "Remember facts from conversations", "Only what you would say twice."
    ),
    "memory.ask_first": _E("Ask before remembering", "New facts wait in the inbox for you."),
    "memory.recall_limit": _E("Facts recalled per question", "0 turns recall off."),
    "memory.private_conversations": _E(
        "Never remember from", "Conversation titles, comma-separated."
    ),
    "memory.private_apps": _E("Nor while these apps are open", "Program names, comma-separated."),
    "web.enabled": _E("Let ARIA read web pages", "Only public addresses, or hosts you name."),
    "knowledge.enabled": _E("Use the knowledge base", "Your added documents answer questions."),
    # Files & shell
    "tools.files.roots": _E(
        "Folders ARIA may use",
        "Hidden folders, keys, keyrings, browser profiles and password stores stay out of reach.",
        picker="folders",
    ),
    "tools.files.exclude": _E("Except", "Patterns such as *.key, comma-separated."),
    "tools.files.allow_hidden": _E("Include hidden files", "Files whose names start with a dot."),
    "tools.shell.enabled": _E(
        "Let ARIA run commands",
        "Reading inside these folders runs at once; anything that changes, deletes, installs or "
        "goes online asks you first, showing the exact command.",
    ),
    "tools.shell.folders": _E("Commands may run in", "Empty: the folders above.", picker="folders"),
    "tools.shell.scratch": _E("Scratch folder", "Where commands may write freely.", "folder"),
    "tools.shell.timeout_s": _E("Stop a command after"),
    # Computer control
    "computer.enabled": _E(
        "Let ARIA use the mouse and keyboard", "Off until you turn it on; Stop everything ends it."
    ),
    "computer.confirm_level": _E(
        "Ask before", "Consequential: clicks that send, buy or delete. All: every action."
    ),
    "computer.vision": _E("Look at the screen", "Auto: with a model that can see."),
    "computer.cloud_consent": _E(
        "Screenshots may go to the cloud", "Only to a cloud model in the list below."
    ),
    "computer.backends": _E("Models that may control the computer"),
    "computer.monitor": _E("Screen", "All screens, or one of them (1, 2…).", zero="All screens"),
    "computer.max_steps": _E("Steps per task", "ARIA stops and asks after this many."),
    # Home Assistant
    "homeassistant.url": _E(
        "Address",
        "Empty: ARIA does not use Home Assistant.",
        placeholder="http://homeassistant.local:8123",
    ),
    "homeassistant.verify_tls": _E("Check its certificate", "Turn off only for a self-signed one."),
    "homeassistant.immediate_domains": _E(
        "Act at once on",
        "Locks, alarms, covers, scripts, scenes and automations always ask first.",
    ),
    "homeassistant.timeout_s": _E("Give up after"),
    "homeassistant.max_results": _E("Devices listed at most"),
    "assist.shopping_list": _E(
        "Shopping list", "aria: kept here. Or the to-do entity of Home Assistant's list."
    ),
    # Local API
    "api.port": _E("Port", "Where programs on this computer reach ARIA.", zero="Any free port"),
    "compat.enabled": _E(
        "Let programs use ARIA as a model", "Programs that speak OpenAI's or Ollama's API."
    ),
    "mcp.serve_http": _E("Offer ARIA's tools to AI programs", "Over MCP, with the token above."),
    # Advanced, where a made-up label would read badly
    "gui.first_run_done": _E("First-run set-up done"),
    "llm.max_tokens": _E("Longest answer"),
    "llm.max_context_tokens": _E("Longest conversation sent"),
    **{
        f"llm.{backend}.context_tokens": _E(
            "Context window", "How much of a conversation the model reads.", zero="The model's own"
        )
        for backend in ("ollama", "anthropic", "openai")
    },
    "computer.thumbnail_retention_days": _E(
        "Keep action thumbnails for", zero="Keep no thumbnails"
    ),
    "agent.system_prompt": _E("Instructions for the model"),
    "storage.database": _E("Database file", "Empty: ARIA's data folder."),
    "log.file": _E("Log file", "Empty: ARIA's state folder."),
    "log.level": _E("Log detail"),
}

PAGES: tuple[Page, ...] = (
    Page(
        "Model",
        (
            "llm.think",
            "llm.anthropic.model",
            "llm.openai.url",
            "llm.openai.model",
            "llm.cloud.max_cost_per_turn",
            "llm.cloud.max_cost_per_day",
        ),
    ),
    Page(
        "Voice",
        (
            "voice.enabled",
            "voice.push_to_talk",
            "voice.wake.enabled",
            "voice.wake.model",
            "voice.stt.model",
            "voice.stt.language",
            "voice.stt.engine",
            "voice.stt.wyoming_uri",
            "voice.stt.fallback",
            "voice.tts.voice",
            "voice.tts.length_scale",
            "voice.follow_up_s",
            "voice.vad.silence_s",
        ),
    ),
    Page("Hotkeys", ()),
    Page("General", ("gui.theme", "assist.prefer_local", "assist.fuzzy_voice")),
    Page(
        "Privacy & memory",
        (
            "memory.auto_extract",
            "memory.ask_first",
            "memory.recall_limit",
            "memory.private_conversations",
            "memory.private_apps",
            "web.enabled",
            "knowledge.enabled",
        ),
    ),
    Page(
        "Files & shell",
        (
            "tools.files.roots",
            "tools.files.exclude",
            "tools.files.allow_hidden",
            "tools.shell.enabled",
            "tools.shell.folders",
            "tools.shell.scratch",
            "tools.shell.timeout_s",
        ),
    ),
    Page(
        "Computer control",
        (
            "computer.enabled",
            "computer.confirm_level",
            "computer.vision",
            "computer.cloud_consent",
            "computer.backends",
            "computer.monitor",
            "computer.max_steps",
        ),
    ),
    Page(
        "Home Assistant",
        (
            "homeassistant.url",
            "homeassistant.verify_tls",
            "homeassistant.immediate_domains",
            "homeassistant.timeout_s",
            "homeassistant.max_results",
            "assist.shopping_list",
        ),
    ),
    Page("Local API", ("api.port", "compat.enabled", "mcp.serve_http")),
)
ADVANCED = "Advanced"

SPECIAL: dict[str, str] = {
    "llm.ollama.url": "Model",
    "llm.ollama.model": "Model",
    "llm.chains": "Model",
    "llm.fallback_on": "Model",
    "voice.input_device": "Voice",
    "voice.output_device": "Voice",
    "gui.hotkeys_enabled": "Hotkeys",
    "gui.hotkey_quick_ask": "Hotkeys",
    "gui.hotkey_push_to_talk": "Hotkeys",
    "gui.hotkey_stop": "Hotkeys",
    "gui.hotkey_dictate": "Hotkeys",
    "gui.start_at_login": "General",
}
"""Settings with a widget of their own (a device picker, the fallback order, hotkeys)."""

FILE_ONLY: dict[str, str] = {
    "llm.prices": "Prices of cloud models",
    "automations.rules": "Automations",
    "mcp.servers": "Tool servers (MCP)",
}
"""Tables of named entries: the Advanced page says they are edited in the settings file."""

_SECTIONS = {
    "llm": "Model",
    "llm.ollama": "Ollama",
    "llm.anthropic": "Claude",
    "llm.openai": "OpenAI-compatible server",
    "llm.timeouts": "Model timeouts",
    "llm.retry": "Model retries",
    "llm.breaker": "Pausing a failing model",
    "llm.cloud": "Cloud budget",
    "agent": "Answers",
    "storage": "Storage",
    "log": "Log",
    "memory": "Memory",
    "gui": "Desktop",
    "voice": "Voice",
    "voice.wake": "Wake word",
    "voice.vad": "Speech detection",
    "voice.stt": "Speech recognition",
    "voice.tts": "ARIA's voice",
    "api": "Local API",
    "daemon": "Background service",
    "automations": "Automations",
    "computer": "Computer control",
    "tools.files": "Files",
    "tools.shell": "Commands",
    "web": "Web pages",
    "homeassistant": "Home Assistant",
    "compat": "Programs using ARIA as a model",
    "knowledge": "Knowledge base",
    "mcp": "Tool servers (MCP)",
    "assist": "Everyday commands",
}
_UNITS = (
    ("_per_s", "per second"),
    ("_ms", "ms"),
    ("_s", "s"),
    ("_kb", "KB"),
    ("_mb", "MB"),
    ("_px", "px"),
    ("_days", "days"),
    ("_tokens", "tokens"),
    ("_bytes", "bytes"),
)
_WORDS = {
    "url": "address",
    "uri": "address",
    "tls": "TLS",
    "ocr": "text recognition",
    "sse": "event stream",
    "stt": "speech recognition",
    "vad": "speech detection",
    "mcp": "MCP",
    "ollama": "Ollama",
    "max": "maximum",
    "min": "minimum",
    "num": "number of",
}


def unit_of(key: str) -> str:
    """The unit a setting's name carries ("" for none): ``timeout_s`` -> "s"."""
    name = key.rsplit(".", 1)[-1]
    if name.startswith("max_cost"):
        return "$"
    return next((unit for suffix, unit in _UNITS if name.endswith(suffix)), "")


def section_title(key: str) -> str:
    """The heading a key stands under on the Advanced page."""
    section = key.rpartition(".")[0]
    while section and section not in _SECTIONS:
        section = section.rpartition(".")[0]
    return _SECTIONS.get(section, section.capitalize())


def _made_label(key: str) -> str:
    name = key.rsplit(".", 1)[-1]
    for suffix, _unit in _UNITS:
        if name.endswith(suffix) and name != suffix.lstrip("_"):
            name = name[: -len(suffix)]
            break
    words = [_WORDS.get(word, word) for word in name.split("_")]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def entry(key: str) -> Entry:
    """How ``key`` is shown: its entry, or one made from its name (Advanced)."""
    return ENTRIES.get(key) or Entry(FILE_ONLY.get(key) or _made_label(key))


def _live(key: str) -> bool:
    return applies_live(key) or key.startswith("gui.")


def live_note(keys: list[str]) -> str:
    """The one line a page says about when its changes take effect (true per setting)."""
    later = [entry(key).label for key in keys if not _live(key)]
    if not later:
        return "Changes apply as soon as you save."
    if len(later) == len(keys):
        return "Changes on this page apply the next time ARIA starts."
    return (
        f"Changes apply as soon as you save, except {_join(later)}: "
        "that applies the next time ARIA starts."
        if len(later) == 1
        else f"Changes apply as soon as you save, except {_join(later)}, which apply the next "
        "time ARIA starts."
    )


def _join(labels: list[str]) -> str:
    quoted = [f"“{label}”" for label in labels]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
