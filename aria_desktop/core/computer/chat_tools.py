"""Computer use as tools of a chat turn: ``screen_read``, ``screen_find`` and the actions.

The computer policy plugs into the agent loop's ``PolicyHook``: the hook decides (so the
existing ``ConfirmationBroker`` asks the user for consequential actions) and remembers the
decision and what the target looked like; the tool's handler then only re-verifies and acts
through the one pipeline. Tool calls become actions through the one vocabulary
(``action_from_call``) and ``resolve_action``, as in the task loop.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from aria_desktop.core.computer.pipeline import ActionPipeline, Decided, off_decision
from aria_desktop.core.computer.targets import ScreenLocator, resolve_action
from aria_desktop.core.ports import ComputerPort
from aria_desktop.core.tools import PolicyDecision, PolicyHook, Tool
from aria_desktop.core.untrusted import describe_screen
from aria_desktop.domain.chat import ToolCall
from aria_desktop.domain.computer import ComputerAction, Grounding, Observation, Rect
from aria_desktop.domain.computer_tools import CHAT_ACTION_TOOLS, SCREEN_TOOLS, action_from_call
from aria_desktop.domain.errors import AriaError, ComputerError

__all__ = ["COMPUTER_TOOL_NAMES", "ChatComputerTools", "ScreenAccess"]

COMPUTER_TOOL_NAMES = frozenset(
    spec.name for spec in (*SCREEN_TOOLS, *(tool.spec for tool in CHAT_ACTION_TOOLS))
)
"""Chat tools judged by the computer policy instead of the default one."""

_STASH_LIMIT = 32
_SUMMARIES: dict[str, Callable[[dict[str, Any]], str]] = {
    "computer_click": lambda a: f"click {a.get('text') or a.get('target') or a}",
    "computer_type": lambda a: f"type {len(str(a.get('text', '')))} characters",
    "computer_keys": lambda a: f"press {'+'.join(map(str, a.get('keys', [])))}",
}


class ScreenAccess(Protocol):
    """What the chat tools need from the capability (``ComputerUse``) besides its pipeline."""

    port: ComputerPort
    """Screen, OCR, windows and input."""

    @property
    def enabled(self) -> bool:
        """Whether computer control is switched on."""
        ...

    @property
    def last_observation(self) -> Observation | None:
        """The screen a model was shown last (the tools aim on it)."""
        ...

    async def observe(
        self, *, run_id: str | None = None, ocr: bool = True, flag: bool = True
    ) -> Observation:
        """A look at the screen for a model."""
        ...

    async def find(self, text: str, region: Rect | None = None) -> Grounding:
        """Where ``text`` is on the screen."""
        ...


def _stash_key(name: str, args: dict[str, Any]) -> str:
    return name + json.dumps(args, sort_keys=True, ensure_ascii=False)


class ChatComputerTools:
    """The computer tools of chat turns and the policy hook that judges them.

    Args:
        computer: the capability (perception, switch).
        pipeline: the capability's one action pipeline.
    """

    def __init__(self, computer: ScreenAccess, pipeline: ActionPipeline) -> None:
        """Nothing decided yet."""
        self._computer = computer
        self._pipeline = pipeline
        self._stash: dict[str, deque[Decided]] = {}

    def tools(self) -> list[Tool]:
        """The tools to register: the screen tools (read only) and the action tools."""
        screen = [
            Tool(
                name=spec.name,
                description=spec.description,
                parameters=spec.parameters,
                permission="read_only",
                handler=self._handler(spec.name),
            )
            for spec in SCREEN_TOOLS
        ]
        actions = [
            Tool(
                name=tool.spec.name,
                description=tool.spec.description,
                parameters=tool.spec.parameters,
                permission="reversible",
                handler=self._handler(tool.spec.name),
                summarize=_SUMMARIES.get(tool.spec.name),
            )
            for tool in CHAT_ACTION_TOOLS
        ]
        return screen + actions

    def policy_hook(self, inner: PolicyHook) -> PolicyHook:
        """A ``PolicyHook``: computer tools by the computer policy, others by ``inner``."""

        async def hook(tool: Tool, call: ToolCall) -> PolicyDecision:
            if tool.name not in COMPUTER_TOOL_NAMES:
                return await inner(tool, call)
            if tool.permission == "read_only":
                return PolicyDecision(verdict="allow", rule="computer:read-only")
            computer = self._computer
            if not computer.enabled:
                off = off_decision(ComputerAction(kind="wait"))
                return PolicyDecision(verdict="deny", rule=off.rule, reason=off.reason)
            try:
                decision, expectation = await self._pipeline.decide(
                    self._action(tool.name, call.arguments),
                    task_id=f"turn:{call.id}",
                    observation=computer.last_observation,
                    dry_run=False,
                )
            except AriaError as exc:
                return PolicyDecision(verdict="deny", rule=f"target:{exc.code}", reason=exc.message)
            if decision.verdict != "deny":
                self._remember(tool.name, call.arguments, (decision, expectation))
            return PolicyDecision(
                verdict=decision.verdict, rule=decision.rule, reason=decision.reason
            )

        return hook

    def _remember(self, name: str, args: dict[str, Any], decided: Decided) -> None:
        """Keep the hook's decision for the handler of the same call (bounded)."""
        queue = self._stash.setdefault(_stash_key(name, args), deque())
        queue.append(decided)
        if len(self._stash) > _STASH_LIMIT:
            self._stash.pop(next(iter(self._stash)))

    def _recall(self, name: str, args: dict[str, Any]) -> Decided | None:
        """The decision the hook made for this call, if any (each is used once)."""
        key = _stash_key(name, args)
        queue = self._stash.get(key)
        decided = queue.popleft() if queue else None
        if queue is not None and not queue:
            self._stash.pop(key, None)
        return decided

    def _action(self, name: str, args: dict[str, Any]) -> ComputerAction:
        """The action a call proposes, aimed on the last screen read (physical pixels)."""
        computer = self._computer
        locate = ScreenLocator(computer.port, computer.last_observation, coordinates="physical")
        return resolve_action(action_from_call(name, args), locate)

    def _handler(self, name: str) -> Callable[[dict[str, Any]], Any]:
        async def run(args: dict[str, Any]) -> Any:
            return await self._run(name, args)

        return run

    async def _run(self, name: str, args: dict[str, Any]) -> Any:
        computer = self._computer
        if name == "screen_read":
            observation = await computer.observe(flag=False)
            assert observation.text is not None
            return describe_screen(observation, coordinates="physical")
        if name == "screen_find":
            return (await computer.find(str(args["text"]))).as_json()
        decided = self._recall(name, args)
        outcome = await self._pipeline.perform(
            self._action(name, args),
            run_id=None,
            task_id="turn",
            observation=computer.last_observation,
            decided=decided,
            source="chat-tool",
        )
        if outcome.status != "ok":
            raise ComputerError(outcome.detail or outcome.status)
        return {"status": outcome.status, "done": outcome.detail}
