"""Settings applied live: a changed settings file takes effect without restarting ARIA.

The owner follows the settings file (the GUI settings dialog and ``aria config set`` write it;
``PATCH /api/v1/settings`` writes it and then waits here for the change to be applied). A change
of ``llm.*`` (model, backends, URLs, the fallback order) builds a new router that the
``LiveRouter`` swaps in for the next turn, the turn in flight finishing on the old one; a
change of ``voice.*`` gives the voice pipeline new parts for its next utterance. Other sections
apply after a restart, which ``settings-applied`` says. The model warm-up (``core/warmup.py``)
is wired here too: the chat chain's local model loads at start, after a wake from sleep and
after a model change (ARCHITECTURE.md: settings applied live).

The file is read tolerantly (ARCHITECTURE.md: a start that never breaks): what a hand edit
got wrong takes its default and is kept on the assistant (``settings_problems``, which
``GET /api/v1/state`` carries), each new one logged as a warning. A file that does not parse
leaves the running settings as they are (defaults everywhere would change the model and
voice under the user mid-edit); its problem is reported all the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aria_desktop import paths
from aria_desktop.domain.config import LIVE_SECTIONS
from aria_desktop.domain.error_text import NO_MODEL_SET_UP
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.settings_events import SettingsApplied
from aria_desktop.settings import LoadedSettings, Settings, load_settings_with_problems

if TYPE_CHECKING:
    from aria_desktop.adapters.llm.router import Router
    from aria_desktop.compose.app import App
    from aria_desktop.core.voice.pipeline import VoicePipeline
    from aria_desktop.core.warmup import ModelTarget, ModelWarmUp

__all__ = ["LiveSettings", "no_model_reason", "start_live_settings", "warm_up_target"]

_LOGGER = logging.getLogger(__name__)


def warm_up_target(settings: Settings, router: Router) -> ModelTarget | None:
    """The chat chain's first configured backend as a warm-up target.

    When no backend of the chain is configured (a cloud model chosen but its key not given),
    the target says why (``missing``), so the windows say "no model" before the first
    question instead of "Ready".

    Only Ollama gets a load request: it loads models on demand. An OpenAI-compatible server
    (llama.cpp, vLLM) loads its model when it starts and a cloud API has nothing to load, so
    they are named (the status shows the model) without a request.
    """
    from aria_desktop.core.warmup import ModelTarget

    chain = router.chain("chat")
    configured = [name for name in chain if router.backend(name) is not None]
    if not configured:
        first = chain[0] if chain else "anthropic"
        return ModelTarget(
            backend=first,
            model=_configured_model(settings, first),
            load=None,
            missing=no_model_reason(chain),
        )
    backend = router.backend(configured[0])
    assert backend is not None
    if configured[0] != "ollama":
        return ModelTarget(backend=configured[0], model=backend.model, load=None)
    ollama = settings.llm.ollama
    timeouts = settings.llm.timeouts

    async def load() -> None:
        from aria_desktop.adapters.llm.ollama_load import load_ollama_model

        await load_ollama_model(
            ollama.url,
            ollama.model,
            keep_alive=ollama.keep_alive or None,
            timeout_s=timeouts.total_s,
            connect_s=timeouts.connect_s,
        )

    return ModelTarget(backend="ollama", model=ollama.model, load=load)


def no_model_reason(chain: Sequence[str]) -> str:
    """Why no backend of the chat ``chain`` is set up, in plain words (no keys, no commands)."""
    missing = [_WHY_MISSING.get(name, f"{name} is not set up") for name in chain]
    if not missing:
        return f"{NO_MODEL_SET_UP} No model is chosen for chat."
    said = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " and " + missing[-1]
    return f"{NO_MODEL_SET_UP} {said[0].upper()}{said[1:]}."


_WHY_MISSING = {
    "anthropic": "the Claude cloud model needs an API key",
    "ollama": "Ollama has no address",
    "openai": "the OpenAI-compatible server has no address",
}


def _configured_model(settings: Settings, backend: str) -> str:
    """The model the settings name for ``backend`` ("" for a name ARIA does not know)."""
    section = getattr(settings.llm, backend, None)
    return str(getattr(section, "model", "") or "")


class LiveSettings:
    """Applies changed settings to a running owner (see the module docstring).

    Args:
        app: the running core.
        warm_up: the model warm-up, re-aimed when the chat model changes.
        settings_path: the settings file (None: the standard one).
        fixed_devices: the voice pipeline's audio source and sink were given by the caller
            (tests, ``aria listen`` with a file): device settings do not replace them.
    """

    def __init__(
        self,
        app: App,
        warm_up: ModelWarmUp,
        *,
        settings_path: Path | None = None,
        fixed_devices: bool = False,
    ) -> None:
        self._app, self._warm_up, self._path = app, warm_up, settings_path
        self._fixed_devices = fixed_devices
        self._lock = asyncio.Lock()

    @property
    def warm_up(self) -> ModelWarmUp:
        """The model warm-up (its state is the "model" capability)."""
        return self._warm_up

    @property
    def path(self) -> Path:
        """The settings file followed."""
        return self._path if self._path is not None else paths.settings_file()

    async def reload(self) -> SettingsApplied | None:
        """Read the settings file again and apply what changed (None: nothing changed).

        Mistakes in it are reported (``note_problems``); a file that does not parse is not
        applied: the running settings stay (the writers never write one, so only a hand edit
        gets here).
        """
        loaded = await asyncio.to_thread(load_settings_with_problems, self._path)
        self.note_problems(loaded)
        if not loaded.parsed:
            _LOGGER.warning("Settings not applied: %s does not parse", loaded.path)
            return None
        return await self.apply(loaded.settings)

    def note_problems(self, loaded: LoadedSettings, *, log: bool = True) -> None:
        """Keep the problems of ``loaded`` on the assistant; log each one not seen before."""
        assistant = self._app.assistant
        before = set(assistant.settings_problems)
        for problem in loaded.problems:
            if log and problem not in before:
                _LOGGER.warning("Settings problem: %s %s", problem.message, problem.where())
        assistant.settings_problems = loaded.problems

    async def apply(self, new: Settings) -> SettingsApplied | None:
        """Make ``new`` the running settings where that works live; None if nothing changed."""
        async with self._lock:
            app = self._app
            old = app.settings
            changed = [f.name for f in dataclasses.fields(Settings) if _differs(old, new, f.name)]
            if not changed:
                return None
            live = tuple(name for name in changed if name in LIVE_SECTIONS)
            later = tuple(name for name in changed if name not in LIVE_SECTIONS)
            restart = later + (("voice",) if old.voice.enabled != new.voice.enabled else ())
            if "llm" in live:
                await self._apply_llm(new)
            if "voice" in live and app.voice is not None and new.voice.enabled:
                self._apply_voice(app.voice, old, new)
            app.settings = new
            event = self._applied(live, restart)
            _LOGGER.info("Settings applied live: %s", ", ".join(live) or "none")
            app.orchestrator.bus.publish(event)
            return event

    async def _apply_llm(self, new: Settings) -> None:
        from aria_desktop.compose.llm import build_router

        router = build_router(new, ledger=self._app.usage_ledger)
        await self._app.router.swap(router)
        self._warm_up.retarget(warm_up_target(new, router))

    def _apply_voice(self, pipeline: VoicePipeline, old: Settings, new: Settings) -> None:
        """New voice parts for the pipeline's next utterance; unchanged engines are kept."""
        from aria_desktop.adapters.voice.devices import MicrophoneSource, SpeakerSink
        from aria_desktop.compose.voice import (
            build_stt,
            build_tts,
            build_wake_word,
            follow_memory_names,
            voice_config,
        )
        from aria_desktop.core.voice.parts import VoiceParts
        from aria_desktop.core.voice.speech import SpeechService

        before, after, current = old.voice, new.voice, pipeline.parts
        speech = current.speech
        stt = speech.stt if before.stt == after.stt else build_stt(new)
        tts = speech.tts if before.tts == after.tts else build_tts(new)
        sink, source = speech.sink, current.source_factory
        if not self._fixed_devices and before.output_device != after.output_device:
            sink = SpeakerSink(after.output_device)
        moved = before.input_device != after.input_device
        if not self._fixed_devices and source is not None and moved:
            source = functools.partial(MicrophoneSource, after.input_device)
        same_wake = before.wake == after.wake and stt is speech.stt
        wake = current.wake if same_wake else build_wake_word(new, stt)
        if (stt, tts, sink) != (speech.stt, speech.tts, speech.sink):
            speech = SpeechService(bus=speech.bus, tts=tts, stt=stt, sink=sink, clock=speech.clock)
        if stt is not current.speech.stt or before.stt.vocabulary != after.stt.vocabulary:
            follow_memory_names(self._app, pipeline, stt, new)
        parts = VoiceParts(
            speech=speech, wake=wake, config=voice_config(new), source_factory=source
        )
        pipeline.replace_parts(parts)

    def _applied(self, live: tuple[str, ...], restart: tuple[str, ...]) -> SettingsApplied:
        router = self._app.router
        chain = router.chain("chat")
        backend = router.backend(chain[0]) if chain else None
        return SettingsApplied(
            sections=live,
            backend=backend.name if backend is not None else "",
            model=backend.model if backend is not None else "",
            locality=backend.locality if backend is not None else "",
            restart_needed=restart,
        )

    async def after_saved(self, _changes: Any) -> None:
        """``LocalAssistant``'s hook: a settings change it saved is applied before it answers."""
        await self.reload()

    async def follow_file(self) -> None:
        """Apply the settings file whenever it changes (runs until cancelled).

        The folder is watched, not the file: writers replace the file atomically.
        """
        from watchfiles import awatch

        folder = self.path.parent
        await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
        name = self.path.name
        async for changes in awatch(folder, debounce=200, step=50, recursive=False):
            if any(Path(changed).name == name for _kind, changed in changes):
                with contextlib.suppress(AriaError):
                    await self.reload()


def _differs(old: Settings, new: Settings, name: str) -> bool:
    return bool(getattr(old, name) != getattr(new, name))


def start_live_settings(
    app: App, *, settings_path: Path | None = None, fixed_devices: bool = False
) -> LiveSettings:
    """Warm the model up, follow the settings file and hook ``PATCH /settings`` (the owner).

    The warm-up and the file watcher run as the orchestrator's tasks (ended by its stop).
    """
    from aria_desktop.core.clock import SystemClock
    from aria_desktop.core.warmup import ModelWarmUp

    orchestrator = app.orchestrator
    warm_up = ModelWarmUp(
        bus=orchestrator.bus,
        clock=SystemClock(),
        target=warm_up_target(app.settings, app.router.current),
    )
    orchestrator.register_capability("model", warm_up.capability)
    live = LiveSettings(app, warm_up, settings_path=settings_path, fixed_devices=fixed_devices)
    # The command that started the owner logged them already (``aria`` main).
    live.note_problems(load_settings_with_problems(settings_path), log=False)
    app.assistant.settings_saved = live.after_saved
    warm_up.start(lambda coro, name: orchestrator.spawn(coro, name=name))
    orchestrator.spawn(live.follow_file(), name="aria-settings-watch")
    return live
