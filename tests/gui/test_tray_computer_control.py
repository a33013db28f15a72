"""The tray's "Computer control" item with the real computer-use capability: it sends
``SetComputerControl`` and follows ``computer-control-changed`` when control is switched
elsewhere (the API, the kill switch) without waiting for the periodic capability refresh."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aria_desktop.compose.tools import build_computer
from aria_desktop.core.audit import AuditLog
from aria_desktop.domain.commands import SetComputerControl, StopEverything
from aria_desktop.settings import Settings
from tests.fakes.audit import MemoryAuditStore
from tests.gui.conftest import wait_for


def test_tray_computer_item_follows_control_switched_elsewhere(
    desktop_factory: Any, stack: Any, run: Any, tmp_path: Path
) -> None:
    audit = AuditLog(MemoryAuditStore())
    computer = build_computer(Settings(), audit=audit)
    computer.install(stack.orchestrator)
    desktop = desktop_factory(stack.assistant, use_tray=True)
    actions = desktop.actions
    run(wait_for(lambda: actions.computer_control.isEnabled()))
    assert not actions.computer_control.isChecked()
    desktop.tray._refresh_timer.stop()  # only the event may update the item from here on

    # From the tray: the real capability switches on.
    actions.computer_control.trigger()
    run(wait_for(lambda: computer.enabled, timeout_s=3.0))
    run(wait_for(lambda: actions.computer_control.isChecked(), timeout_s=3.0))

    # Switched off elsewhere (as PUT /computer/control does): the check mark follows.
    run(stack.assistant.execute(SetComputerControl(enabled=False)))
    run(wait_for(lambda: not actions.computer_control.isChecked(), timeout_s=2.0))
    run(stack.assistant.execute(SetComputerControl(enabled=True)))
    run(wait_for(lambda: actions.computer_control.isChecked(), timeout_s=2.0))

    # The kill switch switches control off, and the tray shows it.
    run(stack.assistant.execute(StopEverything()))
    assert not computer.enabled
    run(wait_for(lambda: not actions.computer_control.isChecked(), timeout_s=2.0))
