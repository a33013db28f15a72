"""Conversations, messages and tool executions in SQLite.

Satisfies ``core.ports.ConversationStore`` structurally (this package may not import core). Every
method is one :class:`~aria_desktop.adapters.storage.database.Database` job, so each change is one
transaction and each query one consistent snapshot.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Literal, cast, get_args

from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.database import Database
from aria_desktop.domain.chat import (
    Conversation,
    MessageBody,
    MessageStatus,
    NewMessage,
    Role,
    StoredMessage,
    ToolCall,
    ToolCallRecord,
    Usage,
)
from aria_desktop.domain.errors import NotFoundError, StorageError

_LOGGER = logging.getLogger(__name__)

ToolCallStatus = Literal["pending", "ok", "error", "denied"]
_FINISHED_STATUSES = frozenset({"ok", "error", "denied"})

_MESSAGE_COLUMNS = (
    "id, conversation_id, role, content, status, tool_calls, tool_call_id, name, backend, "
    "model, input_tokens, output_tokens, created_at, thinking, cache_read_tokens, "
    "cache_write_tokens, cost, error_code, error_message"
)
_CONVERSATION_QUERY = """
    SELECT c.id, c.title, c.created_at, c.updated_at,
           (SELECT COUNT(*) FROM messages AS m WHERE m.conversation_id = c.id)
    FROM conversations AS c
"""
_TOOL_CALL_COLUMNS = "call_id, conversation_id, name, arguments, status, result"


def _encode_json(value: Any, what: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise StorageError(
            f"Could not store {what}: it is not JSON-serialisable ({exc})",
            hint="This is a bug in ARIA; please report it with the log.",
        ) from exc


def _encode_tool_calls(calls: Sequence[ToolCall]) -> str | None:
    if not calls:
        return None
    return _encode_json(
        [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls], "tool calls"
    )


def _decode_tool_calls(raw: str | None) -> tuple[ToolCall, ...]:
    if not raw:
        return ()
    return tuple(
        ToolCall(id=str(item["id"]), name=str(item["name"]), arguments=dict(item["arguments"]))
        for item in json.loads(raw)
    )


def _conversation(row: Sequence[Any]) -> Conversation:
    return Conversation(
        id=row[0], title=row[1], created_at=row[2], updated_at=row[3], message_count=row[4]
    )


def _message(row: Sequence[Any]) -> StoredMessage:
    return StoredMessage(
        id=row[0],
        conversation_id=row[1],
        role=cast(Role, row[2]),
        content=row[3],
        status=cast(MessageStatus, row[4]),
        tool_calls=_decode_tool_calls(row[5]),
        tool_call_id=row[6],
        name=row[7],
        backend=row[8],
        model=row[9],
        usage=Usage(
            input_tokens=row[10],
            output_tokens=row[11],
            cache_read_tokens=row[14],
            cache_write_tokens=row[15],
            cost=row[16],
        ),
        created_at=row[12],
        thinking=row[13],
        error_code=row[17],
        error_message=row[18],
    )


def _tool_call(row: Sequence[Any]) -> ToolCallRecord:
    return ToolCallRecord(
        call_id=row[0],
        conversation_id=row[1],
        name=row[2],
        arguments=json.loads(row[3]),
        status=cast(ToolCallStatus, row[4]),
        result=row[5],
    )


def _conversation_missing(conversation_id: str) -> NotFoundError:
    return NotFoundError(
        f"No conversation with id {conversation_id!r}.",
        hint="It may have been deleted; list conversations to pick an existing one.",
    )


def _require_conversation(conn: Connection, conversation_id: str) -> None:
    row = conn.execute("SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
    if row is None:
        raise _conversation_missing(conversation_id)


def _check_role(role: str) -> None:
    if role not in get_args(Role):
        raise ValueError(f"Unknown message role {role!r}")


def _check_status(status: str) -> None:
    if status not in get_args(MessageStatus):
        raise ValueError(f"Unknown message status {status!r}")


class SQLiteConversationStore:
    """``ConversationStore`` over the owner's :class:`Database`.

    Args:
        db: the open database (its schema includes the ``conversations`` migration).
        clock: wall-clock source for timestamps, UNIX seconds (injected for tests).
    """

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self._clock = clock

    async def create_conversation(
        self, title: str, *, conversation_id: str | None = None
    ) -> Conversation:
        """Start an empty conversation with ``conversation_id`` or a fresh random id (uuid4 hex)."""
        now = self._clock()
        conversation = Conversation(
            id=conversation_id or uuid.uuid4().hex,
            title=title,
            created_at=now,
            updated_at=now,
            message_count=0,
        )

        def insert(conn: Connection) -> None:
            conn.execute(
                "INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
                (conversation.id, title, now, now),
            )

        await self._db.write(insert)
        return conversation

    async def get_conversation(self, conversation_id: str) -> Conversation | None:
        """The conversation with its message count, or None when it does not exist."""

        def query(conn: Connection) -> Conversation | None:
            row = conn.execute(
                _CONVERSATION_QUERY + " WHERE c.id = ?", (conversation_id,)
            ).fetchone()
            return None if row is None else _conversation(row)

        return await self._db.read(query)

    async def list_conversations(self, *, limit: int = 50, offset: int = 0) -> list[Conversation]:
        """Conversations, most recently active first (ties: newest created first)."""
        if limit < 0 or offset < 0:
            raise ValueError("limit and offset must not be negative")

        def query(conn: Connection) -> list[Conversation]:
            rows = conn.execute(
                _CONVERSATION_QUERY
                + " ORDER BY c.updated_at DESC, c.created_at DESC, c.id LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
            return [_conversation(row) for row in rows]

        return await self._db.read(query)

    async def rename_conversation(self, conversation_id: str, title: str) -> None:
        """Change the title (not counted as activity: ``updated_at`` stays).

        Raises:
            NotFoundError: no such conversation.
        """

        def update(conn: Connection) -> None:
            cursor = conn.execute(
                "UPDATE conversations SET title = ? WHERE id = ?", (title, conversation_id)
            )
            if cursor.rowcount == 0:
                raise _conversation_missing(conversation_id)

        await self._db.write(update)

    async def delete_conversation(self, conversation_id: str) -> None:
        """Delete the conversation with its messages and tool calls (foreign-key cascade).

        Raises:
            NotFoundError: no such conversation.
        """

        def delete(conn: Connection) -> None:
            cursor = conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
            if cursor.rowcount == 0:
                raise _conversation_missing(conversation_id)

        await self._db.write(delete)

    async def find_conversation_key(self, keys: Sequence[str]) -> tuple[str, str] | None:
        """The first of ``keys`` (in the order given) that was set, with its conversation id."""
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return None

        def query(conn: Connection) -> tuple[str, str] | None:
            marks = ", ".join("?" * len(wanted))
            rows = conn.execute(
                f"SELECT key, conversation_id FROM conversation_keys WHERE key IN ({marks})",
                wanted,
            ).fetchall()
            found = {str(row[0]): str(row[1]) for row in rows}
            for key in wanted:
                if key in found:
                    return key, found[key]
            return None

        return await self._db.read(query)

    async def set_conversation_key(self, key: str, conversation_id: str) -> None:
        """Let ``key`` name ``conversation_id`` (replacing what it named before).

        Raises:
            NotFoundError: no such conversation.
        """
        now = self._clock()

        def upsert(conn: Connection) -> None:
            _require_conversation(conn, conversation_id)
            conn.execute(
                "INSERT INTO conversation_keys (key, conversation_id, created_at) VALUES (?, ?, ?)"
                " ON CONFLICT (key) DO UPDATE SET conversation_id = excluded.conversation_id",
                (key, conversation_id, now),
            )

        await self._db.write(upsert)

    async def add_message(self, conversation_id: str, message: NewMessage) -> StoredMessage:
        """Append a message and mark the conversation active (bumps ``updated_at``).

        Raises:
            NotFoundError: no such conversation.
        """
        _check_role(message.role)
        _check_status(message.status)
        usage = message.usage or Usage()
        calls_json = _encode_tool_calls(message.tool_calls)
        now = self._clock()

        def insert(conn: Connection) -> int:
            cursor = conn.execute(
                "UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id)
            )
            if cursor.rowcount == 0:
                raise _conversation_missing(conversation_id)
            cursor = conn.execute(
                "INSERT INTO messages (conversation_id, role, content, status, tool_calls, "
                "tool_call_id, name, backend, model, input_tokens, output_tokens, created_at, "
                "updated_at, thinking, cache_read_tokens, cache_write_tokens, cost, "
                "error_code, error_message) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    conversation_id,
                    message.role,
                    message.content,
                    message.status,
                    calls_json,
                    message.tool_call_id,
                    message.name,
                    message.backend,
                    message.model,
                    usage.input_tokens,
                    usage.output_tokens,
                    now,
                    now,
                    message.thinking,
                    usage.cache_read_tokens,
                    usage.cache_write_tokens,
                    usage.cost,
                    message.error_code,
                    message.error_message,
                ),
            )
            return int(cursor.lastrowid or 0)

        message_id = await self._db.write(insert)
        return StoredMessage(
            id=message_id,
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
            usage=usage,
            thinking=message.thinking,
            error_code=message.error_code,
            error_message=message.error_message,
        )

    async def update_message(self, message_id: int, body: MessageBody) -> None:
        """Replace a message's content, status and tool calls (e.g. finishing a streamed reply).

        ``backend`` and ``model`` are replaced only when given (non-empty) and ``usage`` only
        when not None, so an intermediate update cannot erase who produced the message. The
        conversation is marked active (bumps ``updated_at``).

        Raises:
            NotFoundError: no such message.
        """
        _check_status(body.status)
        calls_json = _encode_tool_calls(body.tool_calls)
        usage = body.usage
        now = self._clock()

        def update(conn: Connection) -> None:
            row = conn.execute(
                "SELECT conversation_id FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
            if row is None:
                raise NotFoundError(
                    f"No message with id {message_id}.",
                    hint="It may have been deleted with its conversation.",
                )
            conn.execute(
                "UPDATE messages SET content = ?, status = ?, tool_calls = ?, "
                "backend = CASE WHEN ? = '' THEN backend ELSE ? END, "
                "model = CASE WHEN ? = '' THEN model ELSE ? END, "
                "input_tokens = COALESCE(?, input_tokens), "
                "output_tokens = COALESCE(?, output_tokens), "
                "cache_read_tokens = COALESCE(?, cache_read_tokens), "
                "cache_write_tokens = COALESCE(?, cache_write_tokens), "
                "cost = COALESCE(?, cost), "
                "thinking = CASE WHEN ? = '' THEN thinking ELSE ? END, "
                "error_code = ?, error_message = ?, "
                "updated_at = ? WHERE id = ?",
                (
                    body.content,
                    body.status,
                    calls_json,
                    body.backend,
                    body.backend,
                    body.model,
                    body.model,
                    None if usage is None else usage.input_tokens,
                    None if usage is None else usage.output_tokens,
                    None if usage is None else usage.cache_read_tokens,
                    None if usage is None else usage.cache_write_tokens,
                    None if usage is None else usage.cost,
                    body.thinking,
                    body.thinking,
                    body.error_code,
                    body.error_message,
                    now,
                    message_id,
                ),
            )
            conn.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, row[0]))

        await self._db.write(update)

    async def list_messages(
        self, conversation_id: str, *, limit: int | None = None, before_id: int | None = None
    ) -> list[StoredMessage]:
        """Messages oldest first; with ``limit``, the newest ``limit`` (before ``before_id``).

        Page backwards through a long conversation by passing the smallest id of the previous
        page as ``before_id``.

        Raises:
            NotFoundError: no such conversation.
        """
        if limit is not None and limit < 0:
            raise ValueError("limit must not be negative")

        def query(conn: Connection) -> list[StoredMessage]:
            _require_conversation(conn, conversation_id)
            sql = f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ?"
            params: list[Any] = [conversation_id]
            if before_id is not None:
                sql += " AND id < ?"
                params.append(before_id)
            if limit is None:
                rows = conn.execute(sql + " ORDER BY id", params).fetchall()
            else:
                params.append(limit)
                rows = conn.execute(sql + " ORDER BY id DESC LIMIT ?", params).fetchall()
                rows.reverse()
            return [_message(row) for row in rows]

        return await self._db.read(query)

    async def begin_tool_call(self, conversation_id: str, call: ToolCall) -> ToolCallRecord | None:
        """Record a call as pending; return the existing record if this id was seen before.

        The check and the insert are one write transaction, so two attempts of the same step
        can never both get None (and both execute the tool).

        Raises:
            NotFoundError: no such conversation.
        """
        arguments_json = _encode_json(call.arguments, "tool-call arguments")
        now = self._clock()

        def begin(conn: Connection) -> ToolCallRecord | None:
            _require_conversation(conn, conversation_id)
            row = conn.execute(
                f"SELECT {_TOOL_CALL_COLUMNS} FROM tool_calls "
                "WHERE conversation_id = ? AND call_id = ?",
                (conversation_id, call.id),
            ).fetchone()
            if row is not None:
                return _tool_call(row)
            conn.execute(
                "INSERT INTO tool_calls (conversation_id, call_id, name, arguments, status, "
                "created_at) VALUES (?, ?, ?, ?, 'pending', ?)",
                (conversation_id, call.id, call.name, arguments_json, now),
            )
            return None

        existing = await self._db.write(begin)
        if existing is not None:
            _LOGGER.info(
                "Tool call %s in conversation %s was seen before (status %s); not re-running",
                call.id,
                conversation_id,
                existing.status,
            )
        return existing

    async def finish_tool_call(
        self, conversation_id: str, call_id: str, *, status: str, result: str
    ) -> None:
        """Store a call's outcome (status ok, error or denied) and the result text.

        Raises:
            ValueError: ``status`` is not ok, error or denied.
            NotFoundError: the call was never begun in that conversation.
        """
        if status not in _FINISHED_STATUSES:
            raise ValueError(
                f"A finished tool call's status must be ok, error or denied: {status!r}"
            )
        now = self._clock()

        def finish(conn: Connection) -> None:
            cursor = conn.execute(
                "UPDATE tool_calls SET status = ?, result = ?, finished_at = ? "
                "WHERE conversation_id = ? AND call_id = ?",
                (status, result, now, conversation_id, call_id),
            )
            if cursor.rowcount == 0:
                raise NotFoundError(
                    f"No tool call {call_id!r} in conversation {conversation_id!r}.",
                    hint="Record the call with begin_tool_call before finishing it.",
                )

        await self._db.write(finish)
