"""Conversations: list, create, read a page of messages, rename, delete."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query, Response

from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import PREFIX, AssistantDep, PathId
from aria_desktop.api.server.schemas.chat import (
    ConversationCreate,
    ConversationDetail,
    ConversationOut,
    ConversationRename,
    MessageOut,
)
from aria_desktop.api.server.schemas.memory import EpisodeOut
from aria_desktop.core.ports import Assistant
from aria_desktop.domain.chat import Conversation
from aria_desktop.domain.errors import NotFoundError

router = APIRouter(prefix=PREFIX, tags=["conversations"])


async def _existing(assistant: Assistant, conversation_id: str) -> Conversation:
    conversation = await assistant.get_conversation(conversation_id)
    if conversation is None:
        raise NotFoundError(f"There is no conversation {conversation_id!r}.")
    return conversation


@router.get(
    "/conversations",
    summary="Conversations, most recently updated first",
    responses=docs.responses(docs.COMMON, docs.INVALID),
)
async def list_conversations(
    assistant: AssistantDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> list[ConversationOut]:
    found = await assistant.list_conversations(limit=limit, offset=offset)
    return [ConversationOut.of(c) for c in found]


@router.post(
    "/conversations",
    status_code=201,
    responses=docs.responses(docs.COMMON, docs.BODY, docs.INVALID),
)
async def create_conversation(
    assistant: AssistantDep,
    body: Annotated[ConversationCreate | None, Body()] = None,
) -> ConversationOut:
    title = (body or ConversationCreate()).title
    return ConversationOut.of(await assistant.create_conversation(title))


@router.get(
    "/conversations/{conversation_id}",
    summary="A conversation and a page of its messages (oldest first)",
    responses=docs.responses(docs.COMMON, docs.NOT_FOUND, docs.INVALID),
)
async def get_conversation(
    conversation_id: PathId,
    assistant: AssistantDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    before_id: Annotated[int | None, Query(ge=1, le=2**62)] = None,
) -> ConversationDetail:
    conversation = await _existing(assistant, conversation_id)
    messages = await assistant.list_messages(conversation_id, limit=limit, before_id=before_id)
    return ConversationDetail(
        conversation=ConversationOut.of(conversation),
        messages=[MessageOut.of(m) for m in messages],
        next_before_id=messages[0].id if len(messages) == limit else None,
    )


@router.patch(
    "/conversations/{conversation_id}",
    summary="Rename a conversation",
    responses=docs.responses(docs.COMMON, docs.BODY, docs.NOT_FOUND, docs.INVALID),
)
async def rename_conversation(
    conversation_id: PathId, body: ConversationRename, assistant: AssistantDep
) -> ConversationOut:
    await assistant.rename_conversation(conversation_id, body.title)
    return ConversationOut.of(await _existing(assistant, conversation_id))


@router.post(
    "/conversations/{conversation_id}/end",
    summary="The user is done with a conversation: keep its episode now (null: nothing kept)",
    responses=docs.responses(docs.COMMON, docs.NOT_FOUND, docs.INVALID),
)
async def end_conversation(conversation_id: PathId, assistant: AssistantDep) -> EpisodeOut | None:
    episode = await assistant.end_conversation(conversation_id)
    return None if episode is None else EpisodeOut.of(episode)


@router.delete(
    "/conversations/{conversation_id}",
    status_code=204,
    response_class=Response,
    summary="Delete a conversation and its messages",
    responses=docs.responses(docs.COMMON, docs.BODY, docs.NOT_FOUND, docs.INVALID),
)
async def delete_conversation(conversation_id: PathId, assistant: AssistantDep) -> Response:
    await assistant.delete_conversation(conversation_id)
    return Response(status_code=204)
