"""Composition root: settings -> adapters -> Orchestrator.

The only module (with ``cli`` and ``doctor``) that knows concrete adapter classes. ``build_app``
opens the database, which takes the owner lock first, so a second process never opens it for
writing while another owns it (ARCHITECTURE.md: owner); then the LLM router and the audit log.
Each capability's builders live beside it: ``compose.memory``, ``compose.knowledge``,
``compose.voice``, ``compose.tools``, ``compose.mcp``, ``compose.llm``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from aria_desktop import __version__, paths
from aria_desktop.compose.config import config_from
from aria_desktop.compose.knowledge import build_knowledge
from aria_desktop.compose.llm import build_router
from aria_desktop.compose.memory import build_embedder, build_memory
from aria_desktop.compose.skills import Skills, install_skills
from aria_desktop.settings import FileSettingsAccess, Settings, resolve_database_path

if TYPE_CHECKING:
    from collections.abc import Callable

    # Adapters (and the core services that only some commands need) are imported inside the
    # builder that uses them: a command pays only for what it builds (ARCHITECTURE.md:
    # start-up cost).
    from aria_desktop.adapters.llm.budget import UsageLedger
    from aria_desktop.adapters.llm.live import LiveRouter
    from aria_desktop.adapters.mcp.hub import McpHub
    from aria_desktop.adapters.memory.store import Embedder
    from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.core.assistant import LocalAssistant
    from aria_desktop.core.audit import AuditLog
    from aria_desktop.core.bus import Subscription
    from aria_desktop.core.computer.capability import ComputerUse
    from aria_desktop.core.computer.task import ComputerAgent
    from aria_desktop.core.homeassistant.control import HomeAssistantControl
    from aria_desktop.core.knowledge.service import KnowledgeService
    from aria_desktop.core.mcp.bridge import McpBridge
    from aria_desktop.core.memory.service import MemoryService
    from aria_desktop.core.orchestrator import Orchestrator
    from aria_desktop.core.ports import SettingsAccess
    from aria_desktop.core.tools import PolicyHook
    from aria_desktop.core.voice.pipeline import VoicePipeline

__all__ = ["App", "build_app", "database_path", "open_audit_log"]

_LOGGER = logging.getLogger(__name__)


def database_path(settings: Settings) -> Path:
    """The SQLite file: the configured one, or the default in the data directory."""
    return resolve_database_path(settings)


def open_audit_log() -> AuditLog:
    """The audit log at its standard place (checkpoint kept in another directory)."""
    from aria_desktop.adapters.storage.audit_file import AuditFile
    from aria_desktop.core.audit import AuditLog
    from aria_desktop.log import scrub_text

    store = AuditFile(paths.audit_log_path(), paths.audit_checkpoint_path())
    return AuditLog(store, redact=scrub_text)


@dataclass(kw_only=True)
class App:
    """A running ARIA core: what front-ends (CLI, GUI, API) work with."""

    settings: Settings
    orchestrator: Orchestrator
    store: SQLiteConversationStore
    router: LiveRouter
    database: Database
    audit: AuditLog
    memory: MemoryService | None = None
    embedder: Embedder | None = None
    knowledge: KnowledgeService | None = None
    settings_access: SettingsAccess | None = None
    voice: VoicePipeline | None = None
    vocabulary_events: Subscription | None = None
    usage_ledger: UsageLedger | None = None
    skills: Skills | None = None
    _assistant: LocalAssistant | None = field(default=None, init=False, repr=False)

    @property
    def assistant(self) -> LocalAssistant:
        """The in-process ``Assistant`` every front-end drives (CLI, daemon API, tray app).

        Built here only, with long-term memory and settings access, so each front-end sees the
        same capabilities.
        """
        if self._assistant is None:
            from aria_desktop.core.assistant import LocalAssistant

            self._assistant = LocalAssistant(
                self.orchestrator,
                memory=self.memory,
                settings=self.settings_access,
                knowledge=self.knowledge,
                lists=self.skills.list_access if self.skills is not None else None,
                timers=self.skills.timers if self.skills is not None else None,
                reminders=self.skills.reminders if self.skills is not None else None,
            )
        return self._assistant

    computer: ComputerUse | None = None
    computer_agent: ComputerAgent | None = None
    homeassistant: HomeAssistantControl | None = None
    mcp: McpHub | None = None

    async def aclose(self) -> None:
        """Stop voice and turns, close backends and the database (releasing the owner lock)."""
        try:
            voice, self.voice = self.voice, None
            if voice is not None:
                await voice.stop()
            await self.orchestrator.stop()
            if self.memory is not None and self.memory.episodes is not None:
                await self.memory.episodes.flush()  # open conversations keep their episodes
            if self.mcp is not None:
                await self.mcp.aclose()
            await self.router.aclose()
            if self.embedder is not None:
                await self.embedder.aclose()
            if self.homeassistant is not None:
                await self.homeassistant.aclose()
        finally:
            await self.database.close()


async def build_app(
    settings: Settings,
    *,
    port: int | None = None,
    settings_access: SettingsAccess | None = None,
    mcp_servers: bool = False,
    on_orchestrator: Callable[[Orchestrator], None] | None = None,
) -> App:
    """Take ownership of the database and build the orchestrator with all its adapters.

    ``on_orchestrator`` is called as soon as the orchestrator exists, before the skills start:
    what subscribes there sees the events told at start-up (timers that ended while ARIA was
    off, reminders that came due).

    ``settings_access`` is what ``get_settings``/``update_settings`` read and write (default:
    the settings file). Voice is not started here: see :func:`start_voice`. ``mcp_servers``
    starts the user's MCP servers in the background and offers their tools (the owner and
    ``aria chat``; other commands do not pay for them).

    Raises:
        DatabaseOwnedError: another ARIA process owns the database.
        StorageError, SchemaTooNewError: the database cannot be opened for writing.
    """
    from aria_desktop.adapters.llm.live import LiveRouter
    from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.adapters.storage.usage import SQLiteUsageLedger
    from aria_desktop.compose.tools import build_computer, build_homeassistant
    from aria_desktop.compose.usage import install_usage_report

    db_path = database_path(settings)
    _log_start()
    database = await Database.open(db_path, port=port)
    store = SQLiteConversationStore(database)
    ledger = SQLiteUsageLedger(database)
    router = LiveRouter(build_router(settings, ledger=ledger))  # replaced live (ARCHITECTURE.md)
    audit = open_audit_log()
    computer = build_computer(settings, audit=audit, router=router.current)
    homeassistant = build_homeassistant(settings)
    policy, mcp, mcp_bridge = _tool_policy(settings, computer, homeassistant, mcp=mcp_servers)
    orchestrator = _orchestrator(settings, router, store, audit, policy)
    if on_orchestrator is not None:
        try:
            on_orchestrator(orchestrator)
        except BaseException:
            await database.close()
            raise
    install_usage_report(orchestrator, ledger)
    embedder, memory, knowledge = await _install_memory_and_knowledge(
        settings, orchestrator, database, router, store
    )
    skills = await install_skills(
        settings, orchestrator, database, memory, homeassistant=homeassistant
    )
    computer.install(orchestrator)
    computer_agent = _install_tools(settings, orchestrator, database, router, computer)
    if homeassistant is not None:
        homeassistant.install(orchestrator)
    _install_hands_and_mcp(settings, orchestrator, mcp, mcp_bridge)
    return App(
        settings=settings,
        orchestrator=orchestrator,
        store=store,
        router=router,
        usage_ledger=ledger,
        database=database,
        audit=audit,
        memory=memory,
        embedder=embedder,
        knowledge=knowledge,
        computer=computer,
        computer_agent=computer_agent,
        homeassistant=homeassistant,
        settings_access=settings_access or FileSettingsAccess(),
        mcp=mcp,
        skills=skills,
    )


def _log_start() -> None:
    """Log ARIA's version and the SQLite it runs on (what a bug report needs first)."""
    from aria_desktop.adapters.storage.connection import sqlite_info

    info = sqlite_info()
    _LOGGER.info(
        "ARIA %s starting; SQLite %s via %s (FTS5 %s, sqlite-vec %s)",
        __version__,
        info.sqlite_version,
        info.driver,
        "yes" if info.fts5 else "no",
        info.vec_version or "unavailable",
    )


def _tool_policy(
    settings: Settings,
    computer: ComputerUse,
    homeassistant: HomeAssistantControl | None,
    *,
    mcp: bool,
) -> tuple[PolicyHook, McpHub | None, McpBridge | None]:
    """The tool policy: the default one wrapped by each capability's own rules.

    With ``mcp`` (and MCP switched on), the MCP hub and bridge are built here too, since the
    bridge's rules are part of the policy; they start once the orchestrator exists.
    """
    from aria_desktop.core.tools import default_policy

    policy = computer.policy_hook(default_policy)
    if homeassistant is not None:
        policy = homeassistant.policy_hook(policy)
    if not (mcp and settings.mcp.enabled):
        return policy, None, None
    from aria_desktop.compose.mcp import build_mcp

    hub, bridge = build_mcp(settings)
    return bridge.policy_hook(policy), hub, bridge


def _orchestrator(
    settings: Settings,
    router: LiveRouter,
    store: SQLiteConversationStore,
    audit: AuditLog,
    policy: PolicyHook,
) -> Orchestrator:
    """The orchestrator over the router, the conversations and the audit log."""
    from aria_desktop.core.agent import AgentConfig
    from aria_desktop.core.orchestrator import Orchestrator

    return Orchestrator(
        model=router,
        store=store,
        audit=audit,
        policy=policy,
        config=config_from(
            AgentConfig,
            settings.agent,
            max_tokens=settings.llm.max_tokens,
            think=settings.llm.think,
            think_budget_tokens=settings.llm.think_budget_tokens,
        ),
    )


async def _install_memory_and_knowledge(
    settings: Settings,
    orchestrator: Orchestrator,
    database: Database,
    router: LiveRouter,
    store: SQLiteConversationStore,
) -> tuple[Embedder | None, MemoryService, KnowledgeService | None]:
    """Long-term memory and the knowledge base, sharing one embedder, installed."""
    embedder = build_embedder(settings)
    memory, memory_store, pending = await build_memory(settings, database, embedder, router, store)
    memory.install(orchestrator)
    if pending:
        orchestrator.spawn(memory_store.sync_vectors(), name="aria-memory-vector-sync")
    knowledge = await build_knowledge(settings, database, embedder, watch=True)
    if knowledge is not None:
        knowledge.install(orchestrator)
    return embedder, memory, knowledge


def _install_tools(
    settings: Settings,
    orchestrator: Orchestrator,
    database: Database,
    router: LiveRouter,
    computer: ComputerUse,
) -> ComputerAgent:
    """The web tool and the computer-use task agent, installed; returns the agent."""
    from aria_desktop.compose.tools import api_port, install_web_tool
    from aria_desktop.core.computer.task import ComputerAgent

    install_web_tool(settings, orchestrator, api_ports=lambda: api_port(database))
    computer_agent = ComputerAgent(computer=computer, model=router)
    computer_agent.install(orchestrator)
    return computer_agent


def _install_hands_and_mcp(
    settings: Settings,
    orchestrator: Orchestrator,
    mcp: McpHub | None,
    mcp_bridge: McpBridge | None,
) -> None:
    """The hands (files, shell) and, when built, the MCP servers' tools; MCP starts here."""
    from aria_desktop.compose.tools import build_hands

    build_hands(settings).install(orchestrator)
    if mcp is not None and mcp_bridge is not None:
        mcp_bridge.install(orchestrator)
        mcp.start()
