"""Automations: list the configured ones, trigger one by webhook."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Path

from aria_desktop.api.routes._commands import execute_expecting
from aria_desktop.api.server import docs
from aria_desktop.api.server.deps import PREFIX, AssistantDep
from aria_desktop.api.server.schemas.settings import AutomationOut, AutomationRunOut
from aria_desktop.domain.automation import AutomationRun, AutomationSpec
from aria_desktop.domain.commands import ListAutomations, RunAutomation
from aria_desktop.domain.errors import AriaError

router = APIRouter(prefix=PREFIX, tags=["automations"])


@router.get("/automations", responses=docs.COMMON)
async def list_automations(assistant: AssistantDep) -> list[AutomationOut]:
    specs = await assistant.execute(ListAutomations())
    return [AutomationOut.of(s) for s in specs if isinstance(s, AutomationSpec)]


@router.post(
    "/hooks/{name}",
    status_code=202,
    summary="Trigger an automation; the JSON body fills its prompt's {placeholders}",
    responses=docs.responses(docs.COMMON, docs.BODY, docs.NOT_FOUND, docs.INVALID),
)
async def webhook(
    name: Annotated[str, Path(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")],
    assistant: AssistantDep,
    body: Annotated[dict[str, Any] | None, Body()] = None,
) -> AutomationRunOut:
    command = RunAutomation(name=name, payload=body or {}, trigger="webhook")
    run = await execute_expecting(
        assistant, command, AutomationRun, AriaError("Automations are not available.")
    )
    return AutomationRunOut(name=run.name, run_id=run.run_id, conversation_id=run.conversation_id)
