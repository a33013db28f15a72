"""ARIA as an MCP server: memory, a turn through ARIA's routing, and the screen's text.

Built with the official SDK over the ``core.ports.Assistant`` protocol only (ARCHITECTURE.md:
MCP), so the same server runs inside the owner (streamable HTTP at ``/mcp``,
``api/mcp/routes.py``) and in ``aria mcp serve`` (stdio), which reaches the running owner
through its API when there is one (one writer). Both protocol revisions the SDK serves are
answered: 2026-07-28 (``server/discover``) and 2025-11-25 (``initialize``).

Tools: ``remember``, ``recall`` (memory and the knowledge base, ``knowledge_sources``),
``forget`` (the user confirms in ARIA, out of band: the MCP client never can), ``ask`` (a turn
through ARIA's routing) and, only while computer use is on, ``screen_read`` (the screen's text,
refused while a window the computer policy protects is visible: ``ReadScreen`` with
``unless_protected``); the lists' tools (``list_items``, ``add_list_items``,
``check_off_list_item``, ``remove_list_item``, ``list_lists``: ``list_tools.py``); the
reminders' (``list_reminders``, ``add_reminder``, ``cancel_reminder``:
``reminder_tools.py``). Memories are resources (``memory://<id>``; ``memory://all`` lists
them).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from aria_desktop.api.mcp.list_tools import add_list_tools, list_access
from aria_desktop.api.mcp.reminder_tools import add_reminder_tools, reminder_access
from aria_desktop.api.mcp.tool_errors import tool_error, tool_failure
from aria_desktop.core.ports import Assistant, KnowledgeAccess
from aria_desktop.domain.commands import ForgetMemory, ReadScreen, StartTurn
from aria_desktop.domain.errors import AriaError, KnowledgeUnavailableError
from aria_desktop.domain.knowledge import KnowledgeQuery
from aria_desktop.domain.memory import Memory, MemoryQuery, NewMemory
from aria_desktop.domain.transcript import TurnTranscript

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = [
    "RecallSource",
    "build_mcp_server",
    "computer_enabled",
    "knowledge_sources",
    "serve_stdio",
]

RecallSource = Callable[[str, int], Awaitable[list[dict[str, Any]]]]
"""Another store ``recall`` searches (the knowledge base): (query, limit) -> hits as JSON."""

_INSTRUCTIONS = (
    "ARIA is the user's local desktop assistant. Use recall before asking the user something "
    "ARIA may already know; remember only what the user wants kept; forget needs the user's "
    "confirmation in ARIA."
)


def _memory_json(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.id,
        "content": memory.content,
        "kind": memory.kind,
        "subject": memory.subject,
        "importance": memory.importance,
    }


def knowledge_sources(assistant: Assistant) -> tuple[RecallSource, ...]:
    """The knowledge base as a ``recall`` source, when ``assistant`` has one.

    In the owner that is ``LocalAssistant.knowledge`` (None when ``knowledge.enabled`` is off);
    over the owner's API it is ``ApiClient.knowledge``, which reports a switched-off knowledge
    base as ``KnowledgeUnavailableError``: recall then answers from memory alone.
    """
    knowledge: KnowledgeAccess | None = getattr(assistant, "knowledge", None)
    if knowledge is None:
        return ()
    access = knowledge

    async def search(query: str, limit: int) -> list[dict[str, Any]]:
        try:
            hits = await access.search_knowledge(KnowledgeQuery(text=query, limit=limit))
        except KnowledgeUnavailableError:
            return []
        return [
            {
                "source": "knowledge",
                "score": round(hit.score, 4),
                "document": hit.path,
                "title": hit.title,
                "page": hit.page,
                "heading": hit.heading,
                "link": hit.target,
                "text": hit.text,
            }
            for hit in hits
        ]

    return (search,)


def build_mcp_server(
    assistant: Assistant,
    *,
    version: str,
    computer_on: bool = False,
    recall_sources: Sequence[RecallSource] = (),
) -> MCPServer:
    """The MCP server over ``assistant``."""
    from mcp.server.mcpserver import MCPServer

    server: MCPServer = MCPServer(
        "aria-desktop", version=version, instructions=_INSTRUCTIONS, log_level="WARNING"
    )
    _add_memory_tools(server, assistant, recall_sources)
    _add_ask_tool(server, assistant)
    lists = list_access(assistant)
    if lists is not None:
        add_list_tools(server, lists)
    reminders = reminder_access(assistant)
    if reminders is not None:
        add_reminder_tools(server, reminders)
    if computer_on:
        _add_screen_read_tool(server, assistant)
    _add_memory_resources(server, assistant)
    return server


def _add_memory_tools(
    server: MCPServer, assistant: Assistant, recall_sources: Sequence[RecallSource]
) -> None:
    """``remember``, ``recall`` (memory, then each of ``recall_sources``) and ``forget``."""

    async def remember(content: str, kind: str = "fact", subject: str = "user") -> dict[str, Any]:
        """Save a durable fact or preference about the user in ARIA's long-term memory."""
        try:
            memory = await assistant.add_memory(
                NewMemory(content=content, kind=kind, subject=subject, provenance="mcp")
            )
        except AriaError as exc:
            raise tool_failure(exc) from None
        return _memory_json(memory)

    async def recall(query: str, limit: int = 5) -> list[dict[str, Any]]:
        """Search ARIA's long-term memory (and knowledge) for what it knows about a topic."""
        limit = max(1, min(limit, 20))
        try:
            hits = await assistant.search_memories(MemoryQuery(text=query, limit=limit))
            found = [
                {"source": "memory", "score": round(hit.score, 4), **_memory_json(hit.memory)}
                for hit in hits
            ]
            for source in recall_sources:
                found += await source(query, limit)
        except AriaError as exc:
            raise tool_failure(exc) from None
        return found

    async def forget(memory_id: str) -> str:
        """Forget one memory by id (from recall). The user must confirm it in ARIA."""
        try:
            forgotten = await assistant.execute(ForgetMemory(memory_id=memory_id))
        except AriaError as exc:
            raise tool_failure(exc) from None
        if not forgotten:
            raise tool_error(f"The user did not confirm forgetting {memory_id}; it is kept.")
        return f"Forgotten: {memory_id}"

    server.add_tool(remember, name="remember")
    server.add_tool(recall, name="recall")
    server.add_tool(forget, name="forget")


def _add_ask_tool(server: MCPServer, assistant: Assistant) -> None:
    """``ask``: one turn through ARIA's routing, answered with the reply's text."""

    async def ask(question: str) -> str:
        """Ask ARIA (its own models, tools and memory) and get its answer."""
        sub = assistant.subscribe()
        try:
            started = await assistant.start_turn(StartTurn(text=question, source="mcp"))
            turn = TurnTranscript(run_id=started.run_id, conversation_id=started.conversation_id)
            async for event in sub:
                if event.run_id == started.run_id:
                    turn.add(event)
                if turn.done:
                    break
        except AriaError as exc:
            raise tool_failure(exc) from None
        finally:
            sub.close()
        if turn.status != "complete":
            why = turn.error.message if turn.error else f"the turn ended {turn.status}"
            raise tool_error(f"ARIA could not answer: {why}")
        return turn.text

    server.add_tool(ask, name="ask")


def _add_screen_read_tool(server: MCPServer, assistant: Assistant) -> None:
    """``screen_read``: the screen's text, checked against computer use again on every call."""

    async def screen_read() -> str:
        """The text on the user's screen (refused while a protected window is visible)."""
        if not await computer_enabled(assistant):
            raise tool_error("Computer use is off in ARIA: the screen is not read.")
        try:
            text = await assistant.execute(ReadScreen(unless_protected=True))
        except AriaError as exc:
            raise tool_failure(exc) from None
        return str(text.text)

    server.add_tool(screen_read, name="screen_read")


def _add_memory_resources(server: MCPServer, assistant: Assistant) -> None:
    """Memories as resources: ``memory://all`` lists the active ones, ``memory://<id>`` one."""

    @server.resource("memory://all", name="memories", mime_type="application/json")
    async def all_memories() -> str:
        """Every active memory."""
        return json.dumps([_memory_json(m) for m in await assistant.list_memories()])

    @server.resource("memory://{memory_id}", name="memory", mime_type="application/json")
    async def one_memory(memory_id: str) -> str:
        """One memory by id."""
        from mcp.server.mcpserver.exceptions import ResourceNotFoundError

        memory = await assistant.get_memory(memory_id)
        if memory is None:
            # The SDK's not-found error keeps the text (any other exception becomes a generic
            # internal error naming only the URI).
            raise ResourceNotFoundError(
                f"No memory {memory_id} (it was never saved or is forgotten)"
            )
        return json.dumps(_memory_json(memory))


async def computer_enabled(assistant: Assistant) -> bool:
    """Whether computer use is switched on now (``screen_read`` is offered only then)."""
    for status in await assistant.capabilities():
        if status.name == "computer":
            return bool(status.available and status.enabled)
    return False


async def serve_stdio(assistant: Assistant, *, version: str) -> None:
    """Serve MCP on this process's stdin/stdout until the client closes it."""
    on = await computer_enabled(assistant)
    server = build_mcp_server(
        assistant,
        version=version,
        computer_on=on,
        recall_sources=knowledge_sources(assistant),
    )
    await server.run_stdio_async()
