"""Settings: read every setting, change some by dotted key (applied after a restart)."""

from __future__ import annotations

from fastapi import APIRouter

from aria_desktop.api import docs
from aria_desktop.api.deps import PREFIX, AssistantDep
from aria_desktop.api.schemas import SettingsOut, SettingsPatch

router = APIRouter(prefix=PREFIX, tags=["settings"])


@router.get("/settings", response_model=SettingsOut, responses=docs.COMMON)
async def get_settings(assistant: AssistantDep) -> SettingsOut:
    return SettingsOut(settings=await assistant.get_settings())


@router.patch(
    "/settings",
    response_model=SettingsOut,
    summary="Change settings by dotted key (all or nothing; applied after a restart)",
    responses=docs.responses(docs.COMMON, docs.BODY, docs.INVALID),
)
async def patch_settings(body: SettingsPatch, assistant: AssistantDep) -> SettingsOut:
    current = await assistant.update_settings(body.changes)
    return SettingsOut(settings=current, restart_required=True)
