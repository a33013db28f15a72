"""The owner process's services: the core, the local HTTP API and automations, together.

``aria daemon`` and the tray app (``aria desktop``) both use this, so there is one owner path
(ARCHITECTURE.md: owner): :func:`start_owner` takes ownership of the database (the owner lock),
binds the API socket, publishes the port in the lock file so the CLI and ``aria desktop
--attach`` find it, starts the API, the automation scheduler and, when ``voice.enabled``, the
voice pipeline. :meth:`Owner.stop` is the graceful stop: replies in progress get
``daemon.shutdown_grace_s`` to finish, the rest are cancelled (their text so far is kept as
interrupted), then the API stops (streams get a ``close`` frame) and the database closes,
releasing the lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aria_desktop import __version__, paths
from aria_desktop.domain.automation import AutomationSpec, ConversationMode
from aria_desktop.domain.chat import CapabilityStatus
from aria_desktop.domain.commands import PushToTalk, SetMicrophoneMuted, Speak, Transcribe
from aria_desktop.domain.error_text import for_people, with_hint
from aria_desktop.domain.errors import AriaError, AudioDeviceError, VoiceUnavailableError
from aria_desktop.domain.events import RunEnd
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    # The web server (FastAPI, uvicorn, pydantic) and the core are imported when an owner
    # starts, not when this module is imported (ARCHITECTURE.md: start-up cost).
    from aria_desktop.adapters.webhooks.outgoing import HttpResultSender
    from aria_desktop.api.config import ApiConfig, CompatConfig
    from aria_desktop.api.runner import ApiServer
    from aria_desktop.compose.app import App
    from aria_desktop.compose.live_settings import LiveSettings
    from aria_desktop.core.assistant import LocalAssistant
    from aria_desktop.core.automations import AutomationEngine
    from aria_desktop.core.orchestrator import Orchestrator
    from aria_desktop.core.ports import AudioSink, AudioSource
    from aria_desktop.core.voice.pipeline import VoicePipeline

__all__ = [
    "VOICE_OFF",
    "VOICE_OFF_HINT",
    "VOICE_OFF_TIP",
    "Owner",
    "api_config",
    "automation_specs",
    "microphone_problem",
    "start_owner",
    "start_voice",
]

_LOGGER = logging.getLogger(__name__)
_POLL_S = 0.05


def api_config(settings: Settings) -> ApiConfig:
    """The API server's configuration from the settings."""
    from aria_desktop.api.config import ApiConfig
    from aria_desktop.compose.config import config_from

    return config_from(
        ApiConfig,
        settings.api,
        compat=compat_config(settings),
        serve_mcp=settings.mcp.serve_http,
    )


def compat_config(settings: Settings) -> CompatConfig:
    """The compatible endpoints' configuration from ``[compat]`` (names, chains, privacy)."""
    from aria_desktop.api.config import CompatConfig, CompatModel
    from aria_desktop.settings.schema_compat import parse_model_entry

    section = settings.compat
    private = {name.strip() for name in section.private_models}
    models = []
    for entry in section.models:
        parsed = parse_model_entry(entry)
        if parsed is not None:  # the settings check refused malformed entries already
            name, agent = parsed
            models.append(CompatModel(name=name, agent=agent, private=name in private))
    return CompatConfig(
        enabled=section.enabled,
        models=tuple(models),
        private_clients=tuple(c.strip().lower() for c in section.private_clients),
        max_context_tokens=section.max_context_tokens,
        context_tokens=section.context_tokens,
    )


def automation_specs(settings: Settings) -> list[AutomationSpec]:
    """The automations from ``[automations.rules.*]`` (none when automations are off)."""
    if not settings.automations.enabled:
        return []
    specs = []
    for name, rule in settings.automations.rules.items():
        mode: ConversationMode = "shared" if rule.conversation == "shared" else "new"
        specs.append(
            AutomationSpec(
                name=name,
                prompt=rule.prompt,
                schedule=rule.schedule,
                webhook=rule.webhook,
                on_event=rule.on_event,
                conversation=mode,
                notify=rule.notify,
                post_url=rule.post_url,
                backend=rule.backend,
            )
        )
    return specs


async def _drain(orchestrator: Orchestrator, timeout_s: float) -> None:
    """Wait until no turn runs (each ends with run-end), at most ``timeout_s``."""
    sub = orchestrator.bus.subscribe(event_filter=lambda event: isinstance(event, RunEnd))
    try:
        async with asyncio.timeout(timeout_s):
            while orchestrator.running_turns:
                with contextlib.suppress(TimeoutError):
                    await sub.get(timeout_s=_POLL_S)
    except TimeoutError:
        _LOGGER.info("%d reply(ies) still running; cancelling", len(orchestrator.running_turns))
    finally:
        sub.close()


@dataclass(kw_only=True)
class Owner:
    """A running owner: core, API server and automations."""

    app: App
    assistant: LocalAssistant
    server: ApiServer
    automations: AutomationEngine
    sender: HttpResultSender
    grace_s: float
    live: LiveSettings | None = None
    _stopped: bool = field(default=False, init=False, repr=False)

    async def stop(self) -> None:
        """Graceful stop, the one way an owner ends (``aria daemon`` and the tray app's quit).

        In order: the automation scheduler stops (no new scheduled run); replies in progress
        get ``grace_s`` to finish; voice stops listening and speaking; the turns left and the
        automation runs are cancelled (their text so far is kept as interrupted); the API stops
        (event streams get their ``close`` frame after the interrupted ``run-end``); outgoing
        automation results are closed; then the backends and the database, which releases the
        owner lock. A step that fails is logged and the next one still runs, so the database is
        always closed. A second call does nothing.
        """
        if self._stopped:
            return
        self._stopped = True
        orchestrator = self.app.orchestrator
        try:
            await self._step("the automation scheduler", self.automations.stop)
            if orchestrator.running_turns:
                _LOGGER.info(
                    "Waiting up to %.0f s for %d reply(ies) in progress",
                    self.grace_s,
                    len(orchestrator.running_turns),
                )
                await _drain(orchestrator, self.grace_s)
            await self._step("voice", self._stop_voice)
            await self._step("the replies and automations", orchestrator.stop)
            await self._step("the local API", self.server.stop)
            await self._step("automation result delivery", self.sender.aclose)
        finally:
            await self.app.aclose()
        _LOGGER.info("ARIA stopped")

    async def _stop_voice(self) -> None:
        voice, self.app.voice = self.app.voice, None
        if voice is not None:
            await voice.stop()

    @staticmethod
    async def _step(what: str, stop: Callable[[], Awaitable[None]]) -> None:
        try:
            await stop()
        except Exception:
            _LOGGER.exception("Stopping %s failed; ARIA goes on stopping", what)


async def _warm_up_embedder(app: App) -> None:
    """Load the embedding model in the background now rather than during the first turn."""
    if app.embedder is None:
        return
    try:
        await app.embedder.warm_up()
    except AriaError as exc:
        _LOGGER.warning("Memory embeddings unavailable: %s", exc)


async def start_owner(
    settings: Settings,
    *,
    voice_source_factory: Callable[[], AudioSource] | None = None,
    voice_sink: AudioSink | None = None,
) -> Owner:
    """Take ownership of the data and start the core, the API, automations and voice.

    ``voice_source_factory`` / ``voice_sink`` replace the microphone and speaker (tests pass
    WAV files).

    Raises:
        DatabaseOwnedError: another ARIA owns the database.
        ApiBindError: the API cannot listen where the settings say.
        ConfigError: an automation is invalid.
    """
    from aria_desktop.adapters.webhooks.outgoing import HttpResultSender
    from aria_desktop.api.runner import ApiServer
    from aria_desktop.api.token import TokenFile
    from aria_desktop.compose.app import build_app
    from aria_desktop.compose.live_settings import start_live_settings
    from aria_desktop.core.automations import AutomationEngine

    sender = HttpResultSender()
    engines: list[AutomationEngine] = []

    def attach_automations(orchestrator: Orchestrator) -> None:
        # Before the skills start: a timer that ended while ARIA was off still reaches its rule.
        engines.append(AutomationEngine(orchestrator, automation_specs(settings), sender=sender))

    try:
        app = await build_app(settings, mcp_servers=True, on_orchestrator=attach_automations)
    except BaseException:
        await sender.aclose()
        raise
    server: ApiServer | None = None
    try:
        engine = engines[0]
        assistant = app.assistant
        server = ApiServer(
            assistant,
            config=api_config(settings),
            token=TokenFile(paths.api_token_path()),
            version=__version__,
        )
        port = server.bind()
        if app.database.owner_lock is not None:
            app.database.owner_lock.set_port(port)
        # Voice is installed before the API serves (its models still load in the background):
        # a request in the first moments must not hear "voice is not set up".
        await start_voice(app, source_factory=voice_source_factory, sink=voice_sink)
        # Model warm-up; the settings file followed (devices the caller gave stay).
        fixed = voice_source_factory is not None or voice_sink is not None
        live = start_live_settings(app, fixed_devices=fixed)
        await server.start()
        engine.start()
        if app.embedder is not None:
            app.orchestrator.spawn(_warm_up_embedder(app), name="aria-embedder-warm-up")
    except BaseException:
        if server is not None:
            await server.stop()
        await sender.aclose()
        await app.aclose()
        raise
    return Owner(
        app=app,
        assistant=assistant,
        server=server,
        automations=engine,
        sender=sender,
        grace_s=settings.daemon.shutdown_grace_s,
        live=live,
    )


# --- voice -------------------------------------------------------------------------------------


def microphone_problem(device: str) -> str:
    """Why the configured microphone cannot be used ("" when it can be opened).

    Blocking (PortAudio enumerates devices): call it in a worker thread.
    """
    from aria_desktop.adapters.voice.devices import find_device

    try:
        find_device(device, output=False)
    except AudioDeviceError as exc:
        return for_people(f"Unavailable: no microphone. {exc.message}", exc.hint)
    return ""


async def start_voice(
    app: App,
    *,
    source_factory: Callable[[], AudioSource] | None = None,
    sink: AudioSink | None = None,
) -> VoicePipeline | None:
    """Voice for a running owner (daemon, tray app), as ``voice.enabled`` says.

    With a microphone (or an injected ``source_factory``) the pipeline starts: its models
    load in the background (``voice-load-*`` events) and the wake word listener opens once
    they are ready; nothing here waits for a model. Without a microphone the pipeline is
    still installed, so the "voice" capability says why it cannot listen (tray items show
    the reason) and Speak / Transcribe keep working. Switched off, the capability and the
    voice commands say so and how to turn it on.

    Returns:
        The pipeline (also kept as ``app.voice`` and stopped by ``app.aclose``), or None when
        voice is switched off.
    """
    from aria_desktop.compose.timers import hear_stop_hands_free
    from aria_desktop.compose.voice import build_voice, follow_memory_names

    settings = app.settings
    if not settings.voice.enabled:
        _LOGGER.info("Voice is switched off (voice.enabled = false)")
        _install_voice_unavailable(
            app.orchestrator, VOICE_OFF, hint=VOICE_OFF_HINT, tip=VOICE_OFF_TIP
        )
        return None
    problem = ""
    if source_factory is None:
        problem = await asyncio.to_thread(microphone_problem, settings.voice.input_device)
        if problem:
            _LOGGER.info("Voice: %s", problem)
    try:
        pipeline = build_voice(
            settings,
            app.orchestrator,
            source_factory=source_factory,
            sink=sink,
            use_microphone=not problem,
            no_microphone_reason=problem,
        )
        follow_memory_names(app, pipeline)
        if not problem:
            await pipeline.start()
    except AriaError as exc:
        _LOGGER.error("Voice is unavailable: %s", exc.message)
        _install_voice_unavailable(
            app.orchestrator,
            f"Voice is unavailable: {exc.message}",
            hint="Run `aria doctor`.",
            tip="The details are in ARIA's log.",
        )
        return None
    app.voice = pipeline
    hear_stop_hands_free(app, pipeline)  # "stop" to a ringing timer, no wake word
    return pipeline


VOICE_OFF = "Voice is switched off."
VOICE_OFF_HINT = (
    "To use it, tick Enabled in Settings → Voice (voice.enabled) or run "
    "`aria config set voice.enabled true`, then restart ARIA."
)
VOICE_OFF_TIP = "To use it, tick Enabled in Settings → Voice, then restart ARIA."
"""The hint as windows show it (the capability's reason): no settings key, no command."""


def _install_voice_unavailable(
    orchestrator: Orchestrator, message: str, *, hint: str, tip: str
) -> None:
    """Voice commands and the "voice" capability say why voice is missing and what to do.

    Push to talk, mute, speak and transcribe (tray, hotkeys, API) then answer with
    ``VoiceUnavailableError(message, hint)`` instead of "unknown command"; the capability's
    reason (menu items and their tooltips) is the message with ``tip``, the hint in words for
    a window (no command, no settings key).
    """

    async def refuse(_command: object) -> None:
        raise VoiceUnavailableError(message, hint=hint)

    for command_type in (PushToTalk, SetMicrophoneMuted, Speak, Transcribe):
        orchestrator.register_command(command_type, refuse)
    reason = with_hint(message, tip)
    orchestrator.register_capability(
        "voice", lambda: CapabilityStatus(name="voice", available=False, reason=reason)
    )
