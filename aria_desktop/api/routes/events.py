"""Status: every event as Server-Sent Events, the visible state, the capabilities."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import PREFIX, AssistantDep, ClientDep, StateDep
from aria_desktop.api.server.schemas.chat import CapabilityOut, SettingsProblemOut, StateOut
from aria_desktop.api.server.sse import EventStreamResponse, event_stream
from aria_desktop.domain.events import Event

router = APIRouter(prefix=PREFIX, tags=["status"])


@router.get(
    "/events",
    summary="Every event as Server-Sent Events (event name = the event's type)",
    response_class=Response,
    responses=docs.responses(
        docs.COMMON, {200: docs.sse_response("text/event-stream; data is the event as JSON", None)}
    ),
)
async def events(
    state: StateDep,
    client: ClientDep,
    types: Annotated[
        str | None,
        Query(max_length=2000, description="Comma-separated event types to include"),
    ] = None,
) -> Response:
    wanted = frozenset(t.strip() for t in types.split(",") if t.strip()) if types else None
    sub = state.assistant.subscribe()
    state.admit_stream(sub, client)

    def select(event: Event) -> tuple[str, dict[str, Any], bool] | None:
        if wanted is not None and event.type not in wanted:
            return None
        return event.type, event.to_dict(), False

    return EventStreamResponse(
        event_stream(sub, state.streams, state.config, select), state.streams, sub
    )


@router.get("/state", responses=docs.COMMON)
async def state(assistant: AssistantDep) -> StateOut:
    problems = [SettingsProblemOut.of(p) for p in assistant.settings_problems]
    return StateOut(state=assistant.state, settings_problems=problems)


@router.get("/capabilities", responses=docs.COMMON)
async def capabilities(assistant: AssistantDep) -> list[CapabilityOut]:
    return [CapabilityOut.of(c) for c in await assistant.capabilities()]
