"""``ApiClient``: the ``core.ports.Assistant`` of an ARIA running in another process.

``aria chat``, ``aria conversations`` and ``aria desktop --attach`` use it when a daemon or the
tray app owns the data: the same calls as ``LocalAssistant``, carried over the local HTTP API
(httpx), with events from ``GET /api/v1/events`` decoded back into domain events. A
subscription connects in the background; ``start_turn`` first waits until every open
subscription is connected, so a caller that subscribes and then starts a turn sees all of its
events, as in-process. Streams the server closes for idleness are reopened transparently.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Self

import httpx

from aria_desktop.api.token import TokenFile
from aria_desktop.core.ports import Assistant
from aria_desktop.domain.audio import SpeechAudio, Transcript, decode_wav
from aria_desktop.domain.automation import AutomationRun, AutomationSpec
from aria_desktop.domain.chat import (
    CapabilityStatus,
    Conversation,
    StoredMessage,
    ToolCall,
    TurnStarted,
    Usage,
)
from aria_desktop.domain.commands import (
    CaptureScreen,
    ClickText,
    Command,
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
    Point,
    Rect,
    ScreenElement,
    Screenshot,
    ScreenText,
    TextMatch,
)
from aria_desktop.domain.errors import (
    ActionAbortedError,
    ApiAuthError,
    ApiError,
    AriaError,
    AudioDeviceError,
    AudioFormatError,
    AutomationError,
    ComputerBusyError,
    ComputerControlOffError,
    ComputerError,
    ConfigError,
    ConfirmationError,
    DisplayUnavailableError,
    InputUnavailableError,
    MemoryInvalidError,
    MemoryUnavailableError,
    MonitorNotFoundError,
    NotFoundError,
    OcrUnavailableError,
    OwnerUnreachableError,
    SpeechRecognitionError,
    SpeechSynthesisError,
    TargetAmbiguousError,
    TargetChangedError,
    TargetNotFoundError,
    VoiceError,
    VoiceModelError,
    VoiceUnavailableError,
)
from aria_desktop.domain.events import AssistantState, Event, StateChanged, event_from_dict
from aria_desktop.domain.memory import Memory, MemoryCandidate, MemoryHit, MemoryQuery

__all__ = ["ApiClient", "ApiSubscription"]

_LOGGER = logging.getLogger(__name__)
_P = "/api/v1"
_READY_TIMEOUT_S = 5.0
_PAGE = 500
_ERRORS: dict[str, type[AriaError]] = {
    cls.code: cls
    for cls in (
        NotFoundError,
        ConfirmationError,
        ConfigError,
        AutomationError,
        MemoryInvalidError,
        MemoryUnavailableError,
        VoiceError,
        AudioDeviceError,
        AudioFormatError,
        VoiceModelError,
        SpeechRecognitionError,
        SpeechSynthesisError,
        VoiceUnavailableError,
        ComputerError,
        DisplayUnavailableError,
        OcrUnavailableError,
        InputUnavailableError,
        ComputerControlOffError,
        ComputerBusyError,
        MonitorNotFoundError,
        TargetNotFoundError,
        TargetAmbiguousError,
        TargetChangedError,
        ActionAbortedError,
    )
}
_ACT_TIMEOUT = httpx.Timeout(10.0, read=900.0)
"""A click may wait for the user's confirmation (``agent.confirm_timeout_s``) first."""


def _error_from(response: httpx.Response) -> AriaError:
    try:
        detail = response.json()["error"]
        code, message, hint = str(detail["code"]), str(detail["message"]), str(detail["hint"])
    except (ValueError, KeyError, TypeError):
        code, message, hint = "http_error", f"HTTP {response.status_code}", ""
    if response.status_code == 401:
        return ApiAuthError(
            "The running ARIA refused our API token.",
            hint="The token may have been rotated; check the token file (`aria token show`).",
        )
    cls = _ERRORS.get(code)
    if cls is not None:
        return cls(message, hint=hint)
    return ApiError(message, remote_code=code, status=response.status_code, hint=hint)


def _unreachable(base_url: str, exc: Exception) -> OwnerUnreachableError:
    return OwnerUnreachableError(
        f"Could not reach the running ARIA at {base_url}: {exc.__class__.__name__}.",
        hint="Check that it still runs (`aria status`); it may be starting or stopping.",
    )


def _conversation(data: Mapping[str, Any]) -> Conversation:
    return Conversation(
        id=data["id"],
        title=data["title"],
        created_at=data["created_at"],
        updated_at=data["updated_at"],
        message_count=data.get("message_count", 0),
    )


def _message(data: Mapping[str, Any]) -> StoredMessage:
    return StoredMessage(
        id=data["id"],
        conversation_id=data["conversation_id"],
        role=data["role"],
        content=data["content"],
        status=data["status"],
        created_at=data["created_at"],
        tool_calls=tuple(
            ToolCall(id=c["id"], name=c["name"], arguments=c["arguments"])
            for c in data.get("tool_calls", [])
        ),
        tool_call_id=data.get("tool_call_id"),
        name=data.get("name"),
        backend=data.get("backend", ""),
        model=data.get("model", ""),
        usage=Usage(**data.get("usage", {})),
    )


def _memory(data: Mapping[str, Any]) -> Memory:
    return Memory(
        id=data["id"],
        content=data["content"],
        kind=data["kind"],
        subject=data["subject"],
        importance=data["importance"],
        confidence=data["confidence"],
        status=data["status"],
        provenance=data["provenance"],
        conversation_id=data.get("conversation_id"),
        message_ids=tuple(data.get("message_ids", ())),
        topic=data.get("topic", ""),
        created_at=data["created_at"],
        updated_at=data["updated_at"],
        last_accessed_at=data.get("last_accessed_at"),
        access_count=data.get("access_count", 0),
        embedding_model=data.get("embedding_model", ""),
        supersedes=data.get("supersedes"),
        superseded_by=data.get("superseded_by"),
    )


def _candidate(data: Mapping[str, Any]) -> MemoryCandidate:
    return MemoryCandidate(
        id=data["id"],
        content=data["content"],
        kind=data["kind"],
        subject=data["subject"],
        topic=data.get("topic", ""),
        importance=data["importance"],
        confidence=data["confidence"],
        conversation_id=data.get("conversation_id"),
        message_ids=tuple(data.get("message_ids", ())),
        created_at=data["created_at"],
    )


def _rect(box: Sequence[int]) -> Rect:
    return Rect(int(box[0]), int(box[1]), int(box[2]), int(box[3]))


def _screen_text(data: Mapping[str, Any]) -> ScreenText:
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
        elements=tuple(
            ScreenElement(
                id=e["id"], text=e["text"], box=_rect(e["box"]), confidence=e["confidence"]
            )
            for e in data["elements"]
        ),
    )


def _grounding(data: Mapping[str, Any]) -> Grounding:
    return Grounding(
        query=data["query"],
        status=data["status"],
        matches=tuple(
            TextMatch(
                text=m["text"],
                box=_rect(m["box"]),
                center=Point(int(m["center"][0]), int(m["center"][1])),
                score=m["score"],
                exact=m["exact"],
            )
            for m in data["matches"]
        ),
    )


def _region_body(region: tuple[int, int, int, int] | None) -> dict[str, Any]:
    if region is None:
        return {}
    x, y, width, height = region
    return {"region": {"x": x, "y": y, "width": width, "height": height}}


def _speech(wav_data: bytes, text: str) -> SpeechAudio:
    clip = decode_wav(wav_data, name="The speech ARIA sent", allow_empty=True)
    return SpeechAudio(pcm=clip.pcm, sample_rate_hz=clip.sample_rate_hz, text=text)


class _End:
    """Queue marker: the subscription ended."""


_END = _End()


class ApiSubscription:
    """Events from ``GET /api/v1/events``, as a ``core.ports.EventSubscription``.

    Created by :meth:`ApiClient.subscribe` (needs a running event loop).
    """

    def __init__(self, client: ApiClient, *, types: frozenset[str] | None = None) -> None:
        self._client = client
        self._types = types
        self._queue: asyncio.Queue[Event | _End] = asyncio.Queue()
        self._ready = asyncio.Event()
        self._error: AriaError | None = None
        self._closed = False
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name="aria-api-event-stream"
        )

    @property
    def closed(self) -> bool:
        """Whether no more events will come."""
        return self._closed

    async def wait_ready(self, timeout_s: float = _READY_TIMEOUT_S) -> bool:
        """Wait until the stream is connected; False if it is not within ``timeout_s``."""
        try:
            async with asyncio.timeout(timeout_s):
                await self._ready.wait()
        except TimeoutError:
            return False
        return not self._closed

    async def _run(self) -> None:
        try:
            while not self._closed:
                reason = await self._stream_once()
                if reason != "idle":
                    break
                self._ready.clear()
        except AriaError as exc:
            self._error = exc
        except httpx.HTTPError as exc:
            if not self._closed:
                self._error = _unreachable(self._client.base_url, exc)
        finally:
            self._closed = True
            self._ready.set()
            self._client._forget(self)
            self._queue.put_nowait(_END)

    async def _stream_once(self) -> str:
        """Read one SSE connection; returns the server's close reason ("" if it just ended)."""
        params = {"types": ",".join(sorted(self._types))} if self._types else None
        timeout = httpx.Timeout(10.0, read=None)
        async with self._client._http.stream(
            "GET", f"{_P}/events", params=params, timeout=timeout
        ) as response:
            if response.status_code != 200:
                await response.aread()
                if response.status_code == 401 and self._client._reload_token():
                    return "idle"  # reconnect with the new token
                raise _error_from(response)
            name = ""
            async for line in response.aiter_lines():
                if line == ": ready":
                    self._ready.set()
                elif line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    data = json.loads(line[6:])
                    if name == "close":
                        return str(data.get("reason", ""))
                    self._deliver(data)
        return ""

    def _deliver(self, data: dict[str, Any]) -> None:
        try:
            event = event_from_dict(data)
        except ValueError:
            _LOGGER.debug("Skipping an event this version does not know: %s", data.get("type"))
            return
        if isinstance(event, StateChanged):
            self._client._state = event.state
        self._queue.put_nowait(event)

    async def get(self, timeout_s: float | None = None) -> Event:
        """Next event; StopAsyncIteration once closed, TimeoutError after ``timeout_s``."""
        async with asyncio.timeout(timeout_s):
            item = await self._queue.get()
        if isinstance(item, _End):
            self._queue.put_nowait(item)  # later calls end too
            if self._error is not None:
                error, self._error = self._error, None
                raise error
            raise StopAsyncIteration
        return item

    def close(self) -> None:
        """Stop receiving (idempotent)."""
        if not self._closed:
            self._closed = True
            self._task.cancel()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Event:
        return await self.get()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()


class ApiClient:
    """An ``Assistant`` over the local HTTP API of a running ARIA.

    Args:
        base_url: e.g. ``http://127.0.0.1:8731``.
        token: the API token (read from the token file by the caller; never from argv).
        timeout_s: per-request timeout, seconds (event streams have none while reading).
        token_file: where the token lives; when given, a 401 re-reads it once and retries, so
            a rotation (``aria token rotate``, the settings dialog) does not cut the client off.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout_s: float = 30.0,
        token_file: TokenFile | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._token = token
        self._token_file = token_file
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {token}"},
            timeout=timeout_s,
        )
        self._state: AssistantState = "offline"
        self._subs: set[ApiSubscription] = set()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every subscription and the connection pool."""
        for sub in list(self._subs):
            sub.close()
        await self._http.aclose()

    def _forget(self, sub: ApiSubscription) -> None:
        self._subs.discard(sub)

    def _reload_token(self) -> bool:
        """Take a new token from the token file; False if there is none or it is unchanged."""
        if self._token_file is None:
            return False
        try:
            token = self._token_file.read()
        except AriaError:
            return False
        if token == self._token:
            return False
        self._token = token
        self._http.headers["Authorization"] = f"Bearer {token}"
        return True

    async def _request_response(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = await self._http.request(method, f"{_P}{path}", **kwargs)
            if response.status_code == 401 and self._reload_token():
                response = await self._http.request(method, f"{_P}{path}", **kwargs)
        except httpx.HTTPError as exc:
            raise _unreachable(self.base_url, exc) from None
        if not response.is_success:
            raise _error_from(response)
        return response

    async def _request(self, method: str, path: str, *, raw: bool = False, **kwargs: Any) -> Any:
        response = await self._request_response(method, path, **kwargs)
        if raw:
            return response.content
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

    async def connect(self) -> None:
        """Check that the owner answers and accepts our token (and learn its state)."""
        await self.refresh_state()

    async def refresh_state(self) -> AssistantState:
        """Ask the owner for its state now."""
        data = await self._request("GET", "/state")
        self._state = data["state"]
        return self._state

    @property
    def state(self) -> AssistantState:
        """The last state seen (from ``connect`` or a subscription's state-changed events)."""
        return self._state

    def subscribe(self, *, types: frozenset[str] | None = None) -> ApiSubscription:
        """Events from now on (connecting in the background)."""
        sub = ApiSubscription(self, types=types)
        self._subs.add(sub)
        return sub

    async def start_turn(self, command: StartTurn) -> TurnStarted:
        """Start a turn once open subscriptions are connected (so none misses its events)."""
        await asyncio.gather(*(sub.wait_ready() for sub in list(self._subs)))
        body: dict[str, Any] = {"message": command.text, "source": command.source}
        if command.conversation_id:
            body["conversation_id"] = command.conversation_id
        if command.backend:
            body["backend"] = command.backend
        data = await self._request("POST", "/turns", json=body)
        return TurnStarted(run_id=data["run_id"], conversation_id=data["conversation_id"])

    async def cancel_turn(self, run_id: str | None = None) -> int:
        """Cancel one turn, or all when ``run_id`` is None."""
        data = await self._request("POST", "/turns/cancel", json={"run_id": run_id})
        return int(data["cancelled"])

    async def confirm_action(self, command: ConfirmAction) -> None:
        """Answer a confirmation request (ConfirmationError when refused)."""
        await self._request(
            "POST",
            f"/actions/{command.request_id}/confirm",
            json={"approved": command.approved, "nonce": command.nonce},
        )

    async def execute(self, command: Command) -> Any:
        """The commands the API carries.

        StopEverything, RunAutomation, ListAutomations, the voice commands Speak,
        Transcribe and PushToTalk (press, release, toggle, listen), and the computer-use commands
        CaptureScreen, ReadScreen, FindOnScreen, ClickText, RunComputerTask and
        SetComputerControl (they return what the in-process handlers return).
        """
        if isinstance(command, StopEverything):
            return int((await self._request("POST", "/stop"))["cancelled"])
        if isinstance(command, RunAutomation):
            data = await self._request("POST", f"/hooks/{command.name}", json=command.payload)
            return AutomationRun(
                name=data["name"], run_id=data["run_id"], conversation_id=data["conversation_id"]
            )
        if isinstance(command, ListAutomations):
            return [AutomationSpec(**item) for item in await self._request("GET", "/automations")]
        if isinstance(command, Speak):
            return _speech(
                await self._request(
                    "POST", "/speak", json={"text": command.text, "play": command.play}, raw=True
                ),
                command.text,
            )
        if isinstance(command, Transcribe):
            params = {"language": command.language} if command.language else None
            data = await self._request(
                "POST",
                "/transcribe",
                content=command.wav,
                params=params,
                headers={"Content-Type": "audio/wav"},
            )
            return Transcript(**data)
        if isinstance(command, PushToTalk):
            await self._request("POST", "/push-to-talk", json={"action": command.action})
            return None
        computer = await self._execute_computer(command)
        if computer is not None:
            return computer
        raise AriaError(
            f"{type(command).__name__} cannot be sent to a running ARIA over its API yet.",
            hint="Use the tray app, or update ARIA.",
        )

    async def _execute_computer(self, command: Command) -> Any:
        """A computer-use command over its route, or None when ``command`` is not one."""
        if isinstance(command, CaptureScreen):
            response = await self._request_response(
                "POST", "/screen/shot", json={"monitor": command.monitor}
            )
            region = response.headers.get("x-screen-region", "0,0,0,0").split(",")
            box = [int(v) for v in region]
            return Screenshot(png=response.content, region=_rect(box), monitor=command.monitor)
        if isinstance(command, ReadScreen):
            return _screen_text(
                await self._request("POST", "/screen/ocr", json=_region_body(command.region))
            )
        if isinstance(command, FindOnScreen):
            query = {"text": command.text, **_region_body(command.region)}
            return _grounding(await self._request("POST", "/screen/find", json=query))
        if isinstance(command, ClickText):
            # Subscribers must see the click's confirmation request: connect them first.
            await asyncio.gather(*(sub.wait_ready() for sub in list(self._subs)))
            data = await self._request(
                "POST",
                "/screen/click",
                json={"text": command.text, "dry_run": command.dry_run},
                timeout=_ACT_TIMEOUT,
            )
            return ComputerActionOutcome(
                status=data["status"],
                action=data["action"],
                rule=data.get("rule", ""),
                detail=data.get("detail", ""),
                dry_run=data.get("dry_run", False),
            )
        if isinstance(command, RunComputerTask):
            await asyncio.gather(*(sub.wait_ready() for sub in list(self._subs)))
            body: dict[str, Any] = {"task": command.text, "dry_run": command.dry_run}
            if command.backend:
                body["backend"] = command.backend
            started = await self._request("POST", "/do", json=body)
            return ComputerTaskStarted(run_id=started["run_id"])
        if isinstance(command, SetComputerControl):
            data = await self._request(
                "PUT", "/computer/control", json={"enabled": command.enabled}
            )
            return bool(data["enabled"])
        return None

    async def capabilities(self) -> list[CapabilityStatus]:
        """Which capabilities the owner can use now."""
        return [CapabilityStatus(**item) for item in await self._request("GET", "/capabilities")]

    async def create_conversation(self, title: str) -> Conversation:
        """A new, empty conversation."""
        return _conversation(await self._request("POST", "/conversations", json={"title": title}))

    async def list_conversations(self, *, limit: int = 50, offset: int = 0) -> list[Conversation]:
        """Conversations, most recently updated first."""
        data = await self._request(
            "GET", "/conversations", params={"limit": limit, "offset": offset}
        )
        return [_conversation(item) for item in data]

    async def get_conversation(self, conversation_id: str) -> Conversation | None:
        """One conversation, or None."""
        try:
            data = await self._request(
                "GET", f"/conversations/{conversation_id}", params={"limit": 1}
            )
        except NotFoundError:
            return None
        return _conversation(data["conversation"])

    async def rename_conversation(self, conversation_id: str, title: str) -> None:
        """Change a conversation's title (NotFoundError if it does not exist)."""
        await self._request("PATCH", f"/conversations/{conversation_id}", json={"title": title})

    async def delete_conversation(self, conversation_id: str) -> None:
        """Delete a conversation and its messages (NotFoundError if it does not exist)."""
        await self._request("DELETE", f"/conversations/{conversation_id}")

    async def list_messages(
        self, conversation_id: str, *, limit: int | None = None, before_id: int | None = None
    ) -> list[StoredMessage]:
        """Messages oldest first; with ``limit``, the newest ``limit`` before ``before_id``."""
        collected: list[StoredMessage] = []
        while True:
            page = min(limit - len(collected), _PAGE) if limit is not None else _PAGE
            params: dict[str, Any] = {"limit": page}
            if before_id is not None:
                params["before_id"] = before_id
            data = await self._request("GET", f"/conversations/{conversation_id}", params=params)
            collected[:0] = [_message(m) for m in data["messages"]]
            before_id = data["next_before_id"]
            if before_id is None or (limit is not None and len(collected) >= limit):
                return collected

    # --- long-term memory -------------------------------------------------------------------

    async def search_memories(self, query: MemoryQuery) -> list[MemoryHit]:
        """Hybrid keyword + vector search on the owner (``mode`` and ``touch`` are its own)."""
        body: dict[str, Any] = {
            "query": query.text,
            "limit": query.limit,
            "kinds": list(query.kinds),
            "statuses": list(query.statuses),
            "min_similarity": query.min_similarity,
        }
        for name in ("subject", "since", "until"):
            value = getattr(query, name)
            if value is not None:
                body[name] = value
        data = await self._request("POST", "/memories/search", json=body)
        return [
            MemoryHit(
                memory=_memory(item["memory"]),
                score=item["score"],
                lexical_rank=item.get("lexical_rank"),
                vector_rank=item.get("vector_rank"),
            )
            for item in data
        ]

    async def list_memories(
        self,
        *,
        kinds: Sequence[str] = (),
        subject: str | None = None,
        statuses: Sequence[str] = ("active",),
        limit: int = 100,
        offset: int = 0,
    ) -> list[Memory]:
        """Memories newest first, filtered."""
        params: dict[str, Any] = {
            "kind": list(kinds),
            "status": list(statuses),
            "limit": limit,
            "offset": offset,
        }
        if subject is not None:
            params["subject"] = subject
        return [_memory(item) for item in await self._request("GET", "/memories", params=params)]

    async def get_memory(self, memory_id: str) -> Memory | None:
        """One memory (any status), or None."""
        try:
            return _memory(await self._request("GET", f"/memories/{memory_id}"))
        except NotFoundError:
            return None

    async def add_memory(
        self,
        content: str,
        *,
        kind: str = "fact",
        subject: str = "user",
        importance: float = 0.5,
        provenance: str = "manual",
    ) -> Memory:
        """Remember ``content`` on the owner (its provenance there is ``api``)."""
        body = {"content": content, "kind": kind, "subject": subject, "importance": importance}
        return _memory(await self._request("POST", "/memories", json=body))

    async def update_memory(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        kind: str | None = None,
        subject: str | None = None,
        importance: float | None = None,
    ) -> Memory:
        """Correct a memory in place (NotFoundError if it does not exist)."""
        changes = {"content": content, "kind": kind, "subject": subject, "importance": importance}
        body = {k: v for k, v in changes.items() if v is not None}
        return _memory(await self._request("PATCH", f"/memories/{memory_id}", json=body))

    async def forget_memory(self, memory_id: str) -> None:
        """Forget a memory (NotFoundError if it does not exist)."""
        await self._request("DELETE", f"/memories/{memory_id}")

    async def list_memory_inbox(self) -> list[MemoryCandidate]:
        """Extracted facts waiting for approval."""
        return [_candidate(item) for item in await self._request("GET", "/memory-inbox")]

    async def approve_memory(self, candidate_id: str) -> Memory:
        """Store an inbox entry as a memory (NotFoundError if it does not exist)."""
        return _memory(await self._request("POST", f"/memory-inbox/{candidate_id}/approve"))

    async def reject_memory(self, candidate_id: str) -> None:
        """Drop an inbox entry (NotFoundError if it does not exist)."""
        await self._request("POST", f"/memory-inbox/{candidate_id}/reject")

    async def get_settings(self) -> dict[str, Any]:
        """Every setting of the owner (no secrets)."""
        return dict((await self._request("GET", "/settings"))["settings"])

    async def update_settings(self, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Validate and save ``changes`` on the owner; applied after it restarts."""
        data = await self._request("PATCH", "/settings", json={"changes": dict(changes)})
        return dict(data["settings"])


def _check_protocol(client: ApiClient) -> Assistant:
    """Never called: makes mypy prove that ApiClient satisfies the Assistant protocol."""
    return client
