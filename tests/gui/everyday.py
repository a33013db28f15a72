"""Fixtures for the everyday skills' desktop face: a whole ARIA as the daemon builds it, no model.

The GUI is driven against the real thing: ``build_app`` with the skills installed over a real
SQLite file, the model pointed at a closed port, so every answer the tests see is a local one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import keyring.backends.fail
import pytest

from aria_desktop import keystore, log
from tests.gui.conftest import Runner
from tests.skills.conftest import no_model_settings

__all__ = ["skills_app"]


@pytest.fixture
def skills_app(isolated_env: Path, monkeypatch: pytest.MonkeyPatch, run: Runner) -> Iterator[Any]:
    """ARIA composed with no model reachable (the keyring kept out of reach)."""
    from aria_desktop.compose.app import build_app

    monkeypatch.setattr(keystore, "_env_values", {})
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())  # type: ignore[no-untyped-call]
    app = run(build_app(no_model_settings(isolated_env)), timeout_s=60)  # type: ignore[arg-type]
    run(_warmed(), timeout_s=60)
    try:
        yield app
    finally:
        run(app.aclose(), timeout_s=30)
        keyring.set_keyring(previous)
        log.clear_registered_secrets()


async def _warmed() -> None:
    """Wait for the templates' warm-up thread: one still running at the end would call back
    into the closed loop (it cannot be cancelled, only waited for)."""
    warming = [t for t in asyncio.all_tasks() if t.get_name() == "aria-skills-warm"]
    if warming:
        await asyncio.wait(warming)
