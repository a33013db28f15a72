"""The tool registry and the policy hook every tool call passes.

A tool declares a name, a description, a JSON schema for its arguments and a permission class.
Arguments are validated before execution; the policy hook then decides allow / deny / confirm
deterministically, outside the model (ARCHITECTURE.md: safety). The default policy allows
read-only and reversible tools and requires confirmation for consequential ones; capability
issues (computer use) install stricter policies.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from aria_desktop.core.schema import check_schema, validate
from aria_desktop.domain.chat import ToolCall, ToolSpec
from aria_desktop.domain.errors import ToolArgumentsError, ToolNotFoundError

__all__ = [
    "PermissionClass",
    "PolicyDecision",
    "PolicyHook",
    "Tool",
    "ToolPolicy",
    "ToolRegistry",
    "default_policy",
]

PermissionClass = Literal["read_only", "reversible", "consequential"]
ToolHandler = Callable[[dict[str, Any]], Awaitable[Any]]
ToolPolicy = Callable[[dict[str, Any]], Awaitable["PolicyDecision"]]


@dataclass(frozen=True, kw_only=True)
class Tool:
    """A callable capability offered to the model.

    Attributes:
        name: unique name the model uses.
        description: what it does, for the model.
        parameters: JSON schema (object) of its arguments.
        permission: read_only, reversible or consequential (drives the default policy).
        handler: async function of the validated arguments; its result (str or JSON-able) is
            given back to the model.
        summarize: renders a call as plain words for confirmation dialogs and the audit log.
        policy: the tool's own decision on a call, by what the call would do (file and shell
            tools: paths, diffs, effects); used by :func:`default_policy` instead of the
            permission class.
        validator: problems with a call's arguments, for schemas beyond the built-in subset
            (tools from MCP servers: checked by their adapter with a full JSON-Schema
            validator); None means ``core.schema``'s strict subset.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    permission: PermissionClass
    handler: ToolHandler
    summarize: Callable[[dict[str, Any]], str] | None = field(default=None, compare=False)
    policy: ToolPolicy | None = field(default=None, compare=False)
    validator: Callable[[dict[str, Any]], list[str]] | None = field(default=None, compare=False)

    def spec(self) -> ToolSpec:
        """What the model is told about this tool."""
        return ToolSpec(name=self.name, description=self.description, parameters=self.parameters)

    def describe_call(self, arguments: dict[str, Any]) -> str:
        """Plain-words summary of a call with ``arguments``."""
        if self.summarize is not None:
            return self.summarize(arguments)
        rendered = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
        return f"{self.name} {rendered[:200]}"


@dataclass(frozen=True, kw_only=True)
class PolicyDecision:
    """The policy's verdict on one call.

    Attributes:
        verdict: allow, deny or confirm.
        rule: identifier of the rule that matched (shown to the user and audited).
        reason: plain-words explanation.
        summary: what the call would do, shown when confirming (the exact command or the
            diff and the effect in words); empty: the tool's ``describe_call``.
    """

    verdict: Literal["allow", "deny", "confirm"]
    rule: str
    reason: str = ""
    summary: str = ""


PolicyHook = Callable[[Tool, ToolCall], Awaitable[PolicyDecision]]


async def default_policy(tool: Tool, call: ToolCall) -> PolicyDecision:
    """A tool's own policy if it has one, else by permission class.

    Read-only and reversible tools are allowed; consequential ones need confirmation.
    """
    if tool.policy is not None:
        return await tool.policy(call.arguments)
    if tool.permission == "consequential":
        return PolicyDecision(
            verdict="confirm",
            rule="default:consequential",
            reason=f"{tool.name} has effects that cannot be undone",
        )
    return PolicyDecision(verdict="allow", rule=f"default:{tool.permission}")


class ToolRegistry:
    """Named tools, their specs for the model, and argument validation."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def register(self, tool: Tool) -> None:
        """Add a tool; its schema must be an object schema in the supported subset."""
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is already registered")
        if tool.parameters.get("type") != "object":
            raise ValueError(f"tool {tool.name!r}: parameters must be an object schema")
        if tool.validator is None:
            check_schema(tool.parameters, tool.name)
        self._tools[tool.name] = tool

    def unregister(self, name: str) -> None:
        """Remove a tool (an MCP server's tool that went away or changed); absent is fine."""
        self._tools.pop(name, None)

    def get(self, name: str) -> Tool:
        """The tool called ``name``; ToolNotFoundError if there is none."""
        try:
            return self._tools[name]
        except KeyError:
            raise ToolNotFoundError(
                f"There is no tool named {name!r}.",
                hint=f"Available tools: {', '.join(sorted(self._tools)) or 'none'}.",
            ) from None

    def specs(self, *, permission: PermissionClass | None = None) -> tuple[ToolSpec, ...]:
        """Specs of every registered tool (only those of ``permission`` if given), by name."""
        return tuple(
            self._tools[name].spec()
            for name in sorted(self._tools)
            if permission is None or self._tools[name].permission == permission
        )

    def names(self) -> list[str]:
        """Registered tool names, sorted."""
        return sorted(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def validate(self, call: ToolCall) -> Tool:
        """The tool for ``call`` after checking its arguments; ToolArgumentsError otherwise."""
        tool = self.get(call.name)
        if tool.validator is not None:
            problems = tool.validator(call.arguments)
        else:
            problems = validate(call.arguments, tool.parameters)
        if problems:
            raise ToolArgumentsError(
                f"Invalid arguments for {call.name}: " + "; ".join(problems[:5]),
                hint="Call the tool again with arguments matching its schema.",
            )
        return tool
