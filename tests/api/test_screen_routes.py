"""Computer use over the HTTP API, for real: an orchestrator wired like ``compose.app.build_app``
(real screen, OCR, input and policy adapters) on a private Xvfb display, the PySide6 target app
as the thing to look at and click, and the API on 127.0.0.1 (httpx). The display
(tests/conftest.py), the target app and the orchestrator (tests/computer/conftest.py) are
shared with tests/computer."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

from aria_desktop import __version__
from aria_desktop.api.client.api_client import ApiClient
from aria_desktop.api.config import ApiConfig
from aria_desktop.api.runner import ApiServer
from aria_desktop.api.token import TokenFile
from aria_desktop.core.assistant import LocalAssistant
from aria_desktop.domain.commands import (
    CaptureScreen,
    ClickText,
    FindOnScreen,
    ReadScreen,
    SetComputerControl,
)
from aria_desktop.domain.computer import Grounding, Screenshot, ScreenText
from aria_desktop.domain.errors import ComputerControlOffError, DisplayUnavailableError
from tests.api.conftest import Api
from tests.computer.conftest import (
    Rig,
    TargetApp,
    anthropic,
    app,
    rig_factory,
    target_app,
)
from tests.computer.test_agent import click_label, done, script
from tests.fakes import FakeOllama

# Outside the fast loop: the real target app under Xvfb, real OCR.
pytestmark = pytest.mark.slow

__all__ = ["anthropic", "app", "rig_factory", "target_app"]  # shared fixtures

P = "/api/v1"
CONFIRM_TIMEOUT_S = 3.0


@dataclass
class ScreenApi:
    rig: Rig
    server: ApiServer
    client: httpx.AsyncClient
    token: str

    @property
    def url(self) -> str:
        return self.server.url


@pytest.fixture
async def screen_api(tmp_path: Path, rig_factory: Callable[..., Any]) -> AsyncIterator[ScreenApi]:
    rig: Rig = await rig_factory(enabled=False, confirm_timeout_s=CONFIRM_TIMEOUT_S)
    token_file = TokenFile(tmp_path / "config" / "api" / "token")
    server = ApiServer(
        LocalAssistant(rig.orchestrator),
        config=ApiConfig(port=0, rate_limit_per_s=10_000, rate_limit_burst=10_000),
        token=token_file,
        version=__version__,
    )
    await server.start()
    token = token_file.read()
    client = httpx.AsyncClient(
        base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30.0
    )
    try:
        yield ScreenApi(rig=rig, server=server, client=client, token=token)
    finally:
        await client.aclose()
        await server.stop()


class EventReader:
    """``GET /events`` read in the background (connected before the test acts)."""

    def __init__(self, client: httpx.AsyncClient, types: str) -> None:
        self.frames: list[tuple[str, dict[str, Any]]] = []
        self._client = client
        self._types = types
        self._ready = asyncio.Event()
        self._new = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> EventReader:
        self._task = asyncio.create_task(self._read(), name="test-events")
        async with asyncio.timeout(5):
            await self._ready.wait()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._task is not None
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)

    async def _read(self) -> None:
        params = {"types": self._types}
        async with self._client.stream("GET", f"{P}/events", params=params) as response:
            name = ""
            async for line in response.aiter_lines():
                if line == ": ready":
                    self._ready.set()
                elif line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    self.frames.append((name, json.loads(line[6:])))
                    self._new.set()

    async def wait_for(self, name: str, timeout_s: float = 15.0, **match: Any) -> dict[str, Any]:
        async with asyncio.timeout(timeout_s):
            while True:
                for frame_name, data in self.frames:
                    if frame_name == name and all(data.get(k) == v for k, v in match.items()):
                        return data
                self._new.clear()
                await self._new.wait()


def inside(point: list[int], box: list[int]) -> bool:
    x, y, w, h = box
    return x <= point[0] < x + w and y <= point[1] < y + h


async def test_shot_is_a_png_of_the_whole_screen_and_a_missing_monitor_is_refused(
    screen_api: ScreenApi, app: TargetApp
) -> None:
    shot = await screen_api.client.post(f"{P}/screen/shot")
    assert shot.status_code == 200, shot.text
    assert shot.headers["content-type"] == "image/png"
    assert shot.headers["x-screen-region"] == "0,0,1280,800"
    with Image.open(io.BytesIO(shot.content)) as image:
        assert image.format == "PNG"
        assert image.size == (1280, 800)
    one = await screen_api.client.post(f"{P}/screen/shot", json={"monitor": 1})
    assert one.status_code == 200
    missing = await screen_api.client.post(f"{P}/screen/shot", json={"monitor": 7})
    assert missing.status_code == 422
    assert missing.json()["error"]["code"] == "monitor_not_found"
    assert missing.json()["error"]["hint"]


async def test_find_and_ocr_report_where_the_target_apps_labels_are(
    screen_api: ScreenApi, app: TargetApp
) -> None:
    widgets = app.ready["widgets"]
    found = await screen_api.client.post(f"{P}/screen/find", json={"text": "open   downloads"})
    assert found.status_code == 200, found.text
    body = found.json()
    assert body["status"] == "found"
    best = body["matches"][0]
    assert best["text"] == "Open Downloads"
    assert inside(best["center"], widgets["Open Downloads"])
    missing = await screen_api.client.post(f"{P}/screen/find", json={"text": "Transmogrify"})
    assert missing.json() == {"query": "Transmogrify", "status": "not_found", "matches": []}
    main = app.ready["main"]
    region = {"x": main[0], "y": main[1], "width": main[2], "height": main[3]}
    ocr = await screen_api.client.post(f"{P}/screen/ocr", json={"region": region})
    assert ocr.status_code == 200, ocr.text
    elements = {e["text"]: e["box"] for e in ocr.json()["elements"]}
    assert {"Send", "Delete", "Save Draft", "Subscribe to newsletter"} <= set(elements)
    assert ocr.json()["region"] == main
    send_box = elements["Send"]
    centre = [send_box[0] + send_box[2] // 2, send_box[1] + send_box[3] // 2]
    assert inside(centre, widgets["Send"])


async def test_click_is_refused_while_control_is_off_and_lands_once_it_is_on(
    screen_api: ScreenApi, app: TargetApp
) -> None:
    client = screen_api.client
    assert (await client.get(f"{P}/computer/control")).json() == {
        "enabled": False,
        "available": True,
        "reason": "",
    }
    mark = app.mark()
    refused = await client.post(f"{P}/screen/click", json={"text": "Save Draft"})
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "computer_control_off"
    assert "computer-off" in error["message"]
    assert "PUT /api/v1/computer/control" in error["hint"]
    dry = await client.post(f"{P}/screen/click", json={"text": "Save Draft", "dry_run": True})
    assert dry.status_code == 200
    assert dry.json()["status"] == "ok"
    assert dry.json()["dry_run"] is True

    async with EventReader(client, "computer-control-changed") as events:
        switched = await client.put(f"{P}/computer/control", json={"enabled": True})
        assert switched.status_code == 200
        assert switched.json()["enabled"] is True
        assert (await events.wait_for("computer-control-changed"))["enabled"] is True
    clicked = await client.post(f"{P}/screen/click", json={"text": "Save Draft"})
    assert clicked.status_code == 200, clicked.text
    assert clicked.json()["status"] == "ok"
    app.wait_for("click", since=mark)
    assert app.clicks(mark) == ["save_draft"]  # the dry run and the refusal clicked nothing
    # A lone click does not leave ARIA "acting" (the GUI's overlay would stay up).
    assert (await client.get(f"{P}/state")).json()["state"] == "idle"
    not_there = await client.post(f"{P}/screen/click", json={"text": "Transmogrify"})
    assert not_there.status_code == 404
    assert not_there.json()["error"]["code"] == "target_not_found"
    assert (await client.put(f"{P}/computer/control", json={"enabled": False})).json()[
        "enabled"
    ] is False


async def test_send_waits_for_the_out_of_band_confirmation_with_its_nonce(
    screen_api: ScreenApi, app: TargetApp
) -> None:
    client = screen_api.client
    await client.put(f"{P}/computer/control", json={"enabled": True})
    mark = app.mark()
    async with EventReader(client, "action-confirm-request,action-confirm-result") as events:
        click = asyncio.create_task(client.post(f"{P}/screen/click", json={"text": "Send"}))
        request = await events.wait_for("action-confirm-request")
        assert request["tool"] == "computer"
        assert "Send" in request["summary"]
        await asyncio.sleep(0.3)
        assert not click.done()
        assert app.clicks(mark) == []  # nothing happens before the user answers
        wrong = await client.post(
            f"{P}/actions/{request['request_id']}/confirm",
            json={"approved": True, "nonce": "0" * len(request["nonce"])},
        )
        assert wrong.status_code == 409
        assert wrong.json()["error"]["code"] == "confirmation_invalid"
        assert not click.done()
        right = await client.post(
            f"{P}/actions/{request['request_id']}/confirm",
            json={"approved": True, "nonce": request["nonce"]},
        )
        assert right.status_code == 204
        async with asyncio.timeout(15):
            response = await click
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "ok"
    app.wait_for("click", since=mark)
    assert app.clicks(mark) == ["send"]


async def test_an_unanswered_confirmation_is_a_denial_and_nothing_is_clicked(
    screen_api: ScreenApi, app: TargetApp
) -> None:
    client = screen_api.client
    await client.put(f"{P}/computer/control", json={"enabled": True})
    mark = app.mark()
    response = await client.post(f"{P}/screen/click", json={"text": "Delete"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "denied"
    assert "did not answer in time" in body["detail"]
    await asyncio.sleep(0.3)
    assert app.clicks(mark) == []


async def test_a_click_that_commits_money_asks_whatever_its_wording(
    screen_api: ScreenApi, app: TargetApp
) -> None:
    client = screen_api.client
    await client.put(f"{P}/computer/control", json={"enabled": True})
    app.command("banner", "banner-shown", text="Continue to payment")
    async with EventReader(client, "action-confirm-request") as events:
        click = await client.post(f"{P}/screen/click", json={"text": "Continue to payment"})
        request = await events.wait_for("action-confirm-request")
    assert "commits money" in request["reason"]
    assert click.json()["status"] == "denied"
    assert click.json()["rule"] == "consequential:target"


async def test_do_runs_a_task_in_the_background_and_reports_on_events(
    screen_api: ScreenApi, app: TargetApp, ollama: FakeOllama
) -> None:
    script(ollama, [click_label("Cancel"), done("Cancelled.")])
    client = screen_api.client
    await client.put(f"{P}/computer/control", json={"enabled": True})
    mark = app.mark()
    async with EventReader(client, "computer-task-start,computer-task-end") as events:
        started = await client.post(f"{P}/do", json={"task": "cancel the form"})
        assert started.status_code == 202, started.text
        run_id = started.json()["run_id"]
        busy = await client.post(f"{P}/do", json={"task": "and again"})
        assert busy.status_code == 409
        assert busy.json()["error"]["code"] == "computer_busy"
        end = await events.wait_for("computer-task-end", timeout_s=30, run_id=run_id)
    assert end["status"] == "complete", end
    assert end["summary"] == "Cancelled."
    assert app.clicks(mark) == ["cancel"]
    assert (await client.post(f"{P}/do", json={"task": "  "})).status_code == 422


async def test_api_client_carries_the_screen_commands(
    screen_api: ScreenApi, app: TargetApp
) -> None:
    async with ApiClient(screen_api.url, screen_api.token) as client:
        shot = await client.execute(CaptureScreen())
        assert isinstance(shot, Screenshot)
        assert (shot.region.width, shot.region.height) == (1280, 800)
        assert shot.png[:8] == b"\x89PNG\r\n\x1a\n"
        grounding = await client.execute(FindOnScreen(text="Save Draft"))
        assert isinstance(grounding, Grounding)
        assert grounding.best is not None
        assert grounding.best.text == "Save Draft"
        main = app.ready["main"]
        text = await client.execute(ReadScreen(region=tuple(main)))
        assert isinstance(text, ScreenText)
        assert "Send" in {e.text for e in text.elements}
        assert await client.execute(SetComputerControl(enabled=False)) is False
        with pytest.raises(ComputerControlOffError) as refused:
            await client.execute(ClickText(text="Save Draft"))
        assert "computer/control" in refused.value.hint


async def test_an_aria_without_computer_use_answers_503_with_a_hint(api: Api) -> None:
    for method, path, body in (
        ("POST", "/screen/shot", None),
        ("POST", "/screen/ocr", None),
        ("POST", "/screen/find", {"text": "OK"}),
        ("POST", "/screen/click", {"text": "OK"}),
        ("POST", "/do", {"task": "open the Downloads folder"}),
        ("GET", "/computer/control", None),
        ("PUT", "/computer/control", {"enabled": True}),
    ):
        response = await api.client.request(method, f"{P}{path}", json=body)
        assert response.status_code == 503, (path, response.text)
        assert response.json()["error"]["code"] == "display_unavailable"
        assert response.json()["error"]["hint"]
    async with ApiClient(api.url, api.token) as client:
        with pytest.raises(DisplayUnavailableError):
            await client.execute(CaptureScreen())
