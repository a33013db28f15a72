"""Operations of turns and conversations: start, cancel and confirm; capabilities; history."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx

from aria_desktop.api.client.operations.base import (
    Operation,
    at,
    many,
    member,
    nothing,
    one,
    one_or_none,
    only_set,
)
from aria_desktop.api.client.wire import list_from_json
from aria_desktop.domain.chat import CapabilityStatus, Conversation, StoredMessage, TurnStarted
from aria_desktop.domain.commands import ConfirmAction, StartTurn
from aria_desktop.domain.episodes import Episode

if TYPE_CHECKING:
    from aria_desktop.api.client.operations.base import HttpArgs

__all__ = [
    "CANCEL_TURN",
    "CAPABILITIES",
    "CONFIRM_ACTION",
    "CREATE_CONVERSATION",
    "DELETE_CONVERSATION",
    "END_CONVERSATION",
    "GET_CONVERSATION",
    "LIST_CONVERSATIONS",
    "MESSAGES_PAGE",
    "RENAME_CONVERSATION",
    "START_TURN",
]


def _turn_body(command: StartTurn) -> HttpArgs:
    optional = only_set(
        conversation_id=command.conversation_id or None, backend=command.backend or None
    )
    attached = [{"source": a.source, "text": a.text} for a in command.attachments]
    extra = {"attachments": attached} if attached else {}
    return {"json": {"message": command.text, "source": command.source, **optional, **extra}}


def _messages_page(response: httpx.Response, _arg: object) -> tuple[list[StoredMessage], Any]:
    data = response.json()
    return list_from_json(StoredMessage, data["messages"]), data["next_before_id"]


START_TURN = Operation[StartTurn, TurnStarted](
    method="POST",
    path=at("/turns"),
    decode=one(TurnStarted),
    encode=_turn_body,
    after_streams=True,
)
CANCEL_TURN = Operation[str | None, int](
    method="POST",
    path=at("/turns/cancel"),
    decode=member("cancelled", int),
    encode=lambda run_id: {"json": {"run_id": run_id}},
)
CONFIRM_ACTION = Operation[ConfirmAction, None](
    method="POST",
    path=lambda c: f"/actions/{c.request_id}/confirm",
    decode=nothing,
    encode=lambda c: {"json": {"approved": c.approved, "nonce": c.nonce}},
)
CAPABILITIES = Operation[None, list[CapabilityStatus]](
    method="GET", path=at("/capabilities"), decode=many(CapabilityStatus)
)
CREATE_CONVERSATION = Operation[str, Conversation](
    method="POST",
    path=at("/conversations"),
    decode=one(Conversation),
    encode=lambda title: {"json": {"title": title}},
)
LIST_CONVERSATIONS = Operation[tuple[int, int], list[Conversation]](
    method="GET",
    path=at("/conversations"),
    decode=many(Conversation),
    encode=lambda page: {"params": {"limit": page[0], "offset": page[1]}},
)
GET_CONVERSATION = Operation[str, Conversation](
    method="GET",
    path=lambda conversation_id: f"/conversations/{conversation_id}",
    decode=one(Conversation, "conversation"),
    encode=lambda _id: {"params": {"limit": 1}},
)
MESSAGES_PAGE = Operation[tuple[str, dict[str, Any]], tuple[list[StoredMessage], Any]](
    method="GET",
    path=lambda page: f"/conversations/{page[0]}",
    decode=_messages_page,
    encode=lambda page: {"params": page[1]},
)
RENAME_CONVERSATION = Operation[tuple[str, str], None](
    method="PATCH",
    path=lambda rename: f"/conversations/{rename[0]}",
    decode=nothing,
    encode=lambda rename: {"json": {"title": rename[1]}},
)
END_CONVERSATION = Operation[str, Episode | None](
    method="POST",
    path=lambda conversation_id: f"/conversations/{conversation_id}/end",
    decode=one_or_none(Episode),
)
DELETE_CONVERSATION = Operation[str, None](
    method="DELETE",
    path=lambda conversation_id: f"/conversations/{conversation_id}",
    decode=nothing,
)
