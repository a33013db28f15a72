"""In-memory fakes of the core ports: a scripted chat model and the two stores.

Orchestrator and agent tests use these when the test is about core logic (event order, tool
execution, confirmations, persistence of a turn), so a test runs in milliseconds, touches no
socket or file, and fails only for a reason in the core. Adapter behaviour (HTTP streams,
router fallback, SQLite) is tested against the protocol test servers and the real database;
``tests/fakes/test_ports_contract.py`` runs the same checks against each fake and its real
adapter so that the two cannot drift apart.

Every fake is assigned to its protocol at the bottom of this module, so mypy proves it still
satisfies the port when the port changes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import re
import time
import uuid
from collections.abc import AsyncGenerator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, cast, get_args

from aria_desktop.core.ports import ChatModel, ConversationStore, MemoryStore
from aria_desktop.domain.chat import (
    ChatRequest,
    Conversation,
    LLMChunk,
    MessageBody,
    MessageStatus,
    NewMessage,
    Role,
    StoredMessage,
    StreamEnd,
    TextDelta,
    ToolCall,
    ToolCallChunk,
    ToolCallRecord,
    Usage,
)
from aria_desktop.domain.errors import MemoryInvalidError, NotFoundError, StorageError
from aria_desktop.domain.memory import (
    ACTIVE_MEMORIES,
    ASSOCIATION_MIN_COUNT,
    MEMORY_KINDS,
    Memory,
    MemoryAction,
    MemoryAssociation,
    MemoryCandidate,
    MemoryDraft,
    MemoryEdit,
    MemoryFilter,
    MemoryHit,
    MemoryKind,
    MemoryQuery,
    MemoryTier,
    unstorable_character,
)
from aria_desktop.domain.memory_reflection import TurnReflection
from aria_desktop.domain.memory_tiers import MemoryTierChange, next_tier

__all__ = [
    "Hang",
    "InMemoryConversationStore",
    "InMemoryMemoryStore",
    "Raise",
    "ReplyStep",
    "ScriptedChatModel",
    "text_reply",
    "tool_reply",
]

# --- chat model ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hang:
    """A reply step that never completes: the stream waits until it is closed or cancelled."""


@dataclass(frozen=True)
class Raise:
    """A reply step that raises ``error`` from the stream (an ``LLMError``, for instance)."""

    error: BaseException


ReplyStep = LLMChunk | Hang | Raise
"""One step of a scripted reply: a chunk to yield, a hang, or an error to raise."""


def text_reply(
    text: str,
    *,
    chunks: int = 1,
    backend: str = "fake",
    model: str = "fake-model",
    usage: Usage | None = None,
) -> list[ReplyStep]:
    """A streamed text answer in ``chunks`` deltas, ended by a ``StreamEnd``."""
    size = max(1, -(-len(text) // max(1, chunks)))
    deltas: list[ReplyStep] = [
        TextDelta(text=text[i : i + size]) for i in range(0, len(text), size)
    ]
    end = StreamEnd(backend=backend, model=model, usage=usage or Usage(), stop_reason="stop")
    return [*deltas, end]


def tool_reply(
    calls: Iterable[tuple[str, dict[str, object]]],
    *,
    ids: Iterable[str] | None = None,
    backend: str = "fake",
    model: str = "fake-model",
) -> list[ReplyStep]:
    """A reply that asks for tool calls (complete, as adapters yield them), then ends."""
    listed = list(calls)
    call_ids = list(ids) if ids is not None else [f"call_{uuid.uuid4().hex[:8]}" for _ in listed]
    steps: list[ReplyStep] = [
        ToolCallChunk(call=ToolCall(id=call_id, name=name, arguments=dict(arguments)))
        for call_id, (name, arguments) in zip(call_ids, listed, strict=True)
    ]
    steps.append(StreamEnd(backend=backend, model=model, stop_reason="tool_calls"))
    return steps


class ScriptedChatModel:
    """``ChatModel`` that plays scripted replies, one per ``stream`` call, in order.

    It records every request, and offers events that tests wait on instead of sleeping:
    ``hanging`` is set when a stream reaches a :class:`Hang` step (the model is "thinking"),
    ``closed`` when a stream was closed before its script ended (a cancelled turn).
    """

    def __init__(self, *replies: Sequence[ReplyStep]) -> None:
        self._replies: list[list[ReplyStep]] = [list(reply) for reply in replies]
        self.requests: list[ChatRequest] = []
        self.agents: list[str] = []
        self.hanging = asyncio.Event()
        self.closed = asyncio.Event()

    def script(self, *replies: Sequence[ReplyStep]) -> None:
        """Queue more replies, played after the ones already queued."""
        self._replies.extend(list(reply) for reply in replies)

    @property
    def pending(self) -> int:
        """Replies scripted but not yet streamed."""
        return len(self._replies)

    async def stream(
        self, request: ChatRequest, *, agent: str = "chat", backend: str | None = None
    ) -> AsyncGenerator[LLMChunk, None]:
        """Yield the next scripted reply's chunks (``ChatModel.stream``)."""
        self.requests.append(request)
        self.agents.append(agent)
        if not self._replies:
            raise AssertionError(f"no reply scripted for request {len(self.requests)}")
        steps = self._replies.pop(0)
        finished = False
        try:
            for step in steps:
                if isinstance(step, Hang):
                    self.hanging.set()
                    await asyncio.Event().wait()
                elif isinstance(step, Raise):
                    raise step.error
                else:
                    yield step
            finished = True
        finally:
            if not finished:
                self.closed.set()


# --- conversation store ---------------------------------------------------------------------

_FinishedStatus = Literal["ok", "error", "denied"]
_FINISHED_TOOL_STATUSES: frozenset[str] = frozenset(get_args(_FinishedStatus))


def _conversation_missing(conversation_id: str) -> NotFoundError:
    return NotFoundError(
        f"No conversation with id {conversation_id!r}.",
        hint="It may have been deleted; list conversations to pick an existing one.",
    )


@dataclass
class _StoredConversation:
    conversation: Conversation
    messages: list[StoredMessage] = field(default_factory=list)
    tool_calls: dict[str, ToolCallRecord] = field(default_factory=dict)


class InMemoryConversationStore:
    """``ConversationStore`` in dictionaries, with the SQLite store's rules.

    The same errors (``NotFoundError`` for a missing conversation, message or tool call;
    ``ValueError`` for a bad role, status or paging value), message ids increasing across
    conversations, ``updated_at`` bumped by new and updated messages but not by renaming, and a
    tool-call id executed once per conversation.

    Args:
        clock: wall-clock source for timestamps, UNIX seconds.
    """

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._conversations: dict[str, _StoredConversation] = {}
        self._message_ids = itertools.count(1)
        self._created = itertools.count()
        self._order: dict[str, int] = {}
        self._keys: dict[str, str] = {}

    def _get(self, conversation_id: str) -> _StoredConversation:
        stored = self._conversations.get(conversation_id)
        if stored is None:
            raise _conversation_missing(conversation_id)
        return stored

    def _touch(self, stored: _StoredConversation, now: float) -> None:
        stored.conversation = dataclasses.replace(stored.conversation, updated_at=now)

    def _view(self, stored: _StoredConversation) -> Conversation:
        return dataclasses.replace(stored.conversation, message_count=len(stored.messages))

    async def create_conversation(
        self, title: str, *, conversation_id: str | None = None
    ) -> Conversation:
        """Start an empty conversation with ``conversation_id`` or a fresh random id."""
        now = self._clock()
        conversation = Conversation(
            id=conversation_id or uuid.uuid4().hex, title=title, created_at=now, updated_at=now
        )
        if conversation.id in self._conversations:
            raise StorageError(f"conversation {conversation.id} exists already")
        self._conversations[conversation.id] = _StoredConversation(conversation)
        self._order[conversation.id] = next(self._created)
        return conversation

    async def get_conversation(self, conversation_id: str) -> Conversation | None:
        """The conversation with its message count, or None."""
        stored = self._conversations.get(conversation_id)
        return None if stored is None else self._view(stored)

    async def list_conversations(self, *, limit: int = 50, offset: int = 0) -> list[Conversation]:
        """Most recently active first; ties: newest created first."""
        if limit < 0 or offset < 0:
            raise ValueError("limit and offset must not be negative")
        ordered = sorted(
            self._conversations.values(),
            key=lambda s: (
                -s.conversation.updated_at,
                -s.conversation.created_at,
                -self._order[s.conversation.id],
            ),
        )
        return [self._view(s) for s in ordered[offset : offset + limit]]

    async def rename_conversation(self, conversation_id: str, title: str) -> None:
        """Change the title; not counted as activity."""
        stored = self._get(conversation_id)
        stored.conversation = dataclasses.replace(stored.conversation, title=title)

    async def delete_conversation(self, conversation_id: str) -> None:
        """Delete the conversation with its messages and tool calls."""
        self._get(conversation_id)
        del self._conversations[conversation_id]

    async def find_conversation_key(self, keys: Sequence[str]) -> tuple[str, str] | None:
        """The first of ``keys`` set for a conversation that still exists, with its id."""
        for key in keys:
            found = self._keys.get(key)
            if found is not None and found in self._conversations:
                return key, found
        return None

    async def set_conversation_key(self, key: str, conversation_id: str) -> None:
        """Let ``key`` name ``conversation_id``."""
        self._get(conversation_id)
        self._keys[key] = conversation_id

    async def add_message(self, conversation_id: str, message: NewMessage) -> StoredMessage:
        """Append a message and mark the conversation active."""
        if message.role not in get_args(Role):
            raise ValueError(f"Unknown message role {message.role!r}")
        if message.status not in get_args(MessageStatus):
            raise ValueError(f"Unknown message status {message.status!r}")
        stored = self._get(conversation_id)
        now = self._clock()
        saved = StoredMessage(
            id=next(self._message_ids),
            conversation_id=conversation_id,
            role=message.role,
            content=message.content,
            status=message.status,
            created_at=now,
            tool_calls=tuple(message.tool_calls),
            tool_call_id=message.tool_call_id,
            name=message.name,
            backend=message.backend,
            model=message.model,
            usage=message.usage or Usage(),
            thinking=message.thinking,
            error_code=message.error_code,
            error_message=message.error_message,
        )
        stored.messages.append(saved)
        self._touch(stored, now)
        return saved

    async def update_message(self, message_id: int, body: MessageBody) -> None:
        """Replace content, status and calls; backend, model and usage only when given."""
        if body.status not in get_args(MessageStatus):
            raise ValueError(f"Unknown message status {body.status!r}")
        for stored in self._conversations.values():
            for index, message in enumerate(stored.messages):
                if message.id != message_id:
                    continue
                stored.messages[index] = dataclasses.replace(
                    message,
                    content=body.content,
                    status=body.status,
                    tool_calls=tuple(body.tool_calls),
                    backend=body.backend or message.backend,
                    model=body.model or message.model,
                    usage=message.usage if body.usage is None else body.usage,
                    thinking=body.thinking or message.thinking,
                    error_code=body.error_code,
                    error_message=body.error_message,
                )
                self._touch(stored, self._clock())
                return
        raise NotFoundError(
            f"No message with id {message_id}.",
            hint="It may have been deleted with its conversation.",
        )

    async def list_messages(
        self, conversation_id: str, *, limit: int | None = None, before_id: int | None = None
    ) -> list[StoredMessage]:
        """Messages oldest first; with ``limit``, the newest ``limit`` (before ``before_id``)."""
        if limit is not None and limit < 0:
            raise ValueError("limit must not be negative")
        messages = self._get(conversation_id).messages
        if before_id is not None:
            messages = [m for m in messages if m.id < before_id]
        if limit is not None:
            messages = messages[len(messages) - limit :] if limit else []
        return list(messages)

    async def begin_tool_call(self, conversation_id: str, call: ToolCall) -> ToolCallRecord | None:
        """Record a call as pending; return the existing record if this id was seen before."""
        stored = self._get(conversation_id)
        existing = stored.tool_calls.get(call.id)
        if existing is not None:
            return existing
        stored.tool_calls[call.id] = ToolCallRecord(
            call_id=call.id,
            conversation_id=conversation_id,
            name=call.name,
            arguments=dict(call.arguments),
            status="pending",
        )
        return None

    async def finish_tool_call(
        self, conversation_id: str, call_id: str, *, status: str, result: str
    ) -> None:
        """Store a call's outcome (ok, error or denied) and its result text."""
        if status not in _FINISHED_TOOL_STATUSES:
            raise ValueError(
                f"A finished tool call's status must be ok, error or denied: {status!r}"
            )
        stored = self._conversations.get(conversation_id)
        record = None if stored is None else stored.tool_calls.get(call_id)
        if stored is None or record is None:
            raise NotFoundError(
                f"No tool call {call_id!r} in conversation {conversation_id!r}.",
                hint="Record the call with begin_tool_call before finishing it.",
            )
        stored.tool_calls[call_id] = dataclasses.replace(
            record, status=cast(_FinishedStatus, status), result=result
        )


# --- memory store ---------------------------------------------------------------------------

_WORD = re.compile(r"\w+")
_DAY_S = 86_400.0


def _words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text)}


def _normalised(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _check_memory_values(content: str | None, kind: str | None, importance: float | None) -> None:
    if content is not None and not content.strip():
        raise MemoryInvalidError("A memory needs some text.", hint="Say what to remember.")
    if content is not None and unstorable_character(content) is not None:
        raise MemoryInvalidError("The memory text holds a control character; it was not stored.")
    if kind is not None and kind not in MEMORY_KINDS:
        raise MemoryInvalidError(
            f"Unknown memory kind {kind!r}.", hint=f"Use one of: {', '.join(MEMORY_KINDS)}."
        )
    if importance is not None and not 0.0 <= importance <= 1.0:
        raise MemoryInvalidError(
            f"Importance must be between 0 and 1, not {importance}.", hint="Use 0.5 if unsure."
        )


def _kind(kind: str) -> MemoryKind:
    _check_memory_values(None, kind, None)
    return cast(MemoryKind, kind)


class InMemoryMemoryStore:
    """``MemoryStore`` in a dictionary: keyword-only search, the lifecycle rules of the port.

    An exact duplicate (same words, same subject) reinforces the memory it repeats; the same
    subject and non-empty topic with other content, or an explicit ``supersedes``, replaces
    the old memory (kept as ``superseded`` and linked). Search ranks active memories by how
    many query words they share (ties: importance, then newest), has no vector leg, and
    records access when the query says ``touch``.

    Args:
        clock: wall-clock source, UNIX seconds.
    """

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._memories: dict[str, Memory] = {}
        self._candidates: dict[str, MemoryCandidate] = {}
        self._decayed_at: dict[str, float] = {}
        self._pairs: dict[tuple[str, str], tuple[int, float, float, tuple[str, ...]]] = {}
        self._tier_changes: list[MemoryTierChange] = []
        self.reflections: list[TurnReflection] = []

    def _apply_tiers(self, ids: Iterable[str], now: float) -> None:
        """The port's tier rules (``domain/memory_tiers.py``), one step, with the history."""
        for memory_id in list(ids):
            memory = self._memories.get(memory_id)
            move = next_tier(memory, now) if memory is not None else None
            if memory is None or move is None:
                continue
            self._memories[memory_id] = dataclasses.replace(memory, tier=move.tier)
            self._tier_changes.append(
                MemoryTierChange(
                    memory_id=memory_id,
                    from_tier=memory.tier,
                    to_tier=move.tier,
                    reason=move.reason,
                    at=now,
                )
            )

    async def record_reflection(self, turn: TurnReflection) -> None:
        """Keep a turn's reflection."""
        self.reflections.append(turn)

    async def reflection_turns(self, conversations: int) -> list[TurnReflection]:
        """The reflections of the latest ``conversations`` conversations, oldest first."""
        latest: dict[str, float] = {}
        for turn in self.reflections:
            latest[turn.conversation_id] = max(latest.get(turn.conversation_id, 0.0), turn.at)
        keep = set(sorted(latest, key=latest.__getitem__, reverse=True)[:conversations])
        return sorted(
            (t for t in self.reflections if t.conversation_id in keep), key=lambda t: t.at
        )

    async def tier_changes(self, memory_id: str) -> list[MemoryTierChange]:
        """A memory's tier history, oldest first."""
        return [c for c in self._tier_changes if c.memory_id == memory_id]

    async def bootstrap(self, budget_chars: int) -> list[Memory]:
        """Stable, then thread memories (the user's first, then by importance) in the budget."""
        settled = [
            m for m in self._memories.values() if m.status == "active" and m.tier != "active"
        ]
        settled.sort(key=lambda m: (m.tier != "stable", m.subject.lower() != "user", -m.importance))
        chosen, left = [], budget_chars
        for memory in settled:
            if len(memory.content) + 48 <= left:
                chosen.append(memory)
                left -= len(memory.content) + 48
        return chosen

    @property
    def vector_search_available(self) -> bool:
        """Never: the fake searches by keywords only."""
        return False

    @property
    def vector_status(self) -> str:
        """Why there is no vector search."""
        return "off: in-memory test store (keyword search only)"

    def _require(self, memory_id: str) -> Memory:
        memory = self._memories.get(memory_id)
        if memory is None:
            raise NotFoundError(f"No memory with id {memory_id!r}.", hint="List memories.")
        return memory

    async def has_active(self) -> bool:
        """Whether any active memory exists."""
        return any(m.status == "active" for m in self._memories.values())

    async def touch(self, ids: Sequence[str]) -> None:
        """Record that these memories were used now."""
        now = self._clock()
        for memory_id in ids:
            memory = self._memories.get(memory_id)
            if memory is not None:
                self._memories[memory_id] = dataclasses.replace(
                    memory, last_accessed_at=now, access_count=memory.access_count + 1
                )
        self._apply_tiers(ids, now)

    async def add(self, draft: MemoryDraft) -> tuple[Memory, MemoryAction]:
        """Store a memory, reinforcing a duplicate or superseding what it replaces."""
        _check_memory_values(draft.content, draft.kind, draft.importance)
        now = self._clock()
        subject = draft.subject.lower()
        active = [m for m in self._memories.values() if m.status == "active"]
        for memory in active:
            same_subject = memory.subject.lower() == subject
            if same_subject and _normalised(memory.content) == _normalised(draft.content):
                reinforced = dataclasses.replace(
                    memory,
                    importance=max(memory.importance, draft.importance),
                    confidence=min(1.0, max(memory.confidence, draft.confidence) + 0.1),
                    topic=memory.topic or draft.topic,
                    updated_at=now,
                    reinforced_count=memory.reinforced_count + 1,
                )
                self._memories[memory.id] = reinforced
                self._decayed_at.pop(memory.id, None)
                self._apply_tiers([memory.id], now)
                return self._memories[memory.id], "reinforced"
        replaced = self._require(draft.supersedes) if draft.supersedes else None
        if replaced is None and draft.topic:
            replaced = next(
                (
                    m
                    for m in active
                    if m.subject.lower() == subject and m.topic.lower() == draft.topic.lower()
                ),
                None,
            )
        memory = Memory(
            id=f"mem_{uuid.uuid4().hex[:16]}",
            content=draft.content,
            kind=_kind(draft.kind),
            subject=draft.subject,
            topic=draft.topic,
            importance=draft.importance,
            confidence=draft.confidence,
            provenance=draft.provenance,
            conversation_id=draft.conversation_id,
            message_ids=tuple(draft.message_ids),
            created_at=now,
            updated_at=now,
            supersedes=replaced.id if replaced else None,
        )
        self._memories[memory.id] = memory
        if replaced is None:
            return memory, "added"
        self._memories[replaced.id] = dataclasses.replace(
            replaced, status="superseded", superseded_by=memory.id, updated_at=now
        )
        return memory, "superseded"

    async def update(self, memory_id: str, edit: MemoryEdit) -> Memory:
        """Edit a memory in place (the user correcting it)."""
        _check_memory_values(edit.content, edit.kind, edit.importance)
        memory = self._require(memory_id)
        updated = dataclasses.replace(
            memory,
            content=memory.content if edit.content is None else edit.content,
            kind=memory.kind if edit.kind is None else _kind(edit.kind),
            subject=memory.subject if edit.subject is None else edit.subject,
            importance=memory.importance if edit.importance is None else edit.importance,
            updated_at=self._clock(),
            tier=cast(MemoryTier, edit.tier or memory.tier),
            tier_pinned=edit.tier_pinned
            if edit.tier_pinned is not None
            else (edit.tier is not None or memory.tier_pinned),
        )
        self._memories[memory_id] = updated
        if (updated.tier, updated.tier_pinned) != (memory.tier, memory.tier_pinned):
            why = "pinned by the user" if updated.tier_pinned else "released by the user"
            self._tier_changes.append(
                MemoryTierChange(
                    memory_id=memory_id,
                    from_tier=memory.tier,
                    to_tier=updated.tier,
                    reason=why,
                    at=updated.updated_at,
                )
            )
        return updated

    async def forget(self, memory_id: str) -> Memory:
        """Mark a memory forgotten: search no longer finds it."""
        forgotten = dataclasses.replace(
            self._require(memory_id), status="forgotten", updated_at=self._clock()
        )
        self._memories[memory_id] = forgotten
        return forgotten

    async def get(self, memory_id: str) -> Memory | None:
        """The memory, whatever its status, or None."""
        return self._memories.get(memory_id)

    async def list_memories(self, which: MemoryFilter = ACTIVE_MEMORIES) -> list[Memory]:
        """Memories matching the filter, newest first."""
        subject = None if which.subject is None else which.subject.lower()
        chosen = [
            m
            for m in self._memories.values()
            if (not which.kinds or m.kind in which.kinds)
            and (subject is None or m.subject.lower() == subject)
            and m.status in which.statuses
            and (not which.tiers or m.tier in which.tiers)
        ]
        chosen.sort(key=lambda m: m.created_at, reverse=True)
        return chosen[which.offset : which.offset + which.limit]

    async def search(self, query: MemoryQuery) -> list[MemoryHit]:
        """Keyword search: memories sharing the most query words first."""
        if query.mode == "vector":
            return []
        wanted = _words(query.text)
        scored: list[tuple[int, Memory]] = []
        for memory in self._memories.values():
            if memory.status not in query.statuses:
                continue
            if query.kinds and memory.kind not in query.kinds:
                continue
            if query.subject is not None and memory.subject.lower() != query.subject.lower():
                continue
            if query.since is not None and memory.created_at < query.since:
                continue
            if query.until is not None and memory.created_at > query.until:
                continue
            shared = len(wanted & _words(f"{memory.content} {memory.subject} {memory.topic}"))
            if shared:
                scored.append((shared, memory))
        scored.sort(key=lambda pair: (-pair[0], -pair[1].importance, -pair[1].created_at))
        hits = [
            MemoryHit(memory=memory, score=shared / len(wanted), lexical_rank=rank)
            for rank, (shared, memory) in enumerate(scored[: query.limit], start=1)
        ]
        hits += self._associated(hits, query.associates)
        if query.touch:
            await self.touch([hit.memory.id for hit in hits])
        return hits

    def _associated(self, hits: list[MemoryHit], wanted: int) -> list[MemoryHit]:
        """The port's expansion: strong associates of the best three hits, below them."""
        if wanted <= 0 or not hits:
            return []
        taken = {hit.memory.id for hit in hits}
        out: list[MemoryHit] = []
        for hit in hits[:3]:
            for association in self._associations_of(hit.memory.id):
                other = association.memory
                if other.id in taken or association.count < ASSOCIATION_MIN_COUNT:
                    continue
                taken.add(other.id)
                score = hits[-1].score * association.strength
                out.append(MemoryHit(memory=other, score=score, associated_with=hit.memory.id))
        return out[:wanted]

    def _associations_of(self, memory_id: str) -> list[MemoryAssociation]:
        found = []
        for (a, b), (count, first, last, seen) in self._pairs.items():
            other = b if a == memory_id else a if b == memory_id else None
            memory = self._memories.get(other) if other is not None else None
            if memory is not None and memory.status == "active":
                found.append(
                    MemoryAssociation(
                        memory=memory,
                        count=count,
                        first_seen=first,
                        last_seen=last,
                        conversations=seen,
                    )
                )
        return sorted(found, key=lambda a: (-a.count, -a.last_seen))

    async def associate(self, ids: Sequence[str], conversation_id: str | None = None) -> int:
        """Count one co-use of every pair of ``ids``."""
        unique = sorted(set(ids))
        now = self._clock()
        pairs = [(a, b) for i, a in enumerate(unique) for b in unique[i + 1 :]]
        for pair in pairs:
            count, first, _last, seen = self._pairs.get(pair, (0, now, now, ()))
            if conversation_id:
                seen = (*(c for c in seen if c != conversation_id), conversation_id)
            self._pairs[pair] = (count + 1, first, now, seen)
        return len(pairs)

    async def associate_in_conversation(self, ids: Sequence[str], conversation_id: str) -> int:
        """Pair new memories with each other and the latest ten of the same conversation."""
        earlier = sorted(
            (
                m
                for m in self._memories.values()
                if m.conversation_id == conversation_id and m.status == "active" and m.id not in ids
            ),
            key=lambda m: -m.created_at,
        )[:10]
        counted = await self.associate(ids, conversation_id)
        for memory in earlier:
            for new in ids:
                counted += await self.associate([new, memory.id], conversation_id)
        return counted

    async def associations(self, memory_id: str, limit: int = 10) -> list[MemoryAssociation]:
        """A memory's associations with active memories, strongest first."""
        return self._associations_of(memory_id)[:limit]

    async def decay(
        self, *, after_days: float, per_day: float, floor: float, now: float | None = None
    ) -> int:
        """Lower the confidence of active, never accessed memories older than ``after_days``.

        Confidence falls by ``per_day`` for each day past ``after_days`` since the memory was
        made or since the last decay run (so two runs on one day lower it once), never below
        ``floor``. Returns how many memories decayed.
        """
        at = self._clock() if now is None else now
        after_s = after_days * _DAY_S
        changed = 0
        for memory in list(self._memories.values()):
            due = memory.created_at + after_s
            if memory.status != "active" or memory.access_count or due >= at:
                continue
            if memory.confidence <= floor:
                continue
            since = max(self._decayed_at.get(memory.id, 0.0), due)
            confidence = max(floor, memory.confidence - per_day * (at - since) / _DAY_S)
            self._memories[memory.id] = dataclasses.replace(memory, confidence=confidence)
            self._decayed_at[memory.id] = at
            changed += 1
        self._apply_tiers(list(self._memories), at)
        return changed

    async def add_candidate(self, draft: MemoryDraft) -> MemoryCandidate | None:
        """Queue a proposed memory for the user; None when it repeats a memory or candidate."""
        _check_memory_values(draft.content, draft.kind, draft.importance)
        key = _normalised(draft.content)
        known = [m.content for m in self._memories.values() if m.status == "active"]
        known += [c.content for c in self._candidates.values()]
        if any(_normalised(text) == key for text in known):
            return None
        candidate = MemoryCandidate(
            id=f"cand_{uuid.uuid4().hex[:16]}",
            content=draft.content,
            kind=_kind(draft.kind),
            subject=draft.subject,
            topic=draft.topic,
            importance=draft.importance,
            confidence=draft.confidence,
            conversation_id=draft.conversation_id,
            message_ids=tuple(draft.message_ids),
            created_at=self._clock(),
        )
        self._candidates[candidate.id] = candidate
        return candidate

    async def list_candidates(self) -> list[MemoryCandidate]:
        """Waiting candidates, oldest first."""
        return sorted(self._candidates.values(), key=lambda c: c.created_at)

    def _take_candidate(self, candidate_id: str) -> MemoryCandidate:
        candidate = self._candidates.pop(candidate_id, None)
        if candidate is None:
            raise NotFoundError(f"No memory candidate {candidate_id!r}.", hint="List the inbox.")
        return candidate

    async def approve_candidate(self, candidate_id: str) -> tuple[Memory, MemoryAction]:
        """Store the candidate as a memory learned in conversation (the SQLite store's rule)."""
        candidate = self._take_candidate(candidate_id)
        return await self.add(
            MemoryDraft(
                content=candidate.content,
                kind=candidate.kind,
                subject=candidate.subject,
                topic=candidate.topic,
                importance=candidate.importance,
                confidence=candidate.confidence,
                provenance="conversation",
                conversation_id=candidate.conversation_id,
                message_ids=candidate.message_ids,
            )
        )

    async def reject_candidate(self, candidate_id: str) -> None:
        """Drop the candidate."""
        self._take_candidate(candidate_id)


# mypy checks each fake against its port here: a port change that a fake misses fails the
# type check (aria_desktop/ARCHITECTURE.md, adapters with fakes at the process boundary).
_chat_model: ChatModel = ScriptedChatModel()
_conversation_store: ConversationStore = InMemoryConversationStore()
_memory_store: MemoryStore = InMemoryMemoryStore()
