"""What routes need from the running app, handed to them as FastAPI dependencies.

The app factory stores one :class:`ApiState` on ``app.state``; routes declare ``AssistantDep``
or ``StateDep`` parameters instead of closing over variables of the factory, so each route
module stands alone and a test can build an app around any ``Assistant``
(``aria_desktop/ARCHITECTURE.md``, "API").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Path, Request

from aria_desktop.api.config import ApiConfig
from aria_desktop.api.server.errors import TooManyStreamsError
from aria_desktop.api.server.ratelimit import CLIENT_SCOPE_KEY
from aria_desktop.api.server.responses_store import ResponseStore
from aria_desktop.api.server.sse import StreamRegistry
from aria_desktop.core.ports import Assistant, EventSubscription

__all__ = ["PREFIX", "ApiState", "AssistantDep", "ClientDep", "PathId", "StateDep", "api_state"]

PREFIX = "/api/v1"
"""Every route but health lives under this path."""

PathId = Annotated[str, Path(min_length=1, max_length=128)]
"""A record's id in a path (conversation, memory, inbox entry, confirmation request)."""


@dataclass(frozen=True, kw_only=True)
class ApiState:
    """The app's shared parts.

    Attributes:
        assistant: what the routes drive.
        config: limits and allowed origins.
        streams: the open event streams (capped by ``config.max_sse_streams``).
        health_body: the pre-rendered ``GET /health`` answer (JSON bytes).
        responses: the conversations behind the Responses API's ``previous_response_id``.
    """

    assistant: Assistant
    config: ApiConfig
    streams: StreamRegistry
    health_body: bytes
    responses: ResponseStore = field(default_factory=ResponseStore)

    def admit_stream(self, sub: EventSubscription, client: str = "") -> None:
        """Count ``sub`` as an open stream of ``client``.

        Raises:
            TooManyStreamsError: every slot, or the client's share, is taken (``sub`` closed).
        """
        if not self.streams.admit(sub, client):
            mine = self.streams.held_by(client)
            raise TooManyStreamsError(
                self.config.max_sse_streams, held=mine if mine >= self.streams.per_client else None
            )


def _state_of(request: Request) -> ApiState:
    state: ApiState = request.app.state.aria
    return state


# The dependencies are coroutines on purpose: FastAPI runs a plain function dependency in a
# worker thread, which cost every request about 0.7 ms here.


async def api_state(request: Request) -> ApiState:
    """The ``ApiState`` the app factory stored on the app."""
    return _state_of(request)


async def _assistant(request: Request) -> Assistant:
    return _state_of(request).assistant


async def _client(request: Request) -> str:
    return str(request.scope.get(CLIENT_SCOPE_KEY, ""))


StateDep = Annotated[ApiState, Depends(api_state)]
ClientDep = Annotated[str, Depends(_client)]
"""The requesting client as the rate limiter names it (its share of the event streams)."""
AssistantDep = Annotated[Assistant, Depends(_assistant)]
