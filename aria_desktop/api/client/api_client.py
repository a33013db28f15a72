"""``ApiClient``: the ``core.ports.Assistant`` of an ARIA running in another process.

``aria chat``, ``aria conversations`` and ``aria desktop --attach`` use it when a daemon or the
tray app owns the data: the same calls as ``LocalAssistant``, carried over the local HTTP API
by one ``ApiTransport`` (httpx; ``transport.py``), with events from ``GET /api/v1/events``
decoded back into domain events (``subscription.py``). The client composes the transport with
the knowledge base (``knowledge.py``) and its subscriptions, which depend on the transport only.

Every CLI command that goes through a running owner imports this module, so it imports only
what each call needs when the call is made: the operation tables of turns, conversations and
commands (``api.operations``), the event stream and the ``core.ports`` protocols are loaded on
first use, and the type-only imports below serve annotations (ARCHITECTURE.md: start-up cost).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, Unpack, cast

from aria_desktop.api.client.operations.base import Operation
from aria_desktop.api.client.transport import ApiTransport, TransportOptions
from aria_desktop.domain import memory as mem
from aria_desktop.domain.episodes import Episode, MemorySource
from aria_desktop.domain.errors import AriaError, NotFoundError
from aria_desktop.domain.memory_reflection import MemoryStats
from aria_desktop.domain.memory_tiers import MemoryTierChange

if TYPE_CHECKING:
    from aria_desktop.api.client.knowledge import KnowledgeClient
    from aria_desktop.api.client.lists import ListsClient
    from aria_desktop.api.client.reminders import RemindersClient
    from aria_desktop.api.client.subscription import ApiSubscription
    from aria_desktop.api.client.timers import TimersClient
    from aria_desktop.core.ports import Assistant
    from aria_desktop.domain.chat import CapabilityStatus, Conversation, StoredMessage, TurnStarted
    from aria_desktop.domain.commands import Command, ConfirmAction, StartTurn
    from aria_desktop.domain.events import AssistantState
    from aria_desktop.domain.settings_problems import SettingsProblem

__all__ = ["ApiClient"]

_PAGE = 500
_A = TypeVar("_A")
_R = TypeVar("_R")


class ApiClient:
    """An ``Assistant`` over the local HTTP API of a running ARIA.

    Args:
        base_url: e.g. ``http://127.0.0.1:8731``.
        token: the API token (read from the token file by the caller; never from argv).
        **options: ``timeout_s`` (per-request, seconds) and ``token_file`` (re-read once after
            a 401, so a rotation does not cut the client off), as :class:`ApiTransport`.
    """

    def __init__(self, base_url: str, token: str, **options: Unpack[TransportOptions]) -> None:
        self._transport = ApiTransport(base_url, token, **options)
        self.base_url = self._transport.base_url
        self._state: AssistantState = "offline"
        self._settings_problems: tuple[SettingsProblem, ...] = ()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every subscription and the connection pool."""
        await self._transport.aclose()

    async def call(self, operation: Operation[_A, _R], arg: _A) -> _R:
        """Carry out one operation of the table in ``api.operations`` for ``arg``."""
        return await self._transport.call(operation, arg)

    async def _call_or_none(self, operation: Operation[_A, _R], arg: _A) -> _R | None:
        try:
            return await self.call(operation, arg)
        except NotFoundError:
            return None

    async def connect(self) -> None:
        """Check that the owner answers and accepts our token (and learn its state)."""
        await self.refresh_state()

    async def refresh_state(self) -> AssistantState:
        """Ask the owner for its state now."""
        from aria_desktop.api.client.operations.control import STATE

        state, self._settings_problems = await self.call(STATE, None)
        self._state = cast("AssistantState", state)
        return self._state

    @property
    def settings_problems(self) -> tuple[SettingsProblem, ...]:
        """What the owner could not use in its settings (as of ``connect``/``refresh_state``)."""
        return self._settings_problems

    @property
    def state(self) -> AssistantState:
        """The last state seen (from ``connect`` or a subscription's state-changed events)."""
        return self._state

    def subscribe(self, *, types: frozenset[str] | None = None) -> ApiSubscription:
        """Events from now on (connecting in the background)."""
        from aria_desktop.api.client.subscription import ApiSubscription  # a subscriber's cost only

        return ApiSubscription(self._transport, on_state=self._saw_state, types=types)

    def _saw_state(self, state: AssistantState) -> None:
        self._state = state

    async def start_turn(self, command: StartTurn) -> TurnStarted:
        """Start a turn once open subscriptions are connected (so none misses its events)."""
        from aria_desktop.api.client.operations.chat import START_TURN

        return await self.call(START_TURN, command)

    async def cancel_turn(self, run_id: str | None = None) -> int:
        """Cancel one turn, or all when ``run_id`` is None."""
        from aria_desktop.api.client.operations.chat import CANCEL_TURN

        return await self.call(CANCEL_TURN, run_id)

    async def confirm_action(self, command: ConfirmAction) -> None:
        """Answer a confirmation request (ConfirmationError when refused)."""
        from aria_desktop.api.client.operations.chat import CONFIRM_ACTION

        await self.call(CONFIRM_ACTION, command)

    async def execute(self, command: Command) -> Any:
        """The commands the API carries (``api.operations.COMMANDS``).

        They return what the in-process handlers return: StopEverything, StopRinging,
        RunAutomation, ListAutomations, the voice commands Speak, Transcribe and PushToTalk,
        and the computer-use commands CaptureScreen, ReadScreen, FindOnScreen, ClickText,
        RunComputerTask and SetComputerControl.
        """
        from aria_desktop.api.client.operations.commands import COMMANDS

        operation = COMMANDS.get(type(command))
        if operation is None:
            raise AriaError(
                f"{type(command).__name__} cannot be sent to a running ARIA over its API yet.",
                hint="Use the tray app, or update ARIA.",
            )
        return await self.call(operation, command)

    async def capabilities(self) -> list[CapabilityStatus]:
        """Which capabilities the owner can use now."""
        from aria_desktop.api.client.operations.chat import CAPABILITIES

        return await self.call(CAPABILITIES, None)

    async def create_conversation(self, title: str) -> Conversation:
        """A new, empty conversation."""
        from aria_desktop.api.client.operations.chat import CREATE_CONVERSATION

        return await self.call(CREATE_CONVERSATION, title)

    async def list_conversations(self, *, limit: int = 50, offset: int = 0) -> list[Conversation]:
        """Conversations, most recently updated first."""
        from aria_desktop.api.client.operations.chat import LIST_CONVERSATIONS

        return await self.call(LIST_CONVERSATIONS, (limit, offset))

    async def get_conversation(self, conversation_id: str) -> Conversation | None:
        """One conversation, or None."""
        from aria_desktop.api.client.operations.chat import GET_CONVERSATION

        return await self._call_or_none(GET_CONVERSATION, conversation_id)

    async def rename_conversation(self, conversation_id: str, title: str) -> None:
        """Change a conversation's title (NotFoundError if it does not exist)."""
        from aria_desktop.api.client.operations.chat import RENAME_CONVERSATION

        await self.call(RENAME_CONVERSATION, (conversation_id, title))

    async def delete_conversation(self, conversation_id: str) -> None:
        """Delete a conversation and its messages (NotFoundError if it does not exist)."""
        from aria_desktop.api.client.operations.chat import DELETE_CONVERSATION

        await self.call(DELETE_CONVERSATION, conversation_id)

    async def end_conversation(self, conversation_id: str) -> Episode | None:
        """The user is done with a conversation: the owner keeps its episode now."""
        from aria_desktop.api.client.operations.chat import END_CONVERSATION

        return await self.call(END_CONVERSATION, conversation_id)

    async def list_messages(
        self, conversation_id: str, *, limit: int | None = None, before_id: int | None = None
    ) -> list[StoredMessage]:
        """Messages oldest first; with ``limit``, the newest ``limit`` before ``before_id``."""
        from aria_desktop.api.client.operations.chat import MESSAGES_PAGE

        collected: list[StoredMessage] = []
        while True:
            page = min(limit - len(collected), _PAGE) if limit is not None else _PAGE
            params: dict[str, Any] = {"limit": page}
            if before_id is not None:
                params["before_id"] = before_id
            messages, before_id = await self.call(MESSAGES_PAGE, (conversation_id, params))
            collected[:0] = messages
            if before_id is None or (limit is not None and len(collected) >= limit):
                return collected

    # --- knowledge base ---------------------------------------------------------------------

    @property
    def knowledge(self) -> KnowledgeClient:
        """The owner's knowledge base (``core.ports.KnowledgeAccess``) over this client."""
        from aria_desktop.api.client.knowledge import KnowledgeClient

        return KnowledgeClient(self._transport)

    @property
    def lists(self) -> ListsClient:
        """The owner's lists (``core.ports.ListAccess``) over this client."""
        from aria_desktop.api.client.lists import ListsClient

        return ListsClient(self._transport)

    @property
    def timers(self) -> TimersClient:
        """The owner's timers (``core.ports.TimerAccess``) over this client."""
        from aria_desktop.api.client.timers import TimersClient

        return TimersClient(self._transport)

    @property
    def reminders(self) -> RemindersClient:
        """The owner's reminders and alarms (``core.ports.ReminderAccess``) over this client."""
        from aria_desktop.api.client.reminders import RemindersClient

        return RemindersClient(self._transport)

    # --- long-term memory -------------------------------------------------------------------

    async def search_memories(self, query: mem.MemoryQuery) -> list[mem.MemoryHit]:
        """Hybrid keyword + vector search on the owner (``mode`` and ``touch`` are its own)."""
        from aria_desktop.api.client.operations.memory import SEARCH_MEMORIES

        return await self.call(SEARCH_MEMORIES, query)

    async def list_memories(
        self, which: mem.MemoryFilter = mem.ACTIVE_MEMORIES
    ) -> list[mem.Memory]:
        """Memories newest first, filtered."""
        from aria_desktop.api.client.operations.memory import LIST_MEMORIES

        return await self.call(LIST_MEMORIES, which)

    async def get_memory(self, memory_id: str) -> mem.Memory | None:
        """One memory (any status), or None."""
        from aria_desktop.api.client.operations.memory import GET_MEMORY

        return await self._call_or_none(GET_MEMORY, memory_id)

    async def memory_associations(self, memory_id: str) -> list[mem.MemoryAssociation]:
        """The memories used together with one, strongest first (NotFoundError: no such)."""
        from aria_desktop.api.client.operations.memory import MEMORY_ASSOCIATIONS

        return await self.call(MEMORY_ASSOCIATIONS, memory_id)

    async def memory_tier_changes(self, memory_id: str) -> list[MemoryTierChange]:
        """How a memory moved between tiers and why, oldest first (NotFoundError: no such)."""
        from aria_desktop.api.client.operations.memory import MEMORY_TIER_CHANGES

        return await self.call(MEMORY_TIER_CHANGES, memory_id)

    async def memory_stats(self, last: int = 10) -> MemoryStats:
        """How well memory served the latest ``last`` conversations, and the trend."""
        from aria_desktop.api.client.operations.memory import MEMORY_STATS

        return await self.call(MEMORY_STATS, last)

    async def list_episodes(self, query: str = "", limit: int = 20) -> list[Episode]:
        """Episodes about ``query`` (best first), or the latest ones (``query`` empty)."""
        from aria_desktop.api.client.operations.memory import EPISODES

        return await self.call(EPISODES, (query, limit))

    async def get_episode(self, episode_id: str) -> Episode | None:
        """One episode, or None."""
        from aria_desktop.api.client.operations.memory import GET_EPISODE

        return await self._call_or_none(GET_EPISODE, episode_id)

    async def memory_sources(self, memory_id: str) -> list[MemorySource]:
        """The conversations that taught or confirmed a memory (NotFoundError: no such)."""
        from aria_desktop.api.client.operations.memory import MEMORY_SOURCES

        return await self.call(MEMORY_SOURCES, memory_id)

    async def add_memory(self, new: mem.NewMemory) -> mem.Memory:
        """Remember ``new`` on the owner (its provenance there is ``api``)."""
        from aria_desktop.api.client.operations.memory import ADD_MEMORY

        return await self.call(ADD_MEMORY, new)

    async def update_memory(self, memory_id: str, edit: mem.MemoryEdit) -> mem.Memory:
        """Correct a memory in place (NotFoundError if it does not exist)."""
        from aria_desktop.api.client.operations.memory import UPDATE_MEMORY

        return await self.call(UPDATE_MEMORY, (memory_id, edit))

    async def forget_memory(self, memory_id: str) -> None:
        """Forget a memory (NotFoundError if it does not exist)."""
        from aria_desktop.api.client.operations.memory import FORGET_MEMORY

        await self.call(FORGET_MEMORY, memory_id)

    async def list_memory_inbox(self) -> list[mem.MemoryCandidate]:
        """Extracted facts waiting for approval."""
        from aria_desktop.api.client.operations.memory import MEMORY_INBOX

        return await self.call(MEMORY_INBOX, None)

    async def approve_memory(self, candidate_id: str) -> mem.Memory:
        """Store an inbox entry as a memory (NotFoundError if it does not exist)."""
        from aria_desktop.api.client.operations.memory import APPROVE_MEMORY

        return await self.call(APPROVE_MEMORY, candidate_id)

    async def reject_memory(self, candidate_id: str) -> None:
        """Drop an inbox entry (NotFoundError if it does not exist)."""
        from aria_desktop.api.client.operations.memory import REJECT_MEMORY

        await self.call(REJECT_MEMORY, candidate_id)

    async def get_settings(self) -> dict[str, Any]:
        """Every setting of the owner (no secrets)."""
        from aria_desktop.api.client.operations.control import GET_SETTINGS

        return await self.call(GET_SETTINGS, None)

    async def update_settings(self, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Validate and save ``changes`` on the owner; applied after it restarts."""
        from aria_desktop.api.client.operations.control import UPDATE_SETTINGS

        return await self.call(UPDATE_SETTINGS, changes)


def _check_protocol(client: ApiClient) -> Assistant:
    """Never called: makes mypy prove that ApiClient satisfies the Assistant protocol."""
    return client
