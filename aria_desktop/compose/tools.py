"""Composition of the tools that reach the user's world: files, shell, web, Home Assistant, screen.

Files and shell are ``core/hands`` over the ``hands/`` adapter, web pages ``core/web`` over
``web/``, Home Assistant ``core/homeassistant`` over ``homeassistant/``, computer use
``core/computer`` over ``computer/``.

Builders of their own beside ``compose/app.py`` (ARCHITECTURE.md: layers, composition): each turns
its settings section into adapters and tools; adapters are imported by the builder that uses
them (ARCHITECTURE.md: start-up cost).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

from aria_desktop import paths

if TYPE_CHECKING:
    from aria_desktop.adapters.computer.controller import DesktopController
    from aria_desktop.adapters.llm.router import ChatBackend, Router
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.core.audit import AuditLog
    from aria_desktop.core.computer.capability import ComputerUse
    from aria_desktop.core.hands.toolkit import Hands
    from aria_desktop.core.homeassistant.control import HomeAssistantControl
    from aria_desktop.core.orchestrator import Orchestrator
    from aria_desktop.settings import Settings

__all__ = [
    "api_port",
    "build_computer",
    "build_hands",
    "build_homeassistant",
    "install_web_tool",
]


def build_hands(settings: Settings, *, home: str | None = None) -> Hands:
    """The file and shell tools from the ``[tools]`` settings (nothing is touched yet).

    ARIA's own folders (data, settings, state, cache) are excluded whatever the roots say.
    """
    import os

    from aria_desktop.adapters.hands.facts import LocalPathFacts
    from aria_desktop.adapters.hands.files import SandboxedFiles
    from aria_desktop.adapters.hands.shell import ShellRunner
    from aria_desktop.core.hands.file_tools import FileTools
    from aria_desktop.core.hands.shell_tool import ShellConfig, ShellTools
    from aria_desktop.core.hands.toolkit import Hands
    from aria_desktop.domain.sandbox import Sandbox

    tools = settings.tools
    home = os.path.realpath(home or os.path.expanduser("~"))

    def real(path: str) -> str:
        expanded = home + path[1:] if path == "~" or path.startswith("~/") else path
        return os.path.realpath(expanded)

    own = (paths.data_dir(), paths.config_dir(), paths.state_dir(), paths.cache_dir())
    sandbox = Sandbox(
        home=home,
        roots=tuple(real(root) for root in tools.files.roots if root.strip()),
        excluded=tuple(real(str(p)) for p in (*tools.files.exclude, *own) if str(p).strip()),
        allow_hidden=tools.files.allow_hidden,
    )
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share")
    files = SandboxedFiles(
        sandbox,
        read_max_bytes=tools.files.read_max_kb * 1024,
        edit_max_bytes=tools.files.edit_max_kb * 1024,
        trash_home=os.path.join(data_home, "Trash"),
    )
    runner = ShellRunner(
        paths.state_dir() / "shell-output",
        keep_bytes=tools.shell.output_kb * 512,
        store_max_bytes=8 * 1024 * 1024,
    )
    shell = ShellTools(
        runner,
        fs=files,
        facts=LocalPathFacts(sandbox),
        config=ShellConfig(
            folders=tuple(real(f) for f in tools.shell.folders if f.strip()),
            scratch=real(tools.shell.scratch) if tools.shell.scratch.strip() else "",
            default_timeout_s=tools.shell.timeout_s,
            max_timeout_s=tools.shell.max_timeout_s,
        ),
    )
    return Hands(files=FileTools(files, home=home), shell=shell, shell_enabled=tools.shell.enabled)


def api_port(database: Database) -> tuple[int, ...]:
    """The port the running owner's API bound (from the owner lock), if it serves one yet."""
    info = database.owner_lock.info if database.owner_lock is not None else None
    return (info.port,) if info is not None and info.port else ()


def install_web_tool(
    settings: Settings,
    orchestrator: Orchestrator,
    *,
    api_ports: Callable[[], Iterable[int]] = tuple,
) -> None:
    """Register ``web_fetch`` (``[web]`` settings) unless it is switched off.

    The fetcher never reaches ARIA's own API on this computer — the configured port and the
    one the running API bound (``api_ports``) — whatever ``web.allow_hosts`` says; httpx,
    trafilatura and pypdf load on the first fetch.
    """
    if not settings.web.enabled:
        return
    from aria_desktop.adapters.web.addresses import AddressPolicy
    from aria_desktop.adapters.web.fetcher import FetchConfig, WebFetcher
    from aria_desktop.core.web import web_fetch_tool

    ws = settings.web
    policy = AddressPolicy(
        allow_hosts=ws.allow_hosts,
        own_ports=frozenset({settings.api.port} - {0}),
        live_ports=api_ports,
    )
    from aria_desktop.compose.config import config_from

    config = config_from(FetchConfig, ws, policy=policy)
    orchestrator.tools.register(web_fetch_tool(WebFetcher(config)))


def build_homeassistant(settings: Settings) -> HomeAssistantControl | None:
    """Home Assistant control when ``homeassistant.url`` is set (nothing is contacted here)."""
    ha = settings.homeassistant
    if not ha.url:
        return None
    from aria_desktop import keystore
    from aria_desktop.adapters.homeassistant.client import HomeAssistantClient
    from aria_desktop.core.homeassistant.control import HomeAssistantConfig, HomeAssistantControl

    client = HomeAssistantClient(
        ha.url,
        keystore.get_secret("homeassistant_token"),
        timeout_s=ha.timeout_s,
        verify_tls=ha.verify_tls,
    )
    config = HomeAssistantConfig(
        immediate_domains=frozenset(ha.immediate_domains), max_results=ha.max_results
    )
    return HomeAssistantControl(client, config)


# --- computer use ------------------------------------------------------------------------------


def _computer_unavailable() -> str | None:
    """Why computer use cannot work here (no display, no Tesseract), or None."""
    import shutil

    from aria_desktop.adapters.computer.screen import display_problem

    problem = display_problem()
    if problem:
        return problem
    if shutil.which("tesseract") is None:
        return "Tesseract OCR is not installed (sudo apt-get install tesseract-ocr)"
    return None


def _learned_capabilities(backend: ChatBackend) -> Callable[[], Awaitable[frozenset[str]]]:
    """What ``backend``'s model can do as its server says (``adapters/llm/model_facts.py``)."""

    async def capabilities() -> frozenset[str]:
        return (await backend.model_facts()).capabilities

    return capabilities


def build_computer(
    settings: Settings,
    *,
    audit: AuditLog,
    router: Router | None = None,
    controller: DesktopController | None = None,
) -> ComputerUse:
    """The computer-use capability from the ``[computer]`` settings.

    Nothing touches the display until it is used, so this is safe on a headless machine.
    """
    from aria_desktop.adapters.computer.controller import DesktopController
    from aria_desktop.adapters.computer.ocr import TesseractOcr
    from aria_desktop.adapters.computer.thumbnails import ThumbnailStore
    from aria_desktop.core.computer.capability import ComputerUse
    from aria_desktop.core.computer.config import ComputerConfig, ModelChoice
    from aria_desktop.core.computer.policy import ComputerPolicy, PolicyConfig

    cs = settings.computer
    policy = ComputerPolicy(
        PolicyConfig.from_patterns(
            deny_patterns=cs.deny_patterns,
            allow_patterns=cs.allow_patterns,
            allow_list_mode=cs.allow_list_mode,
            overrides=cs.overrides,
            confirm_level=cs.confirm_level,
            max_actions_per_s=cs.max_actions_per_s,
            max_actions_per_task=cs.max_actions_per_task,
            corner_margin_px=cs.corner_margin_px,
        )
    )
    models: list[ModelChoice] = []
    for name in cs.backends:
        backend = router.backend(name) if router is not None else None
        if backend is not None:
            models.append(
                ModelChoice(
                    backend=name,
                    model=backend.model,
                    vision="vision" in backend.capabilities,
                    cloud=backend.locality == "cloud",
                    capabilities=_learned_capabilities(backend),
                )
            )
    thumbnails = ThumbnailStore(
        paths.data_dir() / "computer" / "thumbnails",
        retention_days=cs.thumbnail_retention_days,
    )
    return ComputerUse(
        port=controller
        or DesktopController(
            ocr=TesseractOcr(upscale=cs.ocr_upscale),
            typing_interval_s=cs.typing_interval_ms / 1000,
        ),
        policy=policy,
        audit=audit,
        thumbnails=thumbnails if thumbnails.enabled else None,
        config=ComputerConfig(
            enabled=cs.enabled,
            monitor=cs.monitor,
            longest_side_px=cs.scale_longest_px,
            max_steps=cs.max_steps,
            task_deadline_s=cs.task_deadline_s,
            confirm_timeout_s=settings.agent.confirm_timeout_s,
            stuck_after=cs.stuck_after,
            vision=cs.vision,
            cloud_consent=cs.cloud_consent,
            models=tuple(models),
        ),
        unavailable_reason=_computer_unavailable,
    )
