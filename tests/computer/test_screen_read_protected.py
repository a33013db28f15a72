"""Reading the screen for another program (MCP ``screen_read``): never while a protected
window is visible, on the real target app under Xvfb (its "vault" window is titled like a
password manager, which the built-in deny list protects)."""

from __future__ import annotations

from typing import Any

import pytest

from aria_desktop.domain.commands import ReadScreen
from aria_desktop.domain.errors import ScreenProtectedError
from tests.computer.conftest import Rig, TargetApp

pytestmark = pytest.mark.slow


async def test_the_screen_is_not_read_for_others_while_a_protected_window_shows(
    rig_factory: Any, app: TargetApp
) -> None:
    rig: Rig = await rig_factory()
    with pytest.raises(ScreenProtectedError) as refused:
        await rig.orchestrator.handle(ReadScreen(unless_protected=True))
    assert "deny:password-manager" in refused.value.message
    # ARIA's own loops still read it (their actions are checked window by window).
    text = await rig.orchestrator.handle(ReadScreen())
    assert "Send" in text.text


async def test_a_window_is_protected_by_its_deny_rule_even_when_overridden(
    rig_factory: Any, app: TargetApp
) -> None:
    rig: Rig = await rig_factory(overrides=("password-manager",))
    observation = await rig.computer.observe(ocr=False)
    vault = next(
        w for w in observation.windows if "vault" in w.title.lower() or "pass" in w.title.lower()
    )
    assert rig.computer.policy.protection(vault) == "deny:password-manager"
