"""The API client's table: every operation's HTTP method, path, request encoder and decoder.

``ApiClient`` carries the ``core.ports.Assistant`` calls and the commands over the local HTTP
API. Each of them is one :class:`Operation` here (data, not a method body), and the client
runs them all through one ``call``; a command's operation is found by the command's type in
:data:`COMMANDS` (``aria_desktop/ARCHITECTURE.md``, "API"). Response bodies decode into domain
values with ``api.wire.from_json``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Generic, TypeVar

import httpx

from aria_desktop.api.wire import from_json, list_from_json
from aria_desktop.domain import memory as mem
from aria_desktop.domain.audio import SpeechAudio, Transcript, decode_wav
from aria_desktop.domain.automation import AutomationRun, AutomationSpec
from aria_desktop.domain.chat import CapabilityStatus, Conversation, StoredMessage, TurnStarted
from aria_desktop.domain.commands import (
    CaptureScreen,
    ClickText,
    ConfirmAction,
    FindOnScreen,
    ListAutomations,
    PushToTalk,
    ReadScreen,
    RunAutomation,
    RunComputerTask,
    SetComputerControl,
    Speak,
    StartTurn,
    StopEverything,
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

__all__ = ["COMMANDS", "Operation"]

_A = TypeVar("_A")
_R = TypeVar("_R")
_T = TypeVar("_T")

HttpArgs = dict[str, Any]
"""Keyword arguments of ``httpx.AsyncClient.request``: json, params, content, headers, timeout."""

_ACT_TIMEOUT = httpx.Timeout(10.0, read=900.0)
"""A click may wait for the user's confirmation (``agent.confirm_timeout_s``) first."""


def _no_body(_arg: object) -> HttpArgs:
    return {}


@dataclass(frozen=True, kw_only=True)
class Operation(Generic[_A, _R]):
    """One call over the API.

    Attributes:
        method: the HTTP method.
        path: the path under ``/api/v1`` for the call's argument.
        decode: the answer as a domain value (from the response and the argument).
        encode: the request's query, body and headers for the argument.
        after_streams: wait until the client's event streams are connected first, so a
            subscriber sees every event the call causes (turns, clicks, tasks).
    """

    method: str
    path: Callable[[_A], str]
    decode: Callable[[httpx.Response, _A], _R]
    encode: Callable[[_A], HttpArgs] = _no_body
    after_streams: bool = False


def _at(path: str) -> Callable[[object], str]:
    return lambda _arg: path


def _one(cls: type[_T], key: str | None = None) -> Callable[[httpx.Response, object], _T]:
    """Decode the body (or its member ``key``) as ``cls``."""

    def decode(response: httpx.Response, _arg: object) -> _T:
        data = response.json()
        return from_json(cls, data[key] if key else data)

    return decode


def _many(cls: type[_T]) -> Callable[[httpx.Response, object], list[_T]]:
    return lambda response, _arg: list_from_json(cls, response.json())


def _nothing(_response: httpx.Response, _arg: object) -> None:
    return None


def _member(key: str, cast: Callable[[Any], _T]) -> Callable[[httpx.Response, object], _T]:
    return lambda response, _arg: cast(response.json()[key])


def _set(**values: Any) -> dict[str, Any]:
    """Only the values that are set (the API's defaults apply to the others)."""
    return {name: value for name, value in values.items() if value is not None}


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


def _search_body(query: mem.MemoryQuery) -> HttpArgs:
    # mode and touch are the owner's own choice: a search over the API is a user's search.
    body = _set(subject=query.subject, since=query.since, until=query.until)
    return {
        "json": {
            "query": query.text,
            "limit": query.limit,
            "kinds": list(query.kinds),
            "statuses": list(query.statuses),
            "min_similarity": query.min_similarity,
            **body,
        }
    }


def _filter_params(which: mem.MemoryFilter) -> HttpArgs:
    params = {
        "kind": list(which.kinds),
        "status": list(which.statuses),
        "limit": which.limit,
        "offset": which.offset,
    }
    return {"params": {**params, **_set(subject=which.subject)}}


def _turn_body(command: StartTurn) -> HttpArgs:
    optional = _set(
        conversation_id=command.conversation_id or None, backend=command.backend or None
    )
    return {"json": {"message": command.text, "source": command.source, **optional}}


def _task_body(command: RunComputerTask) -> HttpArgs:
    optional = _set(backend=command.backend or None)
    return {"json": {"task": command.text, "dry_run": command.dry_run, **optional}}


def _messages_page(response: httpx.Response, _arg: object) -> tuple[list[StoredMessage], Any]:
    data = response.json()
    return list_from_json(StoredMessage, data["messages"]), data["next_before_id"]


# --- the Assistant's calls -----------------------------------------------------------------

STATE = Operation[None, str](method="GET", path=_at("/state"), decode=_member("state", str))
START_TURN = Operation[StartTurn, TurnStarted](
    method="POST",
    path=_at("/turns"),
    decode=_one(TurnStarted),
    encode=_turn_body,
    after_streams=True,
)
CANCEL_TURN = Operation[str | None, int](
    method="POST",
    path=_at("/turns/cancel"),
    decode=_member("cancelled", int),
    encode=lambda run_id: {"json": {"run_id": run_id}},
)
CONFIRM_ACTION = Operation[ConfirmAction, None](
    method="POST",
    path=lambda c: f"/actions/{c.request_id}/confirm",
    decode=_nothing,
    encode=lambda c: {"json": {"approved": c.approved, "nonce": c.nonce}},
)
CAPABILITIES = Operation[None, list[CapabilityStatus]](
    method="GET", path=_at("/capabilities"), decode=_many(CapabilityStatus)
)
CREATE_CONVERSATION = Operation[str, Conversation](
    method="POST",
    path=_at("/conversations"),
    decode=_one(Conversation),
    encode=lambda title: {"json": {"title": title}},
)
LIST_CONVERSATIONS = Operation[tuple[int, int], list[Conversation]](
    method="GET",
    path=_at("/conversations"),
    decode=_many(Conversation),
    encode=lambda page: {"params": {"limit": page[0], "offset": page[1]}},
)
GET_CONVERSATION = Operation[str, Conversation](
    method="GET",
    path=lambda conversation_id: f"/conversations/{conversation_id}",
    decode=_one(Conversation, "conversation"),
    encode=lambda _id: {"params": {"limit": 1}},
)
MESSAGES_PAGE = Operation[tuple[str, dict[str, Any]], tuple[list[StoredMessage], Any]](
    method="GET",
    path=lambda page: f"/conversations/{page[0]}",
    decode=_messages_page,
    encode=lambda page: {"params": page[1]},
)
RENAME_CONVERSATION = Operation[tuple[str, str], None](
    method="PATCH",
    path=lambda rename: f"/conversations/{rename[0]}",
    decode=_nothing,
    encode=lambda rename: {"json": {"title": rename[1]}},
)
DELETE_CONVERSATION = Operation[str, None](
    method="DELETE",
    path=lambda conversation_id: f"/conversations/{conversation_id}",
    decode=_nothing,
)

SEARCH_MEMORIES = Operation[mem.MemoryQuery, list[mem.MemoryHit]](
    method="POST", path=_at("/memories/search"), decode=_many(mem.MemoryHit), encode=_search_body
)
LIST_MEMORIES = Operation[mem.MemoryFilter, list[mem.Memory]](
    method="GET", path=_at("/memories"), decode=_many(mem.Memory), encode=_filter_params
)
GET_MEMORY = Operation[str, mem.Memory](
    method="GET", path=lambda memory_id: f"/memories/{memory_id}", decode=_one(mem.Memory)
)
ADD_MEMORY = Operation[mem.NewMemory, mem.Memory](
    method="POST",
    path=_at("/memories"),
    decode=_one(mem.Memory),
    # The owner records provenance "api" for whatever comes over HTTP.
    encode=lambda new: {"json": {k: v for k, v in asdict(new).items() if k != "provenance"}},
)
UPDATE_MEMORY = Operation[tuple[str, mem.MemoryEdit], mem.Memory](
    method="PATCH",
    path=lambda edit: f"/memories/{edit[0]}",
    decode=_one(mem.Memory),
    encode=lambda edit: {"json": edit[1].changes()},
)
FORGET_MEMORY = Operation[str, None](
    method="DELETE", path=lambda memory_id: f"/memories/{memory_id}", decode=_nothing
)
MEMORY_INBOX = Operation[None, list[mem.MemoryCandidate]](
    method="GET", path=_at("/memory-inbox"), decode=_many(mem.MemoryCandidate)
)
APPROVE_MEMORY = Operation[str, mem.Memory](
    method="POST",
    path=lambda candidate: f"/memory-inbox/{candidate}/approve",
    decode=_one(mem.Memory),
)
REJECT_MEMORY = Operation[str, None](
    method="POST", path=lambda candidate: f"/memory-inbox/{candidate}/reject", decode=_nothing
)

GET_SETTINGS = Operation[None, dict[str, Any]](
    method="GET", path=_at("/settings"), decode=_member("settings", dict)
)
UPDATE_SETTINGS = Operation[Mapping[str, Any], dict[str, Any]](
    method="PATCH",
    path=_at("/settings"),
    decode=_member("settings", dict),
    encode=lambda changes: {"json": {"changes": dict(changes)}},
)

# --- commands (``Assistant.execute``), by command type ---------------------------------------

COMMANDS: dict[type[Any], Operation[Any, Any]] = {
    StopEverything: Operation[StopEverything, int](
        method="POST", path=_at("/stop"), decode=_member("cancelled", int)
    ),
    RunAutomation: Operation[RunAutomation, AutomationRun](
        method="POST",
        path=lambda c: f"/hooks/{c.name}",
        decode=_one(AutomationRun),
        encode=lambda c: {"json": c.payload},
    ),
    ListAutomations: Operation[ListAutomations, list[AutomationSpec]](
        method="GET", path=_at("/automations"), decode=_many(AutomationSpec)
    ),
    Speak: Operation[Speak, SpeechAudio](
        method="POST",
        path=_at("/speak"),
        decode=_speech,
        encode=lambda c: {"json": {"text": c.text, "play": c.play}},
    ),
    Transcribe: Operation[Transcribe, Transcript](
        method="POST",
        path=_at("/transcribe"),
        decode=_one(Transcript),
        encode=lambda c: {
            "content": c.wav,
            "params": _set(language=c.language or None) or None,
            "headers": {"Content-Type": "audio/wav"},
        },
    ),
    PushToTalk: Operation[PushToTalk, None](
        method="POST",
        path=_at("/push-to-talk"),
        decode=_nothing,
        encode=lambda c: {"json": {"action": c.action}},
    ),
    CaptureScreen: Operation[CaptureScreen, Screenshot](
        method="POST",
        path=_at("/screen/shot"),
        decode=_screenshot,
        encode=lambda c: {"json": {"monitor": c.monitor}},
    ),
    ReadScreen: Operation[ReadScreen, ScreenText](
        method="POST",
        path=_at("/screen/ocr"),
        decode=_screen_text,
        encode=lambda c: {"json": _region(c.region)},
    ),
    FindOnScreen: Operation[FindOnScreen, Grounding](
        method="POST",
        path=_at("/screen/find"),
        decode=_one(Grounding),
        encode=lambda c: {"json": {"text": c.text, **_region(c.region)}},
    ),
    # Subscribers must see a click's confirmation request: connect them first.
    ClickText: Operation[ClickText, ComputerActionOutcome](
        method="POST",
        path=_at("/screen/click"),
        decode=_one(ComputerActionOutcome),
        encode=lambda c: {"json": {"text": c.text, "dry_run": c.dry_run}, "timeout": _ACT_TIMEOUT},
        after_streams=True,
    ),
    RunComputerTask: Operation[RunComputerTask, ComputerTaskStarted](
        method="POST",
        path=_at("/do"),
        decode=_one(ComputerTaskStarted),
        encode=_task_body,
        after_streams=True,
    ),
    SetComputerControl: Operation[SetComputerControl, bool](
        method="PUT",
        path=_at("/computer/control"),
        decode=_member("enabled", bool),
        encode=lambda c: {"json": {"enabled": c.enabled}},
    ),
}
"""The operation of each command the API carries."""
