"""Operations of the commands the API carries (``Assistant.execute``), by command type.

Voice, screen and computer-use commands, automations and the stop button: their domain types
(``domain.computer`` above all) are imported only by a client that executes a command.
"""

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
    only_set,
)
from aria_desktop.api.client.wire import from_json
from aria_desktop.domain.audio import SpeechAudio, Transcript, decode_wav
from aria_desktop.domain.automation import AutomationRun, AutomationSpec
from aria_desktop.domain.commands import (
    AnswerMcpQuestion,
    ApproveMcpTool,
    CaptureScreen,
    ClickText,
    FindOnScreen,
    ForgetMemory,
    GetMcpPrompt,
    ListAutomations,
    ListMcp,
    PushToTalk,
    ReadMcpResource,
    ReadScreen,
    ReportUsage,
    RunAutomation,
    RunComputerTask,
    SetComputerControl,
    SetMcpToolPolicy,
    SignInMcpServer,
    SignOutMcpServer,
    Speak,
    StopEverything,
    StopRinging,
    Transcribe,
)
from aria_desktop.domain.computer import (
    ComputerActionOutcome,
    ComputerTaskStarted,
    Grounding,
    OcrBlock,
    OcrLine,
    OcrWord,
    Rect,
    ScreenElement,
    Screenshot,
    ScreenText,
)
from aria_desktop.domain.mcp import McpCallResult, McpOverview, McpPromptText
from aria_desktop.domain.usage import UsageTotal

if TYPE_CHECKING:
    from aria_desktop.api.client.operations.base import HttpArgs

__all__ = ["COMMANDS"]

_ACT_TIMEOUT = httpx.Timeout(10.0, read=900.0)
"""A click may wait for the user's confirmation (``agent.confirm_timeout_s``) first."""


def _prompt_text(response: httpx.Response, _arg: object) -> McpPromptText:
    data = response.json()
    messages = tuple((m["role"], m["text"]) for m in data["messages"])
    return McpPromptText(server=data["server"], name=data["name"], messages=messages)


def _rect(box: list[int]) -> Rect:
    return Rect(*(int(v) for v in box))


def _screen_text(response: httpx.Response, _arg: object) -> ScreenText:
    data = response.json()
    lines = tuple(
        OcrLine(id=ln["id"], text=ln["text"], box=_rect(ln["box"]), block=ln["block"], words=())
        for ln in data["lines"]
    )
    block_of = {line.id: line.block for line in lines}
    return ScreenText(
        region=_rect(data["region"]),
        ocr_ms=data["ocr_ms"],
        words=tuple(
            OcrWord(
                text=w["text"],
                confidence=w["confidence"],
                box=_rect(w["box"]),
                block=block_of.get(w["line"], 0),
                line=w["line"],
            )
            for w in data["words"]
        ),
        lines=lines,
        blocks=tuple(
            OcrBlock(id=b["id"], text=b["text"], box=_rect(b["box"]), lines=())
            for b in data["blocks"]
        ),
        elements=tuple(from_json(ScreenElement, e) for e in data["elements"]),
    )


def _screenshot(response: httpx.Response, command: CaptureScreen) -> Screenshot:
    region = response.headers.get("x-screen-region", "0,0,0,0").split(",")
    return Screenshot(
        png=response.content, region=_rect([int(v) for v in region]), monitor=command.monitor
    )


def _speech(response: httpx.Response, command: Speak) -> SpeechAudio:
    clip = decode_wav(response.content, name="The speech ARIA sent", allow_empty=True)
    return SpeechAudio(pcm=clip.pcm, sample_rate_hz=clip.sample_rate_hz, text=command.text)


def _region(region: tuple[int, int, int, int] | None) -> dict[str, Any]:
    if region is None:
        return {}
    x, y, width, height = region
    return {"region": {"x": x, "y": y, "width": width, "height": height}}


def _task_body(command: RunComputerTask) -> HttpArgs:
    optional = only_set(backend=command.backend or None)
    return {"json": {"task": command.text, "dry_run": command.dry_run, **optional}}


COMMANDS: dict[type[Any], Operation[Any, Any]] = {
    StopEverything: Operation[StopEverything, int](
        method="POST", path=at("/stop"), decode=member("cancelled", int)
    ),
    StopRinging: Operation[StopRinging, bool](
        method="POST", path=at("/ringing/stop"), decode=member("was_ringing", bool)
    ),
    RunAutomation: Operation[RunAutomation, AutomationRun](
        method="POST",
        path=lambda c: f"/hooks/{c.name}",
        decode=one(AutomationRun),
        encode=lambda c: {"json": c.payload},
    ),
    ListAutomations: Operation[ListAutomations, list[AutomationSpec]](
        method="GET", path=at("/automations"), decode=many(AutomationSpec)
    ),
    ReportUsage: Operation[ReportUsage, list[UsageTotal]](
        method="GET",
        path=at("/usage"),
        decode=many(UsageTotal),
        encode=lambda c: {"params": {"since": c.since}},
    ),
    Speak: Operation[Speak, SpeechAudio](
        method="POST",
        path=at("/speak"),
        decode=_speech,
        encode=lambda c: {"json": {"text": c.text, "play": c.play}},
    ),
    Transcribe: Operation[Transcribe, Transcript](
        method="POST",
        path=at("/transcribe"),
        decode=one(Transcript),
        encode=lambda c: {
            "content": c.wav,
            "params": only_set(language=c.language or None) or None,
            "headers": {"Content-Type": "audio/wav"},
        },
    ),
    PushToTalk: Operation[PushToTalk, None](
        method="POST",
        path=at("/push-to-talk"),
        decode=nothing,
        encode=lambda c: {"json": {"action": c.action, "purpose": c.purpose}},
    ),
    CaptureScreen: Operation[CaptureScreen, Screenshot](
        method="POST",
        path=at("/screen/shot"),
        decode=_screenshot,
        encode=lambda c: {"json": {"monitor": c.monitor}},
    ),
    # The user's answer is awaited: subscribers must see the confirmation request.
    ForgetMemory: Operation[ForgetMemory, bool](
        method="POST",
        path=lambda c: f"/memories/{c.memory_id}/forget-request",
        decode=lambda response, _arg: bool(response.json()),
        encode=lambda c: {"timeout": _ACT_TIMEOUT},
        after_streams=True,
    ),
    ListMcp: Operation[ListMcp, McpOverview](
        method="GET", path=at("/mcp/servers"), decode=one(McpOverview)
    ),
    SetMcpToolPolicy: Operation[SetMcpToolPolicy, None](
        method="POST",
        path=lambda c: f"/mcp/tools/{c.tool}/policy",
        decode=nothing,
        encode=lambda c: {"json": {"policy": c.policy}},
    ),
    ApproveMcpTool: Operation[ApproveMcpTool, None](
        method="POST", path=lambda c: f"/mcp/tools/{c.tool}/approve", decode=nothing
    ),
    ReadMcpResource: Operation[ReadMcpResource, McpCallResult](
        method="POST",
        path=lambda c: f"/mcp/servers/{c.server}/resources/read",
        decode=one(McpCallResult),
        encode=lambda c: {"json": {"uri": c.uri}},
    ),
    GetMcpPrompt: Operation[GetMcpPrompt, McpPromptText](
        method="POST",
        path=lambda c: f"/mcp/servers/{c.server}/prompts/{c.name}",
        decode=_prompt_text,
        encode=lambda c: {"json": {"arguments": dict(c.arguments)}},
    ),
    AnswerMcpQuestion: Operation[AnswerMcpQuestion, None](
        method="POST",
        path=lambda c: f"/mcp/questions/{c.request_id}/answer",
        decode=nothing,
        encode=lambda c: {"json": {"nonce": c.nonce, "action": c.action, "values": dict(c.values)}},
    ),
    SignInMcpServer: Operation[SignInMcpServer, str](
        method="POST",
        path=lambda c: f"/mcp/servers/{c.server}/sign-in",
        decode=member("problem", str),
        encode=lambda c: {"json": {"browser": c.browser}},
    ),
    SignOutMcpServer: Operation[SignOutMcpServer, str](
        method="POST",
        path=lambda c: f"/mcp/servers/{c.server}/sign-out",
        decode=member("result", str),
    ),
    ReadScreen: Operation[ReadScreen, ScreenText](
        method="POST",
        path=at("/screen/ocr"),
        decode=_screen_text,
        encode=lambda c: {
            "json": {
                **_region(c.region),
                **({"unless_protected": True} if c.unless_protected else {}),
            }
        },
    ),
    FindOnScreen: Operation[FindOnScreen, Grounding](
        method="POST",
        path=at("/screen/find"),
        decode=one(Grounding),
        encode=lambda c: {"json": {"text": c.text, **_region(c.region)}},
    ),
    # Subscribers must see a click's confirmation request: connect them first.
    ClickText: Operation[ClickText, ComputerActionOutcome](
        method="POST",
        path=at("/screen/click"),
        decode=one(ComputerActionOutcome),
        encode=lambda c: {"json": {"text": c.text, "dry_run": c.dry_run}, "timeout": _ACT_TIMEOUT},
        after_streams=True,
    ),
    RunComputerTask: Operation[RunComputerTask, ComputerTaskStarted](
        method="POST",
        path=at("/do"),
        decode=one(ComputerTaskStarted),
        encode=_task_body,
        after_streams=True,
    ),
    SetComputerControl: Operation[SetComputerControl, bool](
        method="PUT",
        path=at("/computer/control"),
        decode=member("enabled", bool),
        encode=lambda c: {"json": {"enabled": c.enabled}},
    ),
}
"""The operation of each command the API carries."""
