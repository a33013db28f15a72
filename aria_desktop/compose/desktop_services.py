"""The desktop app's ``SettingsService``: settings file, keyring, autostart entry, API token.

Lives at the CLI level because it touches files and the keyring, which the GUI must not
import (ARCHITECTURE.md: layers).
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aria_desktop import keystore, paths
from aria_desktop.api.token import TokenFile
from aria_desktop.domain.audio import AudioClip
from aria_desktop.domain.config import ServerCheck, SettingInfo
from aria_desktop.domain.error_text import plain_error
from aria_desktop.domain.errors import AriaError, ConfigError, SpeechRecognitionError
from aria_desktop.domain.voice_trial import TrialHearing, TrialResult
from aria_desktop.gui.keyspec import HotkeySpecError, parse_hotkey
from aria_desktop.log import register_secret
from aria_desktop.settings import (
    describe_keys,
    load_settings_with_problems,
    set_value,
    set_values,
    settings_as_dict,
)
from aria_desktop.settings.keys import leaf_map
from aria_desktop.settings.rules import FieldRules

if TYPE_CHECKING:
    from aria_desktop.core.voice.ports import SoundCheck

__all__ = ["LocalSettingsService", "autostart_entry", "autostart_path"]

_LOGGER = logging.getLogger(__name__)
_HOTKEY_KEYS = (
    "gui.hotkey_quick_ask",
    "gui.hotkey_push_to_talk",
    "gui.hotkey_stop",
    "gui.hotkey_dictate",
)
_PROBE_TIMEOUT_S = 5.0
_SPEECH_PROBE_S = 2.0


def autostart_path() -> Path:
    """``$XDG_CONFIG_HOME/autostart/aria-desktop.desktop`` (freedesktop autostart spec)."""
    base = os.environ.get("XDG_CONFIG_HOME", "").strip() or str(Path.home() / ".config")
    return Path(base) / "autostart" / "aria-desktop.desktop"


def _launch_command() -> str:
    script = Path(sys.executable).with_name("aria")
    if script.is_file():
        return f"{_quote(str(script))} desktop"
    found = shutil.which("aria")
    if found:
        return f"{_quote(found)} desktop"
    return f"{_quote(sys.executable)} -m aria_desktop desktop"


def _quote(arg: str) -> str:
    """Quote an Exec argument per the Desktop Entry spec when needed."""
    if all(c.isalnum() or c in "/._-+" for c in arg):
        return arg
    escaped = arg.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`").replace("$", "\\$")
    return f'"{escaped}"'


def autostart_entry() -> str:
    """The autostart ``.desktop`` file's text."""
    try:
        icon = str(paths.resource_path("icons/aria.svg"))
    except FileNotFoundError:
        icon = "aria-desktop"
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        "Name=ARIA\n"
        "GenericName=Desktop assistant\n"
        "Comment=Local-first desktop AI assistant\n"
        f"Exec={_launch_command()}\n"
        f"Icon={icon}\n"
        "Terminal=false\n"
        "Categories=Utility;\n"
        "X-GNOME-Autostart-enabled=true\n"
    )


def _text_value(value: Any, type_name: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        return ";".join(f"{agent}={','.join(chain)}" for agent, chain in value.items())
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def _limits(rules: FieldRules) -> dict[str, Any]:
    """A setting's allowed values and bounds, for the form to offer only what is valid."""
    minimum = rules.minimum
    return {
        "choices": rules.choices or rules.item_choices or (),
        "minimum": minimum[0] if minimum else None,
        "above_minimum": bool(minimum and not minimum[1]),
        "maximum": rules.maximum,
    }


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and key != "chains":
            flat.update(_flatten(value, dotted + "."))
        else:
            flat[dotted] = value
    return flat


class LocalSettingsService:
    """Settings of this user on this machine (the file ``aria config`` edits)."""

    def __init__(self, settings_path: Path | None = None) -> None:
        self._path = settings_path

    @property
    def path(self) -> Path:
        """The settings file."""
        return self._path if self._path is not None else paths.settings_file()

    def fields(self, prefix: str = "") -> list[SettingInfo]:
        """Every key under ``prefix`` with its effective value.

        Read tolerantly, so the dialog opens on a file with mistakes (each such key shows the
        default ARIA uses; ARCHITECTURE.md: a start that never breaks).
        """
        current = _flatten(settings_as_dict(load_settings_with_problems(self._path).settings))
        leaves = leaf_map()
        return [
            SettingInfo(
                key=key,
                type_name=type_name,
                value=_text_value(current.get(key, default), type_name),
                default=default,
                **_limits(leaves[key].rules),
            )
            for key, type_name, default in describe_keys()
            if key.startswith(prefix)
        ]

    def check(self, changes: Mapping[str, str]) -> dict[str, str]:
        """Validate the changes together on a scratch copy of the settings file."""
        errors: dict[str, str] = {}
        hotkeys: dict[str, str] = {}
        for key in _HOTKEY_KEYS:
            if key in changes:
                try:
                    spec = parse_hotkey(changes[key])
                except HotkeySpecError as exc:
                    errors[key] = str(exc)
                    continue
                if spec is not None:
                    hotkeys[key] = spec.text
        current = {i.key: i.value for i in self.fields("gui.hotkey_")}
        merged = {**current, **{k: v for k, v in hotkeys.items()}}
        seen: dict[str, str] = {}
        for key in _HOTKEY_KEYS:
            text = merged.get(key, "")
            if not text or key in errors:
                continue
            try:
                spec = parse_hotkey(text)
            except HotkeySpecError:
                continue
            canonical = spec.pynput if spec else ""
            if canonical in seen and key in changes:
                errors[key] = f"{text} is already used for another hotkey."
            seen.setdefault(canonical, key)
        pending = {k: v for k, v in changes.items() if k not in errors}
        with tempfile.TemporaryDirectory(prefix="aria-settings-check-") as tmp:
            together = Path(tmp) / "together.toml"
            scratch = Path(tmp) / "settings.toml"
            # A file that does not parse: the values are checked alone here, and ``apply``
            # refuses to write over it in plain words.
            if self.path.exists() and load_settings_with_problems(self.path, env={}).parsed:
                shutil.copyfile(self.path, together)
                shutil.copyfile(self.path, scratch)
            try:
                # Together first: fields that depend on each other (voice.stt.model and
                # voice.stt.language) may only be valid when changed at once.
                set_values(list(pending.items()), path=together)
            except ConfigError as batch_error:
                for key, value in pending.items():  # one by one, to name every bad field
                    try:
                        set_value(key, value, path=scratch)
                    except ConfigError as exc:
                        errors[key] = _reason(exc)
                if not any(key in errors for key in pending):
                    named = next((k for k in pending if f"'{k}'" in batch_error.message), "")
                    errors[named or next(iter(pending))] = _reason(batch_error)
        return errors

    def apply(self, changes: Mapping[str, str]) -> None:
        """Validate everything first, then write; ``gui.start_at_login`` updates autostart."""
        errors = self.check(changes)
        if errors:
            key, reason = next(iter(errors.items()))
            raise ConfigError(f"{key}: {reason}", hint="Fix the value and save again.")
        if changes:
            set_values(list(changes.items()), path=self._path, source="from the settings dialog")
        if "gui.start_at_login" in changes:
            self.set_start_at_login(changes["gui.start_at_login"].strip().lower() == "true")

    def set_start_at_login(self, enabled: bool) -> None:
        """Write or remove the freedesktop autostart entry."""
        target = autostart_path()
        if not enabled:
            target.unlink(missing_ok=True)
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_text(autostart_entry(), encoding="utf-8")
        os.replace(tmp, target)

    async def check_ollama(self, url: str) -> ServerCheck:
        """Probe ``url``'s ``/api/tags`` through the Ollama adapter."""
        from aria_desktop.adapters.llm.ollama import OllamaBackend
        from aria_desktop.adapters.llm.router import Timeouts

        url = url.strip().rstrip("/")
        if not url.startswith(("http://", "https://")):
            return ServerCheck(
                url=url, ok=False, message="The address must start with http:// or https://."
            )
        timeouts = Timeouts(connect_s=3.0, first_token_s=5.0, stall_s=5.0, total_s=5.0)
        backend = OllamaBackend(base_url=url, model="", timeouts=timeouts)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(_PROBE_TIMEOUT_S):
                models = await backend.list_models()
        except TimeoutError:
            return ServerCheck(
                url=url, ok=False, message=f"No answer from {url} within {_PROBE_TIMEOUT_S:g} s."
            )
        except AriaError as exc:  # in plain words: the windows show no codes or commands
            message = plain_error(exc.code, exc.message, backend="ollama").message
            return ServerCheck(url=url, ok=False, message=message)
        finally:
            await backend.aclose()
        latency_ms = (time.perf_counter() - started) * 1000
        names = tuple(model.name for model in models)
        message = (
            f"Connected in {latency_ms:.0f} ms: {len(names)} model(s) available."
            if names
            else "Connected, but no models are installed there yet: add one in Ollama first."
        )
        return ServerCheck(url=url, ok=True, models=names, message=message, latency_ms=latency_ms)

    async def check_homeassistant(self, url: str, token: str = "") -> ServerCheck:
        """Reach Home Assistant's ``/api/`` with ``token`` (or the stored one)."""
        from aria_desktop.adapters.homeassistant.client import HomeAssistantClient

        url = url.strip().rstrip("/")
        if not url.startswith(("http://", "https://")):
            return ServerCheck(
                url=url, ok=False, message="The address must start with http:// or https://."
            )
        secret = token.strip() or keystore.get_secret("homeassistant_token")
        client = HomeAssistantClient(url, secret, timeout_s=_PROBE_TIMEOUT_S)
        started = time.perf_counter()
        try:
            answer = await client.check()
        except AriaError as exc:
            return ServerCheck(url=url, ok=False, message=f"{exc.message} {exc.hint}".strip())
        finally:
            await client.aclose()
        latency_ms = (time.perf_counter() - started) * 1000
        return ServerCheck(
            url=url,
            ok=True,
            message=f"Connected in {latency_ms:.0f} ms: {answer or 'API running.'}",
            latency_ms=latency_ms,
        )

    async def check_speech_server(self, uri: str) -> ServerCheck:
        """Ask a Wyoming server which speech-to-text models it has (quick: 2 s at most)."""
        from aria_desktop.adapters.voice.wyoming_client import speech_to_text_models
        from aria_desktop.domain.speech_servers import server_host

        started = time.perf_counter()
        try:
            models = await speech_to_text_models(uri, timeout_s=_SPEECH_PROBE_S)
        except AriaError:  # the reason names sockets and errnos: the wizard only needs "no"
            where = server_host(uri) or uri
            return ServerCheck(
                url=uri, ok=False, message=f"No speech recognition answers on {where}."
            )
        latency_ms = (time.perf_counter() - started) * 1000
        return ServerCheck(
            url=uri,
            ok=True,
            models=models,
            message=f"Speech recognition answers in {latency_ms:.0f} ms.",
            latency_ms=latency_ms,
        )

    async def try_speech_models(self, recordings: Sequence[tuple[str, AudioClip]]) -> TrialResult:
        """Each packaged model and decoding hears every recording ("Test my voice").

        A model that cannot load here is left out; none at all is ``SpeechRecognitionError``.
        """
        from aria_desktop.adapters.voice.whisper import WhisperSTT
        from aria_desktop.core.voice.voice_trial import CANDIDATES, best, score

        hearings: list[TrialHearing] = []
        for candidate in CANDIDATES:
            stt = WhisperSTT(
                candidate.model,
                beam_size=candidate.beam_size,
                language="en" if candidate.model == "base" else "",
                cache_dir=paths.model_cache_dir(),
            )
            try:
                for said, clip in recordings:
                    heard = await stt.transcribe(clip)
                    hearings.append(
                        TrialHearing(candidate, said, heard.text, heard.latency_ms / 1000)
                    )
            except AriaError as exc:
                _LOGGER.warning("%s left out of the voice test: %s", candidate.label, exc)
            finally:
                await stt.aclose()
        scores = score(hearings)
        if not scores:
            raise SpeechRecognitionError(
                "No speech model could be tried on this computer.",
                hint="Run `aria doctor` to see what voice is missing.",
            )
        return TrialResult(scores=tuple(scores), best=best(scores))

    def secret_status(self, name: str) -> str:
        """Where a secret lives."""
        return keystore.secret_status(name)

    def set_secret(self, name: str, value: str) -> str:
        """Store a secret in the keyring."""
        return keystore.set_secret(name, value)

    def delete_secret(self, name: str) -> None:
        """Remove a stored secret."""
        keystore.delete_secret(name)

    def _token_file(self) -> TokenFile:
        return TokenFile(paths.api_token_path())

    def api_token(self) -> str:
        """The local API's bearer token (the one ``aria token show`` prints), made if missing."""
        token_file = self._token_file()
        token_file.ensure()
        token = token_file.read()
        register_secret(token)
        return token

    def rotate_api_token(self) -> str:
        """Issue a new API token; the old one stops working at once, also for a running API."""
        token = self._token_file().rotate()
        register_secret(token)
        return token

    def sound_check(self) -> SoundCheck:
        """The voice's own microphone and speaker adapters, to pick and try a device."""
        from aria_desktop.compose.sound_check import build_sound_check

        return build_sound_check()


def _reason(exc: ConfigError) -> str:
    """The part of a settings error a form needs (the key is shown by the field itself)."""
    message = exc.message
    marker = ") "
    if message.startswith("Setting '") and marker in message:
        message = message.split(marker, 1)[1]
        return message[0].upper() + message[1:] if message else exc.message
    return message
