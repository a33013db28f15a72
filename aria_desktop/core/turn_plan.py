"""What a turn does differently by who asked: ARIA's own front-ends or a stateless chat client.

Every turn runs the same way in the orchestrator (events, deadline, error mapping, observers).
What differs is chosen once, when the turn starts, as a :class:`TurnPlan`: which conversation it
continues, how its prompt is built, which tools it offers, how the user's side is stored and what
happens once the model has answered. An own turn (``StartTurn``) keeps its history in ARIA's
store; a client turn (``ClientTurn``) brings its whole history along and is matched to a stored
conversation by digest (``core/client_turns.py``).
"""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from aria_desktop.core.agent import AgentConfig, AgentResult
from aria_desktop.core.client_turns import (
    ClientHistory,
    client_prompt,
    new_user_text,
    remember_reply,
    resolve_history,
    store_new,
)
from aria_desktop.core.ports import Clock, ConversationStore
from aria_desktop.core.session import build_history
from aria_desktop.core.tools import ToolRegistry
from aria_desktop.core.turn_tools import TurnTools
from aria_desktop.domain.chat import ChatMessage, Conversation, NewMessage
from aria_desktop.domain.commands import ClientTurn, StartTurn
from aria_desktop.domain.errors import AriaError, ClientRequestError, NotFoundError

__all__ = ["ClientTurnPlan", "OwnTurnPlan", "PreparedTurn", "TurnPlan", "plan_turn"]

_TITLE_CHARS = 60
_HISTORY_FETCH = 200


@dataclass(frozen=True, kw_only=True)
class PreparedTurn:
    """What a turn sends and stores before its first model request.

    Attributes:
        prompt: the messages of the first step.
        saving: stores the user's side; the orchestrator runs it beside the model request and
            waits for it at the end, even when the turn fails or is cancelled.
        tools: what the turn offers the model (ARIA's tools, a client's tools, options).
    """

    prompt: list[ChatMessage]
    saving: Coroutine[Any, Any, object]
    tools: TurnTools


class TurnPlan(Protocol):
    """What differs between an own turn and a client turn, chosen once when the turn starts."""

    @property
    def command(self) -> StartTurn:
        """The command that started the turn (source, backend)."""
        ...

    @property
    def conversation(self) -> Conversation:
        """The conversation the turn continues (or the new one)."""
        ...

    @property
    def text(self) -> str:
        """The command's text, stripped: the ``run-start`` text and what recall looks for."""
        ...

    @property
    def user_text(self) -> str:
        """What the user said in this turn, for turn observers (memory extraction)."""
        ...

    @property
    def private(self) -> bool:
        """The turn must not be mined for long-term memories."""
        ...

    @property
    def local_text(self) -> str:
        """The sentence a local skill may answer ("" when only the model may answer)."""
        ...

    async def prepare(self, context: Sequence[ChatMessage]) -> PreparedTurn:
        """The prompt (with ``context`` from the providers), the storing and the tools."""
        ...

    async def finish(self, result: AgentResult) -> None:
        """What happens once the model has answered, still within the turn deadline."""
        ...


@dataclass(frozen=True, kw_only=True)
class OwnTurnPlan:
    """A turn from ARIA's own front-ends: the history is ARIA's, the prompt is built from it."""

    command: StartTurn
    conversation: Conversation
    text: str
    store: ConversationStore
    config: AgentConfig
    private: bool = False

    @property
    def user_text(self) -> str:
        """The command's text, stripped."""
        return self.text

    @property
    def local_text(self) -> str:
        """The command's text: any own turn may be an everyday command."""
        return self.text

    async def prepare(self, context: Sequence[ChatMessage]) -> PreparedTurn:
        """System prompt, context, the stored history within its budget, the user's words."""
        conversation_id = self.conversation.id
        stored = await self.store.list_messages(conversation_id, limit=_HISTORY_FETCH)
        prompt = [ChatMessage(role="system", content=self.config.system_prompt)]
        prompt += context
        prompt += build_history(stored, self.config.history_token_budget)
        prompt.append(ChatMessage(role="user", content=self.text))
        saving = self.store.add_message(conversation_id, NewMessage(role="user", content=self.text))
        return PreparedTurn(prompt=prompt, saving=saving, tools=TurnTools())

    async def finish(self, result: AgentResult) -> None:
        """Nothing: the agent has stored the reply already."""


@dataclass(frozen=True, kw_only=True)
class ClientTurnPlan:
    """A stateless client's turn: its own history and tools, ARIA's read-only tools beside them."""

    command: ClientTurn
    history: ClientHistory
    text: str
    store: ConversationStore
    config: AgentConfig
    tools: ToolRegistry

    @property
    def conversation(self) -> Conversation:
        """The stored conversation the client's messages continue, or a new one."""
        return self.history.conversation

    @property
    def user_text(self) -> str:
        """The user's words this request adds ("" when it only brings tool results)."""
        return new_user_text(self.command)

    @property
    def private(self) -> bool:
        """Whether the client asked not to be remembered."""
        return self.command.private

    @property
    def local_text(self) -> str:
        """The user's new words, unless the client needs the model's own reply.

        A client that demands JSON or a call of one of its tools, or that brings tool results
        back, is answered by the model; a plain question ("what time is it") may be local.
        """
        options = self.command.options
        if options.response_format is not None or options.tool_choice is not None:
            return ""
        messages = self.command.messages
        if not messages or messages[-1].role != "user":
            return ""
        return self.user_text.strip()

    async def prepare(self, context: Sequence[ChatMessage]) -> PreparedTurn:
        """The client's messages with context, storing only what is new, the client's tools."""
        command = self.command
        prompt = client_prompt(command, self.config.system_prompt, context)
        tools = TurnTools(
            own=self.tools.specs(permission="read_only"),
            client=command.client_tools,
            agent=command.agent,
            options=command.options,
        )
        return PreparedTurn(prompt=prompt, saving=store_new(self.store, self.history), tools=tools)

    async def finish(self, result: AgentResult) -> None:
        """Remember the reply's digest, so the client's next request finds this conversation."""
        reply = ChatMessage(role="assistant", content=result.text, tool_calls=result.client_calls)
        await remember_reply(self.store, self.command, self.conversation.id, reply)


async def plan_turn(
    command: StartTurn,
    *,
    store: ConversationStore,
    config: AgentConfig,
    tools: ToolRegistry,
    clock: Clock,
) -> TurnPlan:
    """The plan for ``command``, with the conversation it continues found (or created).

    Raises:
        ClientRequestError: a client turn without a user message.
        AriaError: an own turn with an empty message.
        NotFoundError: an own turn naming a conversation that does not exist.
    """
    text = command.text.strip()
    if isinstance(command, ClientTurn):
        if not any(message.role != "system" for message in command.messages):
            raise ClientRequestError(
                "The request has no user message.", hint="Send at least one user message."
            )
        history = await resolve_history(store, command, clock.time())
        return ClientTurnPlan(
            command=command, history=history, text=text, store=store, config=config, tools=tools
        )
    if not text:
        raise AriaError("The message is empty.", hint="Type something to ask.")
    if command.conversation_id is None:
        title = " ".join(text.split())[:_TITLE_CHARS]
        conversation = await store.create_conversation(title)
    else:
        found = await store.get_conversation(command.conversation_id)
        if found is None:
            raise NotFoundError(
                f"There is no conversation {command.conversation_id!r}.",
                hint="List them with `aria conversations list`.",
            )
        conversation = found
    return OwnTurnPlan(
        command=command, conversation=conversation, text=text, store=store, config=config
    )
