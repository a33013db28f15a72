"""``GET /usage``: tokens and cost of model calls per backend and model since a time.

The owner answers from its usage ledger (the ``ReportUsage`` command; ARCHITECTURE.md: usage
and cloud budgets). Without ``since`` the period is today (local calendar day).
"""

from __future__ import annotations

import time
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict

from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import PREFIX, AssistantDep
from aria_desktop.api.server.schemas.common import UsageOut
from aria_desktop.domain.commands import ReportUsage
from aria_desktop.domain.usage import UsageTotal, local_midnight

router = APIRouter(prefix=PREFIX, tags=["usage"])


class UsageTotalOut(BaseModel):
    """Model calls of one backend and model over a period, their tokens and cost."""

    model_config = ConfigDict(from_attributes=True)

    backend: str
    model: str
    locality: Literal["local", "cloud"]
    calls: int
    usage: UsageOut


_SINCE = Query(ge=0, le=1e11, description="UNIX seconds; default: today's local midnight")


@router.get("/usage", responses=docs.COMMON)
async def usage(
    assistant: AssistantDep, since: Annotated[float | None, _SINCE] = None
) -> list[UsageTotalOut]:
    """Tokens and cost of model calls per backend and model (default: today)."""
    totals = await assistant.execute(
        ReportUsage(since=local_midnight(time.time()) if since is None else since)
    )
    return [UsageTotalOut.model_validate(t) for t in totals if isinstance(t, UsageTotal)]
