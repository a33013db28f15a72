"""MCP servers' tools under ARIA's policy: namespacing, pinning, per-tool policy, paged results.

The MCP adapter (``aria_desktop/adapters/mcp/``) keeps the servers running and reports their tools;
this bridge turns each into a registry ``Tool`` named ``server__tool`` (ARCHITECTURE.md: MCP) and
decides every call deterministically (ARCHITECTURE.md: safety):

* every MCP tool asks by default; ``tool=always|ask|never`` in the server's settings overrides;
  the server's ``readOnlyHint``/``destructiveHint`` are shown in the confirmation, never trusted;
* **pinning**: the first approved call pins a hash of the tool's name, description and schema;
  a server that later changes any of them gets the tool refused (``mcp_tool_changed``) until the
  user reviews the difference (``aria mcp review``);
* results are fenced as untrusted data and capped: the model sees the head, the whole result
  is kept and pageable through ``mcp_result_page``.
"""

from __future__ import annotations

import difflib
import json
import logging
import secrets
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from aria_desktop.core.mcp.ports import McpHub, PinStore
from aria_desktop.core.mcp.questions import QuestionBroker
from aria_desktop.core.tools import PolicyDecision, PolicyHook, Tool, ToolRegistry
from aria_desktop.domain.chat import CapabilityStatus, ToolCall
from aria_desktop.domain.commands import (
    AnswerMcpQuestion,
    ApproveMcpTool,
    GetMcpPrompt,
    ListMcp,
    ReadMcpResource,
    SetMcpToolPolicy,
    SignInMcpServer,
    SignOutMcpServer,
)
from aria_desktop.domain.errors import (
    ConfigError,
    McpToolChangedError,
    NotFoundError,
    ToolArgumentsError,
)
from aria_desktop.domain.mcp import (
    McpApproval,
    McpCallResult,
    McpOverview,
    McpPin,
    McpPromptText,
    McpToolInfo,
    McpToolPolicy,
    McpToolState,
)

if TYPE_CHECKING:
    from aria_desktop.core.orchestrator import Orchestrator

__all__ = [
    "PAGE_TOOL",
    "McpBridge",
    "McpHub",
    "PinStore",
    "pin_diff",
]

_LOGGER = logging.getLogger(__name__)
PAGE_TOOL = "mcp_result_page"
_KEPT_RESULTS = 32


def pin_diff(pin: McpPin, tool: McpToolInfo) -> str:
    """A unified diff of the approved definition against the current one."""
    before = json.dumps(pin.definition, indent=2, sort_keys=True, ensure_ascii=False)
    after = json.dumps(tool.definition(), indent=2, sort_keys=True, ensure_ascii=False)
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), "approved", "now", lineterm=""
    )
    return "\n".join(lines)


def _hints(tool: McpToolInfo) -> str:
    words = []
    if tool.read_only_hint:
        words.append("says it is read-only")
    if tool.destructive_hint:
        words.append("says it is destructive")
    return f" (the server {' and '.join(words)}; hints are not trusted)" if words else ""


class McpBridge:
    """The registry's view of the MCP servers, and the policy in front of their tools.

    Args:
        hub: the running servers.
        pins: approved tool definitions.
        policies: ``server__tool`` -> always/ask/never (absent: ask).
        result_chars: characters of a result the model sees at once.
    """

    def __init__(
        self,
        hub: McpHub,
        pins: PinStore,
        *,
        policies: Mapping[str, McpToolPolicy],
        result_chars: int,
    ) -> None:
        """Wire to the hub; nothing is registered until :meth:`install`."""
        self._hub = hub
        self._pins = pins
        self._policies = dict(policies)
        self._result_chars = result_chars
        self._tools: dict[str, McpToolInfo] = {}
        self._results: OrderedDict[str, str] = OrderedDict()
        self._registry: ToolRegistry | None = None

    # --- registry -------------------------------------------------------------------------

    def install(self, orchestrator: Orchestrator) -> None:
        """Offer the servers' tools in the orchestrator's registry; handle the MCP commands."""
        self.attach(orchestrator.tools)

        async def overview(_command: ListMcp) -> McpOverview:
            return self.overview()

        async def set_policy(command: SetMcpToolPolicy) -> None:
            self.set_policy(command.tool, command.policy)

        async def approve(command: ApproveMcpTool) -> None:
            self.approve(command.tool)

        orchestrator.register_capability("mcp", self.capability)
        orchestrator.register_command(ListMcp, overview)
        orchestrator.register_command(SetMcpToolPolicy, set_policy)
        orchestrator.register_command(ApproveMcpTool, approve)

        async def sign_in(command: SignInMcpServer) -> str:
            return await self._hub.sign_in(command.server, browser=command.browser)

        async def sign_out(command: SignOutMcpServer) -> str:
            return await self._hub.sign_out(command.server)

        orchestrator.register_command(SignInMcpServer, sign_in)
        orchestrator.register_command(SignOutMcpServer, sign_out)

        async def read(command: ReadMcpResource) -> McpCallResult:
            return await self._hub.read_resource(command.server, command.uri)

        async def prompt(command: GetMcpPrompt) -> McpPromptText:
            return await self._hub.get_prompt(command.server, command.name, dict(command.arguments))

        orchestrator.register_command(ReadMcpResource, read)
        orchestrator.register_command(GetMcpPrompt, prompt)
        self._install_questions(orchestrator)

    def _install_questions(self, orchestrator: Orchestrator) -> None:
        """The servers' questions go to the person out of band; the kill switch declines them."""
        questions = QuestionBroker(orchestrator.bus)
        self._hub.set_asker(questions.ask)

        async def answer(command: AnswerMcpQuestion) -> None:
            questions.answer(command.request_id, command.nonce, command.action, command.values)

        async def decline_all() -> None:
            questions.decline_all()

        orchestrator.register_command(AnswerMcpQuestion, answer)
        orchestrator.add_stop_hook(decline_all)

    def attach(self, registry: ToolRegistry) -> None:
        """Register the paging tool and the servers' tools; follow their changes."""
        self._registry = registry
        registry.register(self._page_tool())
        self.sync()
        self._hub.on_tools_changed(self.sync)

    def sync(self) -> None:
        """Make the registry hold exactly the servers' current tools."""
        registry = self._registry
        if registry is None:
            return
        current = {tool.qualified: tool for tool in self._hub.tools()}
        for name in list(self._tools):
            if current.get(name) != self._tools[name]:
                registry.unregister(name)
                del self._tools[name]
        for name, info in current.items():
            if name in self._tools:
                continue
            if name in registry.names():
                _LOGGER.warning("MCP tool %s clashes with a built-in tool; not offered", name)
                continue
            registry.register(self._tool(info))
            self._tools[name] = info

    def capability(self) -> CapabilityStatus:
        """MCP is available when at least one server runs (or none is configured)."""
        statuses = self._hub.statuses()
        down = [s.name for s in statuses if s.state != "running"]
        if statuses and len(down) == len(statuses):
            return CapabilityStatus(
                name="mcp", available=False, reason=f"no MCP server runs ({', '.join(down)})"
            )
        reason = f"not running: {', '.join(down)}" if down else ""
        return CapabilityStatus(name="mcp", available=True, reason=reason)

    def overview(self) -> McpOverview:
        """Servers, and every tool with its policy and approval state."""
        tools = tuple(self._tool_state(info) for info in self._hub.tools())
        return McpOverview(
            servers=tuple(self._hub.statuses()),
            tools=tools,
            resources=tuple(self._hub.resources()),
            prompts=tuple(self._hub.prompts()),
        )

    def _tool_state(self, info: McpToolInfo) -> McpToolState:
        """One tool as the overview shows it: its policy and its approval state.

        A tool whose definition changed since the user approved it carries the difference.
        """
        pin = self._pins.get(info.qualified)
        approval: McpApproval = "approved"
        diff = ""
        if pin is None:
            approval = "not approved"
        elif pin.hash != info.pin_hash():
            approval, diff = "changed", pin_diff(pin, info)
        return McpToolState(
            qualified=info.qualified,
            server=info.server,
            name=info.name,
            description=info.description,
            policy=self._policies.get(info.qualified, "ask"),
            approval=approval,
            read_only_hint=info.read_only_hint,
            destructive_hint=info.destructive_hint,
            diff=diff,
        )

    def _known(self, qualified: str) -> McpToolInfo:
        info = self._tools.get(qualified)
        if info is None:
            raise NotFoundError(
                f"No MCP tool {qualified!r} is offered now.", hint="See `aria mcp tools`."
            )
        return info

    def set_policy(self, qualified: str, policy: str) -> None:
        """Change one tool's policy for this run (the settings keep it for the next)."""
        self._known(qualified)
        if policy not in ("always", "ask", "never"):
            raise ConfigError(f"{policy!r} is not a tool policy.", hint="Use always, ask or never.")
        self._policies[qualified] = policy  # type: ignore[assignment]

    def approve(self, qualified: str) -> None:
        """Pin the tool's current definition: the user reviewed it."""
        info = self._known(qualified)
        self._pins.put(qualified, McpPin(hash=info.pin_hash(), definition=info.definition()))

    def tool_info(self, qualified: str) -> McpToolInfo | None:
        """The MCP tool registered as ``qualified``, if any."""
        return self._tools.get(qualified)

    def _tool(self, info: McpToolInfo) -> Tool:
        async def handler(arguments: dict[str, Any]) -> str:
            return await self._call(info, arguments)

        description = info.description or f"Tool {info.name} of the MCP server {info.server}."
        return Tool(
            name=info.qualified,
            description=f"[MCP server {info.server}] {description}",
            parameters=info.input_schema or {"type": "object", "properties": {}},
            permission="consequential",
            handler=handler,
            summarize=lambda a: (
                f"{info.server}: {info.name} "
                f"{json.dumps(a, ensure_ascii=False, sort_keys=True)[:300]}{_hints(info)}"
            ),
            validator=self._hub.validator(info),
        )

    # --- policy ---------------------------------------------------------------------------

    def policy_hook(self, inner: PolicyHook) -> PolicyHook:
        """``inner`` for every other tool; for MCP tools: pin check, then the tool's policy."""

        async def hook(tool: Tool, call: ToolCall) -> PolicyDecision:
            info = self._tools.get(tool.name)
            if info is None:
                return await inner(tool, call)
            return self.decide(info)

        return hook

    def decide(self, info: McpToolInfo) -> PolicyDecision:
        """The verdict on a call of ``info`` (its arguments do not change it)."""
        pin = self._pins.get(info.qualified)
        if pin is not None and pin.hash != info.pin_hash():
            return PolicyDecision(
                verdict="deny",
                rule="mcp:tool-changed",
                reason=(
                    f"{info.qualified} changed since it was approved; review it with "
                    f"`aria mcp review {info.qualified}`"
                ),
            )
        policy = self._policies.get(info.qualified, "ask")
        if policy == "never":
            return PolicyDecision(verdict="deny", rule="mcp:never", reason="set to never")
        if policy == "always":
            return PolicyDecision(verdict="allow", rule="mcp:always")
        return PolicyDecision(
            verdict="confirm",
            rule="mcp:ask",
            reason=f"a tool of the MCP server {info.server}{_hints(info)}",
        )

    # --- calls ----------------------------------------------------------------------------

    async def _call(self, info: McpToolInfo, arguments: dict[str, Any]) -> str:
        """Run an approved call: pin on first approval, call, fence, cap."""
        pin = self._pins.get(info.qualified)
        if pin is None:
            self._pins.put(
                info.qualified, McpPin(hash=info.pin_hash(), definition=info.definition())
            )
        elif pin.hash != info.pin_hash():  # changed between decision and call
            raise McpToolChangedError(
                f"{info.qualified} changed since it was approved.",
                hint=f"Review it with `aria mcp review {info.qualified}`.",
            )
        result = await self._hub.call(info.server, info.name, arguments)
        text = self._cap(info.qualified, result.text)
        if result.is_error:
            text = f"The tool reported an error:\n{text}"
        return text  # fenced and scanned by the agent loop, like every tool result

    def _cap(self, name: str, text: str) -> str:
        if len(text) <= self._result_chars:
            return text
        result_id = secrets.token_hex(6)
        self._results[result_id] = text
        while len(self._results) > _KEPT_RESULTS:
            self._results.popitem(last=False)
        return (
            text[: self._result_chars]
            + f"\n[{len(text) - self._result_chars} more characters of {len(text)}: call "
            f"{PAGE_TOOL} with result_id={result_id!r} and offset={self._result_chars}]"
        )

    def page(self, result_id: str, offset: int) -> str:
        """``result_chars`` characters of a kept result from ``offset``."""
        text = self._results.get(result_id)
        if text is None:
            raise ToolArgumentsError(
                f"No kept MCP result {result_id!r}.",
                hint="Only the most recent results are kept; call the tool again.",
            )
        end = offset + self._result_chars
        piece = text[offset:end]
        more = f"\n[next offset {end} of {len(text)}]" if end < len(text) else "\n[end]"
        return piece + more

    def _page_tool(self) -> Tool:
        async def handler(arguments: dict[str, Any]) -> str:
            return self.page(str(arguments["result_id"]), int(arguments.get("offset", 0)))

        return Tool(
            name=PAGE_TOOL,
            description="Read more of a long MCP tool result that was cut (from an offset).",
            parameters={
                "type": "object",
                "properties": {
                    "result_id": {"type": "string", "minLength": 1, "maxLength": 40},
                    "offset": {"type": "integer", "minimum": 0},
                },
                "required": ["result_id"],
                "additionalProperties": False,
            },
            permission="read_only",
            handler=handler,
        )
