"""``GET /api/v1/health``: liveness for monitors (the one route without a token)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import StateDep
from aria_desktop.api.server.schemas.common import HealthOut
from aria_desktop.api.server.security import HEALTH_PATH

router = APIRouter(tags=["status"])


@router.get(
    HEALTH_PATH,
    response_model=HealthOut,
    summary="Liveness (no token needed)",
    responses={k: v for k, v in docs.COMMON.items() if k in (403, 429, 431)},
)
async def health(state: StateDep) -> Response:
    # Pre-rendered: monitors call this often, and it never changes.
    return Response(state.health_body, media_type="application/json")
