"""Long-term memory in conversations: recall into prompts, fact extraction, tools, lifecycle.

``MemoryService`` plugs into the orchestrator through its extension points:

* a **context provider** recalls the top memories for the user's message and puts them in the
  prompt as fenced data (``<memories> … </memories>``): memory text came from users, models or
  the screen, so it is presented as facts, never as instructions, and it can never change
  what tools are allowed (the policy hook decides that, outside the model);
* a **turn observer** asks the model (agent ``extract``) after each completed turn for at most
  a few durable facts from the user's message, as structured output validated against a
  schema with one repair attempt (``core/structured.py``); trivial chatter, private
  conversations and disabled extraction yield nothing, and output still malformed after the
  repair stores nothing and is logged. In "ask me first" mode candidates go to an inbox instead;
* tools ``remember``, ``recall`` and ``forget`` (``forget`` is consequential: the user confirms;
  ``core/memory/tools.py``);
* a background task that lets confidence of never-used memories decay slowly.

It also carries the memory half of the ``Assistant`` API used by front-ends.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aria_desktop.core.bus import EventBus
from aria_desktop.core.memory.extraction_text import (
    EXTRACTION_PROMPT,
    EXTRACTION_SCHEMA,
    is_trivial,
    parse_extraction,
)
from aria_desktop.core.memory.recall_text import fence_memories, memories_message, one_line
from aria_desktop.core.memory.tools import memory_tools
from aria_desktop.core.memory.usage import used_memories
from aria_desktop.core.ports import ChatModel, ConversationStore, MemoryStore
from aria_desktop.core.structured import structured_reply
from aria_desktop.core.tools import Tool
from aria_desktop.domain import memory as mem
from aria_desktop.domain.chat import (
    CapabilityStatus,
    ChatMessage,
    ChatRequest,
)
from aria_desktop.domain.commands import ForgetMemory
from aria_desktop.domain.errors import AriaError, MemoryInvalidError, NotFoundError
from aria_desktop.domain.intents import SKILLS_BACKEND
from aria_desktop.domain.memory_events import MemoryChanged
from aria_desktop.domain.memory_reflection import MemoryStats, TurnReflection, summarise
from aria_desktop.domain.memory_tiers import MemoryTierChange

if TYPE_CHECKING:
    from aria_desktop.core.memory.episodes import EpisodeKeeper
    from aria_desktop.core.orchestrator import Orchestrator, TurnOutcome

__all__ = [
    "EXTRACTION_SCHEMA",
    "MemoryConfig",
    "MemoryService",
    "fence_memories",
    "is_trivial",
    "parse_extraction",
]

_LOGGER = logging.getLogger(__name__)

_DAY_S = 86_400.0
_RECALLS_KEPT = 64
"""Conversations whose last recall is kept for their turn's co-use (the oldest go first)."""


@dataclass(frozen=True, kw_only=True)
class MemoryConfig:
    """Memory behaviour (from ``settings.memory``).

    Attributes:
        auto_extract: mine each completed turn for facts.
        ask_first: put extracted facts in the inbox instead of storing them.
        recall_limit: memories added to each prompt (0: no recall).
        recall_min_similarity: vector-only hits below this cosine are not recalled.
        recall_associates: memories strongly associated with the hits brought in besides.
        bootstrap_chars: prompt room (characters, ~4 per token) for the memories every turn
            starts with whatever it asks: stable ones first, then thread (0: none).
        max_facts_per_turn: most facts taken from one turn.
        private_conversations: conversation ids never mined.
        private_sources: turn sources / app names never mined.
        decay_after_days, decay_per_day, min_confidence: confidence decay of never-used
            memories (days; confidence per day; floor).
        decay_interval_s: how often decay runs, seconds.
        extract_timeout_s: longest an extraction may take, seconds.
    """

    auto_extract: bool = True
    ask_first: bool = False
    recall_limit: int = 5
    recall_associates: int = 2
    bootstrap_chars: int = 1200
    recall_min_similarity: float = 0.25
    max_facts_per_turn: int = 3
    private_conversations: frozenset[str] = frozenset()
    private_sources: frozenset[str] = frozenset()
    decay_after_days: float = 30.0
    decay_per_day: float = 0.002
    min_confidence: float = 0.2
    decay_interval_s: float = 6 * 3600.0
    extract_timeout_s: float = 120.0


class MemoryService:
    """Recall, extraction, tools and the front-end API of long-term memory."""

    def __init__(
        self,
        *,
        store: MemoryStore,
        model: ChatModel,
        conversations: ConversationStore | None = None,
        bus: EventBus | None = None,
        config: MemoryConfig | None = None,
        episodes: EpisodeKeeper | None = None,
    ) -> None:
        """Wire to a store and the model used for extraction (agent ``extract``).

        ``episodes`` keeps an episode per conversation (``core/memory/episodes.py``).
        """
        self.store = store
        self._model = model
        self._conversations = conversations
        self._bus = bus
        self.config = config or MemoryConfig()
        self.episodes = episodes
        self._spawn: Callable[..., Any] | None = None
        # The memories the last recall of each conversation gave (for its turn's co-use).
        self._recalled: OrderedDict[str, tuple[list[mem.Memory], float]] = OrderedDict()

    # --- orchestrator wiring --------------------------------------------------------------

    def install(self, orchestrator: Orchestrator) -> None:
        """Register the context provider, turn observer, tools, capability and decay task."""
        if self._bus is None:
            self._bus = orchestrator.bus
        if self._conversations is None:
            self._conversations = orchestrator.store
        self._spawn = orchestrator.spawn
        orchestrator.add_context_provider(self.recall_context)
        orchestrator.add_turn_observer(self.on_turn)
        for tool in self.tools():
            orchestrator.tools.register(tool)
        orchestrator.register_capability("memory", self.capability)
        self.install_forget_command(orchestrator)
        orchestrator.spawn(self.decay_forever(), name="aria-memory-decay")
        if self.episodes is not None:
            orchestrator.spawn(self.episodes.run_forever(), name="aria-memory-episodes")

    def install_forget_command(self, orchestrator: Orchestrator) -> None:
        """Handle ``ForgetMemory``: forget only after the user confirms out of band."""

        async def forget_confirmed(command: ForgetMemory) -> bool:
            memory = await self.store.get(command.memory_id)
            if memory is None:
                raise NotFoundError(f"No memory with id {command.memory_id!r}.")
            outcome = await orchestrator.confirmations.request(
                run_id=None,
                tool="forget",
                summary=f"Forget: {memory.content[:200]}",
                reason=f"requested by {command.requested_by}",
                timeout_s=orchestrator.config.confirm_timeout_s,
            )
            if outcome.approved:
                await self.forget_memory(command.memory_id)
            return outcome.approved

        orchestrator.register_command(ForgetMemory, forget_confirmed)

    def capability(self) -> CapabilityStatus:
        """Memory is always usable; without vectors it says so."""
        if self.store.vector_search_available:
            return CapabilityStatus(name="memory", available=True)
        return CapabilityStatus(
            name="memory", available=True, reason=f"keyword search only: {self.store.vector_status}"
        )

    # --- recall ---------------------------------------------------------------------------

    async def recall_context(self, text: str, conversation_id: str) -> list[ChatMessage]:
        """The memories for a turn as one fenced system message (none: no message).

        The top hits for ``text`` (and their strong associates) first, then the memories a
        conversation starts with by tier (``bootstrap_chars``): stable facts about the user
        before thread ones, so what ARIA knows for sure is there even when a question does
        not name it. Only the hits count as used (access statistics).
        """
        if self.config.recall_limit <= 0 or not text.strip():
            return []
        # This runs before the model request, so it must be quick: an empty store costs no
        # embedding, and access statistics are written after the prompt has gone out.
        started = time.perf_counter()
        if not await self.store.has_active():
            return []
        hits = await self.store.search(
            mem.MemoryQuery(
                text=text,
                limit=self.config.recall_limit,
                min_similarity=self.config.recall_min_similarity,
                touch=False,
                associates=self.config.recall_associates,
            )
        )
        start = await self.store.bootstrap(self.config.bootstrap_chars)
        episode = await self.episodes.recall(text) if self.episodes is not None else None
        if hits:
            ids = [hit.memory.id for hit in hits]
            if self._spawn is not None:
                self._spawn(self.store.touch(ids), name="aria-memory-touch")
            else:
                await self.store.touch(ids)
        seen = {hit.memory.id for hit in hits}
        recalled = [hit.memory for hit in hits] + [m for m in start if m.id not in seen]
        if not recalled and episode is None:
            return []
        load_ms = (time.perf_counter() - started) * 1000
        self._recalled[conversation_id] = (recalled, load_ms)
        self._recalled.move_to_end(conversation_id)
        while len(self._recalled) > _RECALLS_KEPT:
            self._recalled.popitem(last=False)
        linked = {hit.memory.id: hit.associated_with for hit in hits if hit.associated_with}
        return [memories_message(recalled, linked, episode)]

    # --- extraction -----------------------------------------------------------------------

    def should_mine(self, outcome: TurnOutcome) -> bool:
        """Whether a finished turn may be mined for facts (and why not, in the log)."""
        if not self.config.auto_extract or outcome.status != "complete":
            return False
        if outcome.backend == SKILLS_BACKEND:
            return False  # a command holds no fact, and "remember that …" was stored as said
        if self._private(outcome):
            _LOGGER.debug("Not mining private turn %s (%s)", outcome.run_id, outcome.source)
            return False
        return not is_trivial(outcome.user_text)

    async def on_turn(self, outcome: TurnOutcome) -> None:
        """Turn observer: reflect on the recall (and link what was used), then extract facts.

        Errors are logged, not raised.
        """
        await self._reflect(outcome)
        if (
            self.episodes is not None
            and outcome.status == "complete"
            and not self._private(outcome)
        ):
            self.episodes.note_turn(outcome.conversation_id)
        if not self.should_mine(outcome):
            return
        try:
            async with asyncio.timeout(self.config.extract_timeout_s):
                await self.extract(outcome.user_text, conversation_id=outcome.conversation_id)
        except TimeoutError:
            _LOGGER.warning("Memory extraction timed out for turn %s", outcome.run_id)
        except AriaError as exc:
            _LOGGER.warning("Memory extraction failed for turn %s: %s", outcome.run_id, exc)

    def _private(self, outcome: TurnOutcome) -> bool:
        """A turn nothing may be kept from (no episode, no links)."""
        config = self.config
        return (
            outcome.private
            or outcome.conversation_id in config.private_conversations
            or outcome.source in config.private_sources
        )

    async def _reflect(self, outcome: TurnOutcome) -> None:
        """Keep how well recall served the finished turn; link the memories it used together.

        The reflection (loaded, used, load time) is counts only; co-use is not recorded for
        private turns.
        """
        recalled, load_ms = self._recalled.pop(outcome.conversation_id, ([], 0.0))
        if not recalled or outcome.status != "complete":
            return
        used = used_memories(outcome.answer, recalled)
        private = self._private(outcome)
        turn = TurnReflection(
            conversation_id=outcome.conversation_id,
            run_id=outcome.run_id,
            at=time.time(),
            loaded=len(recalled),
            used=len(used),
            load_ms=load_ms,
        )
        try:
            await self.store.record_reflection(turn)
            if len(used) >= 2 and not private:
                await self.store.associate([m.id for m in used], outcome.conversation_id)
        except AriaError as exc:
            _LOGGER.warning("Could not record how memory served turn %s: %s", outcome.run_id, exc)

    async def memory_stats(self, last: int = 10) -> MemoryStats:
        """How well memory served the latest ``last`` conversations, and the trend."""
        return summarise(await self.store.reflection_turns(2 * last), last)

    async def extract(self, user_text: str, *, conversation_id: str | None = None) -> int:
        """Ask the model for durable facts in ``user_text`` and store (or queue) them.

        Returns:
            How many facts were stored or put in the inbox.

        Raises:
            StructuredOutputError: the model's answer, and its one repair, failed the schema
                (nothing is stored).
        """
        known: list[mem.MemoryHit] = []
        if await self.store.has_active():  # an empty store needs no query embedding
            known = await self.store.search(mem.MemoryQuery(text=user_text, limit=5, touch=False))
        known_ids = {hit.memory.id for hit in known}
        known_text = "\n".join(
            f"- [{h.memory.id}] (about {one_line(h.memory.subject)}) {one_line(h.memory.content)}"
            for h in known
        )
        prompt = EXTRACTION_PROMPT.format(
            max_facts=self.config.max_facts_per_turn, known=known_text or "(none)"
        )
        request = ChatRequest(
            messages=(
                ChatMessage(role="system", content=prompt),
                ChatMessage(role="user", content=f"<message>\n{user_text}\n</message>"),
            ),
            max_tokens=600,
            temperature=0.0,
        )
        # Structured output with one repair; still invalid raises StructuredOutputError and
        # nothing is stored (ARCHITECTURE.md: structured output).
        reply = await structured_reply(
            self._model, request, schema=EXTRACTION_SCHEMA, name="memory_facts", agent="extract"
        )
        facts: list[dict[str, Any]] = reply["facts"]
        message_ids = await self._user_message_ids(conversation_id, user_text)
        stored = 0
        learned: list[str] = []
        for fact in facts[: self.config.max_facts_per_turn]:
            supersedes = fact.get("supersedes")
            if supersedes not in known_ids:
                supersedes = None  # only memories the model was shown can be replaced
            draft = mem.MemoryDraft(
                content=fact["content"],
                kind=fact.get("kind", "fact"),
                subject=fact.get("subject", "user"),
                topic=fact.get("topic", ""),
                importance=float(fact.get("importance", 0.5)),
                confidence=0.8,
                provenance="conversation",
                conversation_id=conversation_id,
                message_ids=message_ids,
                supersedes=supersedes,
            )
            try:
                if self.config.ask_first:
                    candidate = await self.store.add_candidate(draft)
                    if candidate is not None:
                        stored += 1
                        self._publish(candidate.id, "inbox", candidate.content, conversation_id)
                else:
                    memory, action = await self.store.add(draft)
                    stored += 1
                    learned.append(memory.id)
                    self._publish(memory.id, action, memory.content, conversation_id)
            except MemoryInvalidError as exc:
                _LOGGER.warning("Ignoring an extracted fact: %s", exc)
        if learned and conversation_id is not None:
            # Learned in one conversation: linked to each other and to what it taught before.
            await self.store.associate_in_conversation(learned, conversation_id)
        return stored

    async def _user_message_ids(self, conversation_id: str | None, text: str) -> tuple[int, ...]:
        if conversation_id is None or self._conversations is None:
            return ()
        try:
            recent = await self._conversations.list_messages(conversation_id, limit=20)
        except AriaError as exc:
            _LOGGER.debug("Could not look up the message ids: %s", exc)
            return ()
        for message in reversed(recent):
            if message.role == "user" and message.content == text:
                return (message.id,)
        return ()

    # --- lifecycle ------------------------------------------------------------------------

    async def run_decay(self, now: float | None = None) -> int:
        """Apply confidence decay once; returns how many memories decayed."""
        config = self.config
        return await self.store.decay(
            after_days=config.decay_after_days,
            per_day=config.decay_per_day,
            floor=config.min_confidence,
            now=now,
        )

    async def decay_forever(self) -> None:
        """Run decay now and then every ``decay_interval_s`` (until cancelled)."""
        while True:
            try:
                decayed = await self.run_decay()
                if decayed:
                    _LOGGER.info("Confidence decayed for %d unused memories", decayed)
            except AriaError as exc:
                _LOGGER.warning("Memory decay failed: %s", exc)
            await asyncio.sleep(self.config.decay_interval_s)

    # --- tools ----------------------------------------------------------------------------

    def tools(self) -> list[Tool]:
        """``remember``, ``recall`` and ``forget`` for the model (``core/memory/tools.py``)."""
        return memory_tools(
            self.store,
            min_similarity=lambda: self.config.recall_min_similarity,
            saved=lambda memory_id, action, content: self._publish(
                memory_id, action, content, None
            ),
            forget=self.forget_memory,
        )

    # --- front-end API --------------------------------------------------------------------

    async def search_memories(self, query: mem.MemoryQuery) -> list[mem.MemoryHit]:
        """Hybrid search (updates access statistics unless ``query.touch`` is False).

        A search among active memories of a store that holds none answers at once: embedding
        the query would load the embedding model for nothing (ARCHITECTURE.md: start-up cost).
        """
        if tuple(query.statuses) == ("active",) and not await self.store.has_active():
            return []
        return await self.store.search(query)

    async def list_memories(
        self, which: mem.MemoryFilter = mem.ACTIVE_MEMORIES
    ) -> list[mem.Memory]:
        """Memories newest first, as ``which`` asks.

        Raises:
            MemoryInvalidError: the filter names an unknown kind or status.
        """
        return await self.store.list_memories(which)

    async def get_memory(self, memory_id: str) -> mem.Memory | None:
        """One memory, or None."""
        return await self.store.get(memory_id)

    async def _require(self, memory_id: str) -> None:
        """Raise NotFoundError when there is no memory ``memory_id``."""
        if await self.store.get(memory_id) is None:
            raise NotFoundError(
                f"There is no memory {memory_id!r}.", hint="List them with `aria memory list`."
            )

    async def memory_associations(self, memory_id: str) -> list[mem.MemoryAssociation]:
        """The memories used together with one, strongest first.

        Raises:
            NotFoundError: there is no such memory.
        """
        await self._require(memory_id)
        return await self.store.associations(memory_id)

    async def memory_tier_changes(self, memory_id: str) -> list[MemoryTierChange]:
        """How a memory moved between tiers and why, oldest first.

        Raises:
            NotFoundError: there is no such memory.
        """
        await self._require(memory_id)
        return await self.store.tier_changes(memory_id)

    async def add_memory(self, new: mem.NewMemory) -> mem.Memory:
        """Remember ``new`` (a near-duplicate reinforces the existing memory instead)."""
        memory, action = await self.store.add(mem.MemoryDraft.of(new))
        self._publish(memory.id, action, memory.content, None)
        return memory

    async def update_memory(self, memory_id: str, edit: mem.MemoryEdit) -> mem.Memory:
        """Correct a memory in place (fields left None stay as they are)."""
        memory = await self.store.update(memory_id, edit)
        self._publish(memory.id, "updated", memory.content, None)
        return memory

    async def forget_memory(self, memory_id: str) -> None:
        """Forget a memory (NotFoundError when there is none)."""
        memory = await self.store.forget(memory_id)
        self._publish(memory.id, "forgotten", memory.content, None)

    async def list_memory_inbox(self) -> list[mem.MemoryCandidate]:
        """Extracted facts waiting for approval, oldest first."""
        return await self.store.list_candidates()

    async def approve_memory(self, candidate_id: str) -> mem.Memory:
        """Store an inbox entry as a memory."""
        memory, action = await self.store.approve_candidate(candidate_id)
        self._publish(memory.id, action, memory.content, memory.conversation_id)
        return memory

    async def reject_memory(self, candidate_id: str) -> None:
        """Drop an inbox entry."""
        await self.store.reject_candidate(candidate_id)
        self._publish(candidate_id, "rejected", "", None)

    def _publish(
        self,
        memory_id: str,
        action: mem.MemoryAction | str,
        content: str,
        conversation_id: str | None,
    ) -> None:
        if self._bus is not None:
            self._bus.publish(
                MemoryChanged(
                    memory_id=memory_id,
                    action=action,
                    content=content,
                    conversation_id=conversation_id,
                )
            )
