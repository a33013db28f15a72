"""Composition root: settings -> adapters -> Orchestrator.

The only module (with ``cli`` and ``doctor``) that knows concrete adapter classes.
``build_app`` opens the database, which takes the owner lock first, so a second process never
opens it for writing while another owns it (design.md §1); then the LLM router and the audit log.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from aria_desktop import __version__, keystore, paths
from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.audit import AuditLog
from aria_desktop.core.computer import ComputerConfig, ComputerUse, ModelChoice
from aria_desktop.core.computer_agent import ComputerAgent
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.core.tools import default_policy
from aria_desktop.llm.anthropic import AnthropicBackend
from aria_desktop.llm.ollama import OllamaBackend
from aria_desktop.llm.openai_compat import OpenAICompatBackend
from aria_desktop.llm.router import BreakerPolicy, RetryPolicy, Router, Timeouts
from aria_desktop.log import scrub_text
from aria_desktop.memory.connection import sqlite_info
from aria_desktop.memory.conversations import SQLiteConversationStore
from aria_desktop.memory.database import Database
from aria_desktop.settings import Settings, resolve_database_path

if TYPE_CHECKING:
    from aria_desktop.computer.controller import DesktopController

__all__ = [
    "App",
    "Storage",
    "build_app",
    "build_computer",
    "build_router",
    "database_path",
    "open_audit_log",
    "open_storage",
]

_LOGGER = logging.getLogger(__name__)


def database_path(settings: Settings) -> Path:
    """The SQLite file: the configured one, or the default in the data directory."""
    return resolve_database_path(settings)


def open_audit_log() -> AuditLog:
    """The audit log at its standard place (checkpoint kept in another directory)."""
    return AuditLog(paths.audit_log_path(), paths.audit_checkpoint_path(), redact=scrub_text)


def build_router(settings: Settings) -> Router:
    """LLM backends from the settings (those that are configured) behind the fallback router."""
    llm = settings.llm
    timeouts = Timeouts(
        connect_s=llm.timeouts.connect_s,
        first_token_s=llm.timeouts.first_token_s,
        stall_s=llm.timeouts.stall_s,
        total_s=llm.timeouts.total_s,
    )
    backends: dict[str, OllamaBackend | AnthropicBackend | OpenAICompatBackend] = {}
    if llm.ollama.url:
        backends["ollama"] = OllamaBackend(
            base_url=llm.ollama.url,
            model=llm.ollama.model,
            keep_alive=llm.ollama.keep_alive or None,
            timeouts=timeouts,
            capabilities=frozenset(llm.ollama.capabilities),
        )
    anthropic_key = keystore.get_secret("anthropic_api_key")
    if anthropic_key:
        backends["anthropic"] = AnthropicBackend(
            api_key=anthropic_key,
            model=llm.anthropic.model,
            base_url=llm.anthropic.base_url or None,
            timeouts=timeouts,
            capabilities=frozenset(llm.anthropic.capabilities),
        )
    if llm.openai.url:
        backends["openai"] = OpenAICompatBackend(
            base_url=llm.openai.url,
            model=llm.openai.model,
            api_key=keystore.get_secret("openai_api_key"),
            timeouts=timeouts,
            capabilities=frozenset(llm.openai.capabilities),
        )
    return Router(
        backends,
        {agent: tuple(chain) for agent, chain in llm.chains.items()},
        retry=RetryPolicy(
            max_attempts=llm.retry.max_attempts,
            base_delay_s=llm.retry.base_delay_s,
            max_delay_s=llm.retry.max_delay_s,
            retry_after_cap_s=llm.retry.retry_after_cap_s,
        ),
        breaker=BreakerPolicy(
            failure_threshold=llm.breaker.failure_threshold, reset_s=llm.breaker.reset_s
        ),
        fallback_on=frozenset(llm.fallback_on),
    )


@dataclass(kw_only=True)
class App:
    """A running ARIA core: what front-ends (CLI, GUI, API) work with."""

    settings: Settings
    orchestrator: Orchestrator
    store: SQLiteConversationStore
    router: Router
    database: Database
    audit: AuditLog
    computer: ComputerUse | None = None
    computer_agent: ComputerAgent | None = None

    async def aclose(self) -> None:
        """Stop turns, close backends and the database (which releases the owner lock)."""
        try:
            await self.orchestrator.stop()
            await self.router.aclose()
        finally:
            await self.database.close()


async def build_app(settings: Settings, *, port: int | None = None) -> App:
    """Take ownership of the database and build the orchestrator with all its adapters.

    Raises:
        DatabaseOwnedError: another ARIA process owns the database.
        StorageError, SchemaTooNewError: the database cannot be opened for writing.
    """
    db_path = database_path(settings)
    info = sqlite_info()
    _LOGGER.info(
        "ARIA %s starting; SQLite %s via %s (FTS5 %s, sqlite-vec %s)",
        __version__,
        info.sqlite_version,
        info.driver,
        "yes" if info.fts5 else "no",
        info.vec_version or "unavailable",
    )
    database = await Database.open(db_path, port=port)
    store = SQLiteConversationStore(database)
    router = build_router(settings)
    audit = open_audit_log()
    agent = settings.agent
    computer = build_computer(settings, audit=audit, router=router)
    orchestrator = Orchestrator(
        model=router,
        store=store,
        audit=audit,
        policy=computer.policy_hook(default_policy),
        config=AgentConfig(
            max_steps=agent.max_steps,
            turn_deadline_s=agent.turn_deadline_s,
            history_token_budget=agent.history_token_budget,
            confirm_timeout_s=agent.confirm_timeout_s,
            system_prompt=agent.system_prompt,
            max_tokens=settings.llm.max_tokens,
        ),
    )
    computer.install(orchestrator)
    computer_agent = ComputerAgent(computer=computer, model=router)
    computer_agent.install(orchestrator)
    return App(
        settings=settings,
        orchestrator=orchestrator,
        store=store,
        router=router,
        database=database,
        audit=audit,
        computer=computer,
        computer_agent=computer_agent,
    )


@dataclass(kw_only=True)
class Storage:
    """Owned storage without the LLM side, for CLI commands that only read or edit records."""

    store: SQLiteConversationStore
    database: Database

    async def aclose(self) -> None:
        """Close the database (which releases the owner lock)."""
        await self.database.close()


async def open_storage(settings: Settings) -> Storage:
    """Take ownership of the database and open the conversation store."""
    db_path = database_path(settings)
    database = await Database.open(db_path)
    return Storage(store=SQLiteConversationStore(database), database=database)


# --- computer use ------------------------------------------------------------------------------


def _computer_unavailable() -> str | None:
    """Why computer use cannot work here (no display, no Tesseract), or None."""
    import shutil

    from aria_desktop.computer.screen import display_problem

    problem = display_problem()
    if problem:
        return problem
    if shutil.which("tesseract") is None:
        return "Tesseract OCR is not installed (sudo apt-get install tesseract-ocr)"
    return None


def _is_cloud(name: str, settings: Settings) -> bool:
    """Whether a backend sends data off this machine/network (needs the user's consent)."""
    from urllib.parse import urlparse

    if name == "anthropic":
        return True
    if name == "openai":
        host = urlparse(settings.llm.openai.url).hostname or ""
        return host not in {"localhost", "127.0.0.1", "::1"}
    return False


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
    from aria_desktop.computer.controller import DesktopController
    from aria_desktop.computer.ocr import TesseractOcr
    from aria_desktop.computer.policy import ComputerPolicy, PolicyConfig
    from aria_desktop.computer.thumbnails import ThumbnailStore

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
                    cloud=_is_cloud(name, settings),
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
