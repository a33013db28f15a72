"""Settings: read every setting, change some by dotted key.

Model, backend, fallback-order and voice settings apply to the running ARIA before the answer
(ARCHITECTURE.md: settings applied live); ``restart_required`` says when some change waits for
a restart.
"""

from __future__ import annotations

from fastapi import APIRouter

from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import PREFIX, AssistantDep
from aria_desktop.api.server.schemas.settings import SettingsOut, SettingsPatch
from aria_desktop.domain.config import applies_live

router = APIRouter(prefix=PREFIX, tags=["settings"])


@router.get("/settings", responses=docs.COMMON)
async def get_settings(assistant: AssistantDep) -> SettingsOut:
    return SettingsOut(settings=await assistant.get_settings())


@router.patch(
    "/settings",
    summary="Change settings by dotted key (all or nothing; model and voice apply live)",
    responses=docs.responses(docs.COMMON, docs.BODY, docs.INVALID),
)
async def patch_settings(body: SettingsPatch, assistant: AssistantDep) -> SettingsOut:
    current = await assistant.update_settings(body.changes)
    restart = not all(applies_live(key) for key in body.changes)
    return SettingsOut(settings=current, restart_required=restart)
