"""``LocalAssistant``: the ``core.ports.Assistant`` for an orchestrator in this process.

Front-ends use it when the orchestrator runs here (the tray app, the daemon's API routes, the
CLI when nothing else owns the data).

The HTTP API client implements the same protocol for ``aria desktop --attach``, so the GUI and
the CLI do not care which one they hold.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from aria_desktop.core.bus import Subscription
from aria_desktop.core.memory.episodes import EpisodeKeeper
from aria_desktop.core.memory.service import MemoryService
from aria_desktop.core.orchestrator import Orchestrator
from aria_desktop.core.ports import (
    KnowledgeAccess,
    ListAccess,
    ReminderAccess,
    SettingsAccess,
    TimerAccess,
)
from aria_desktop.domain import memory as mem
from aria_desktop.domain.chat import CapabilityStatus, Conversation, StoredMessage, TurnStarted
from aria_desktop.domain.commands import CancelTurn, Command, ConfirmAction, StartTurn
from aria_desktop.domain.episodes import Episode, MemorySource
from aria_desktop.domain.errors import AriaError, MemoryUnavailableError, NotFoundError
from aria_desktop.domain.events import AssistantState
from aria_desktop.domain.memory_reflection import MemoryStats
from aria_desktop.domain.memory_tiers import MemoryTierChange
from aria_desktop.domain.settings_problems import SettingsProblem

__all__ = ["LocalAssistant"]


class LocalAssistant:
    """The in-process ``Assistant``: a thin facade over the orchestrator and its store."""

    def __init__(
        self,
        orchestrator: Orchestrator,
        *,
        memory: MemoryService | None = None,
        settings: SettingsAccess | None = None,
        knowledge: KnowledgeAccess | None = None,
        lists: ListAccess | None = None,
        timers: TimerAccess | None = None,
        reminders: ReminderAccess | None = None,
    ) -> None:
        """Front ``orchestrator``; ``memory`` None means long-term memory is not set up.

        ``knowledge`` is the knowledge base the API's ``/knowledge`` routes drive (None: not
        set up); ``lists`` the shopping, to-do and the user's lists (``/lists``, MCP tools).
        """
        self.orchestrator = orchestrator
        self.knowledge = knowledge
        self.lists = lists
        self.timers = timers
        """The timers (``/timers``, ``aria timers``, the tray's countdown); None: not set up."""
        self.reminders = reminders
        """Reminders and alarms (``/reminders``, ``aria reminders``, MCP); None: not set up."""
        self._store = orchestrator.store
        self._memory = memory
        self._settings = settings
        self.settings_problems: tuple[SettingsProblem, ...] = ()
        """What the owner could not use in its settings file; the owner's live settings keep
        it current (``GET /api/v1/state`` carries it)."""
        self.settings_saved: Callable[[Mapping[str, Any]], Awaitable[None]] | None = None
        """Called after ``update_settings`` saved a change, before it answers: the owner
        applies the change to the running ARIA (ARCHITECTURE.md: settings applied live)."""

    @property
    def state(self) -> AssistantState:
        """The assistant's current visible state."""
        return self.orchestrator.state

    def subscribe(self) -> Subscription:
        """Events published from now on."""
        return self.orchestrator.bus.subscribe()

    async def start_turn(self, command: StartTurn) -> TurnStarted:
        """Start a turn; its events follow on the bus."""
        handle = await self.orchestrator.handle(command)
        return TurnStarted(run_id=handle.run_id, conversation_id=handle.conversation_id)

    async def cancel_turn(self, run_id: str | None = None) -> int:
        """Cancel one turn, or all when ``run_id`` is None; returns how many."""
        return await self.orchestrator.handle(CancelTurn(run_id=run_id))

    async def confirm_action(self, command: ConfirmAction) -> None:
        """Answer a confirmation request (ConfirmationError when refused)."""
        await self.orchestrator.handle(command)

    async def execute(self, command: Command) -> Any:
        """Any command registered by a capability."""
        return await self.orchestrator.handle(command)

    async def capabilities(self) -> list[CapabilityStatus]:
        """Which capabilities can be used now, and why not."""
        return self.orchestrator.capabilities()

    async def create_conversation(self, title: str) -> Conversation:
        """A new, empty conversation."""
        return await self._store.create_conversation(title)

    async def list_conversations(self, *, limit: int = 50, offset: int = 0) -> list[Conversation]:
        """Conversations, most recently updated first."""
        return await self._store.list_conversations(limit=limit, offset=offset)

    async def get_conversation(self, conversation_id: str) -> Conversation | None:
        """One conversation, or None."""
        return await self._store.get_conversation(conversation_id)

    async def rename_conversation(self, conversation_id: str, title: str) -> None:
        """Change a conversation's title (NotFoundError if it does not exist)."""
        await self._store.rename_conversation(conversation_id, title)

    async def delete_conversation(self, conversation_id: str) -> None:
        """Delete a conversation and its messages (NotFoundError if it does not exist).

        Its episode goes too, and the memories it alone taught are forgotten.
        """
        await self._store.delete_conversation(conversation_id)
        if self._memory is not None and self._memory.episodes is not None:
            await self._memory.episodes.conversation_deleted(conversation_id)

    async def end_conversation(self, conversation_id: str) -> Episode | None:
        """The user is done with a conversation: keep its episode now (None: nothing to tell)."""
        if self._memory is None or self._memory.episodes is None:
            return None
        if conversation_id in self._memory.config.private_conversations:
            return None  # nothing is kept from a private conversation
        if await self._store.get_conversation(conversation_id) is None:
            raise NotFoundError(f"There is no conversation {conversation_id!r}.")
        return await self._memory.episodes.end(conversation_id)

    async def list_messages(
        self, conversation_id: str, *, limit: int | None = None, before_id: int | None = None
    ) -> list[StoredMessage]:
        """Messages oldest first; with ``limit``, the newest ``limit`` before ``before_id``."""
        if await self._store.get_conversation(conversation_id) is None:
            raise NotFoundError(f"There is no conversation {conversation_id!r}.")
        return await self._store.list_messages(conversation_id, limit=limit, before_id=before_id)

    # --- long-term memory -------------------------------------------------------------------

    @property
    def memory(self) -> MemoryService:
        """The memory service (MemoryUnavailableError when memory is not set up here)."""
        return _present(
            self._memory,
            MemoryUnavailableError(
                "Long-term memory is not set up in this ARIA.", hint="Run `aria doctor` to see why."
            ),
        )

    async def search_memories(self, query: mem.MemoryQuery) -> list[mem.MemoryHit]:
        """Hybrid keyword + vector search over memories."""
        return await self.memory.search_memories(query)

    async def list_memories(
        self, which: mem.MemoryFilter = mem.ACTIVE_MEMORIES
    ) -> list[mem.Memory]:
        """Memories newest first, filtered."""
        return await self.memory.list_memories(which)

    async def get_memory(self, memory_id: str) -> mem.Memory | None:
        """One memory (any status), or None."""
        return await self.memory.get_memory(memory_id)

    async def memory_associations(self, memory_id: str) -> list[mem.MemoryAssociation]:
        """The memories used together with one, strongest first (NotFoundError: no such)."""
        return await self.memory.memory_associations(memory_id)

    async def memory_tier_changes(self, memory_id: str) -> list[MemoryTierChange]:
        """How a memory moved between tiers and why, oldest first (NotFoundError: no such)."""
        return await self.memory.memory_tier_changes(memory_id)

    async def memory_stats(self, last: int = 10) -> MemoryStats:
        """How well memory served the latest ``last`` conversations, and the trend."""
        return await self.memory.memory_stats(last)

    def _episodes(self) -> EpisodeKeeper:
        keeper = self.memory.episodes
        if keeper is None:
            raise MemoryUnavailableError(
                "Episodes are not kept in this ARIA.", hint="Run `aria doctor` to see why."
            )
        return keeper

    async def list_episodes(self, query: str = "", limit: int = 20) -> list[Episode]:
        """Episodes about ``query`` (best first), or the latest ones (``query`` empty)."""
        return await self._episodes().list_episodes(query, limit)

    async def get_episode(self, episode_id: str) -> Episode | None:
        """One episode, or None."""
        return await self._episodes().get_episode(episode_id)

    async def memory_sources(self, memory_id: str) -> list[MemorySource]:
        """The conversations that taught or confirmed a memory (NotFoundError: no such)."""
        if await self.memory.get_memory(memory_id) is None:
            raise NotFoundError(f"There is no memory {memory_id!r}.")
        return await self._episodes().memory_sources(memory_id)

    async def add_memory(self, new: mem.NewMemory) -> mem.Memory:
        """Remember ``new`` (a near-duplicate reinforces the existing memory)."""
        return await self.memory.add_memory(new)

    async def update_memory(self, memory_id: str, edit: mem.MemoryEdit) -> mem.Memory:
        """Correct a memory in place (NotFoundError if it does not exist)."""
        return await self.memory.update_memory(memory_id, edit)

    async def forget_memory(self, memory_id: str) -> None:
        """Forget a memory (NotFoundError if it does not exist)."""
        await self.memory.forget_memory(memory_id)

    async def list_memory_inbox(self) -> list[mem.MemoryCandidate]:
        """Extracted facts waiting for approval ("ask me first" mode)."""
        return await self.memory.list_memory_inbox()

    async def approve_memory(self, candidate_id: str) -> mem.Memory:
        """Store an inbox entry as a memory (NotFoundError if it does not exist)."""
        return await self.memory.approve_memory(candidate_id)

    async def reject_memory(self, candidate_id: str) -> None:
        """Drop an inbox entry (NotFoundError if it does not exist)."""
        await self.memory.reject_memory(candidate_id)

    def _settings_access(self) -> SettingsAccess:
        return _present(
            self._settings,
            AriaError(
                "Settings cannot be read or changed through this assistant.",
                hint="Edit the settings file (`aria config path`) instead.",
            ),
        )

    async def get_settings(self) -> dict[str, Any]:
        """Every setting (no secrets), read fresh from the settings file."""
        return await asyncio.to_thread(self._settings_access().current)

    async def update_settings(self, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Validate and save ``changes`` all at once (ConfigError: nothing saved).

        With ``settings_saved`` set, the change is applied before this returns.
        """
        current = await asyncio.to_thread(self._settings_access().update, dict(changes))
        if self.settings_saved is not None:
            await self.settings_saved(changes)
        return current


_T = TypeVar("_T")


def _present(part: _T | None, missing: AriaError) -> _T:
    """``part``, or ``missing`` raised when this assistant was built without it."""
    if part is None:
        raise missing
    return part
