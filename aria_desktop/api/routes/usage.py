"""``GET /usage``: tokens and cost of model calls per backend and model since a time.

The owner answers from its usage ledger (the ``ReportUsage`` command; ARCHITECTURE.md: usage
and cloud budgets). Without ``since`` the period is today (local calendar day).
"""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Query

from aria_desktop.api import docs
from aria_desktop.api.deps import PREFIX, AssistantDep
from aria_desktop.api.schemas import UsageTotalOut
from aria_desktop.domain.commands import ReportUsage
from aria_desktop.domain.usage import UsageTotal, local_midnight

router = APIRouter(prefix=PREFIX, tags=["usage"])


_SINCE = Query(ge=0, le=1e11, description="UNIX seconds; default: today's local midnight")


@router.get("/usage", response_model=list[UsageTotalOut], responses=docs.COMMON)
async def usage(
    assistant: AssistantDep, since: Annotated[float | None, _SINCE] = None
) -> list[UsageTotalOut]:
    """Tokens and cost of model calls per backend and model (default: today)."""
    totals = await assistant.execute(
        ReportUsage(since=local_midnight(time.time()) if since is None else since)
    )
    return [UsageTotalOut.of(t) for t in totals if isinstance(t, UsageTotal)]
