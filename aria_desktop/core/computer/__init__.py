"""Computer use in the core: one pipeline, one action vocabulary, two loops.

* ``capability`` — ``ComputerUse``: wiring, the switch, the kill switch, perception, commands;
* ``pipeline`` — ``ActionPipeline``: policy -> confirmation -> re-verify -> act -> audit;
* ``targets`` — where a model aimed, as a screen point (``resolve_action``, ``ground``);
* ``chat_tools`` — the computer tools of chat turns and their policy hook;
* ``task`` — ``ComputerAgent``, the multi-step task loop with a model;
* ``config`` — ``ComputerConfig`` and ``ModelChoice``.

The action vocabulary itself (tool schemas, ``action_from_call``) is in
``aria_desktop.domain.computer_tools``; fencing and flagging of screen text in
``aria_desktop.core.untrusted`` (``aria_desktop/ARCHITECTURE.md``, computer use).
"""

from __future__ import annotations

from aria_desktop.core.computer.capability import ComputerUse
from aria_desktop.core.computer.chat_tools import COMPUTER_TOOL_NAMES
from aria_desktop.core.computer.config import ComputerConfig, ModelChoice
from aria_desktop.core.computer.targets import ground
from aria_desktop.core.computer.task import (
    COMPUTER_SYSTEM_PROMPT,
    ComputerAgent,
    TaskResult,
    agent_tool_specs,
)

__all__ = [
    "COMPUTER_SYSTEM_PROMPT",
    "COMPUTER_TOOL_NAMES",
    "ComputerAgent",
    "ComputerConfig",
    "ComputerUse",
    "ModelChoice",
    "TaskResult",
    "agent_tool_specs",
    "ground",
]
