"""``aria desktop --attach``: the tray follows another process's ARIA over its HTTP API — the
countdown, a real ring (PulseAudio's null sink) told by ``ringing-changed`` on ``/events``,
and "Stop ringing" sent as ``POST /api/v1/ringing/stop``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aria_desktop import __version__
from aria_desktop.api.client.api_client import ApiClient
from aria_desktop.api.config import ApiConfig
from aria_desktop.api.runner import ApiServer
from aria_desktop.api.token import TokenFile
from aria_desktop.domain.skill_events import RingingChanged
from tests.gui.conftest import Runner, wait_for
from tests.gui.everyday import skills_app
from tests.voice.pulse import pulse_server

__all__ = ["skills_app"]


@pytest.fixture
def attached(skills_app: Any, isolated_env: Path, run: Runner) -> Iterator[ApiClient]:
    """The composed ARIA behind its real API on the loopback, and a client of it."""
    token_file = TokenFile(isolated_env / "api-token")
    config = ApiConfig(port=0, rate_limit_per_s=10_000, rate_limit_burst=10_000)
    server = ApiServer(skills_app.assistant, config=config, token=token_file, version=__version__)
    run(server.start())
    client = ApiClient(server.url, token_file.read())
    run(client.connect())
    try:
        yield client
    finally:
        run(client.aclose())
        run(server.stop(), timeout_s=30)


@pytest.fixture
def speaker(tmp_path: Path) -> Iterator[Any]:
    with pulse_server(tmp_path / "pulse") as server:
        yield server


def rang(seen: list[object]) -> list[bool]:
    return [event.ringing for event in seen if isinstance(event, RingingChanged)]


def menu_texts(desktop: Any) -> list[str]:
    return [a.text() for a in desktop.tray_view.menu.actions() if not a.isSeparator()]


@pytest.mark.slow
def test_the_attached_tray_counts_down_and_stops_a_real_ring_over_the_api(
    speaker: Any, attached: ApiClient, desktop_factory: Any, run: Runner
) -> None:
    desktop = desktop_factory(attached, use_tray=True)
    seen: list[object] = []
    desktop.bridge.event_received.connect(seen.append)
    run(attached.timers.start_timer(1, name="tea"))
    run(wait_for(lambda: menu_texts(desktop)[0] == "Stop ringing", timeout_s=15), timeout_s=20)
    desktop.tray_skills.stop_ringing.trigger()
    run(wait_for(lambda: rang(seen) == [True, False], timeout_s=10))  # told over /events
    run(wait_for(lambda: menu_texts(desktop)[0] == "Open chat"))


def test_stop_ringing_over_the_api_says_whether_one_rang(attached: ApiClient, run: Runner) -> None:
    from aria_desktop.domain.commands import StopRinging

    assert run(attached.execute(StopRinging())) is False
