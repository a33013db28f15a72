"""``Hands``: the file and shell tools registered as one, and the words `aria tools list` shows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aria_desktop.core.hands.classify import Assessment
from aria_desktop.core.hands.file_tools import FileTools
from aria_desktop.core.hands.shell_tool import ShellConfig, ShellTools, decision_of
from aria_desktop.core.tools import PolicyDecision, Tool
from aria_desktop.domain.chat import CapabilityStatus
from aria_desktop.domain.errors import PathRefusedError

if TYPE_CHECKING:
    from aria_desktop.core.orchestrator import Orchestrator

__all__ = ["POLICY_WORDS", "Hands", "ShellConfig"]

_LOOKING = "allow inside the allowed folders; refuse outside them and in secret stores"
POLICY_WORDS = {
    "file_list": _LOOKING,
    "file_read": _LOOKING + " (text only, size-capped)",
    "file_find": _LOOKING,
    "file_write": "allow creating a new file; ask, showing the diff, before replacing one",
    "file_edit": "ask, showing the diff",
    "file_move": "ask, listing every move (a replaced target goes to the trash)",
    "file_trash": "ask, listing the items (restorable from the trash)",
    "shell_run": "by effect: allow-listed read-only commands run; secret stores are refused; "
    "anything that writes, deletes, installs, changes permissions, uses the network, runs "
    "inline code or is unknown asks",
    "shell_output": "allow (pages a stored output)",
}
"""Each tool's policy in words, for ``aria tools list``."""


@dataclass
class Hands:
    """The file tools, the shell tools and whether the shell is switched on."""

    files: FileTools
    shell: ShellTools
    shell_enabled: bool

    def tools(self) -> list[Tool]:
        """The tools the model is offered (the shell's only when it is on)."""
        return self.files.tools() + (self.shell.tools() if self.shell_enabled else [])

    def all_tools(self) -> list[Tool]:
        """Every tool of this capability, offered or not (for ``aria tools list``)."""
        return self.files.tools() + self.shell.tools()

    def describe(self) -> list[dict[str, Any]]:
        """Every tool with its policy in words and whether the model is offered it."""
        offered = {tool.name for tool in self.tools()}
        rows = []
        for tool in self.all_tools():
            policy = POLICY_WORDS[tool.name]
            if tool.name not in offered:
                policy = "off (tools.shell.enabled = false); when on: " + policy
            rows.append({"name": tool.name, "offered": tool.name in offered, "policy": policy})
        return rows

    def install(self, orchestrator: Orchestrator) -> None:
        """Register the tools and the ``shell`` capability probe."""
        for tool in self.tools():
            orchestrator.tools.register(tool)
        orchestrator.register_capability("shell", self.capability)

    def capability(self) -> CapabilityStatus:
        """The shell is usable when switched on."""
        if self.shell_enabled:
            return CapabilityStatus(name="shell", available=True, enabled=True)
        return CapabilityStatus(
            name="shell",
            available=False,
            enabled=False,
            reason="the shell tool is off (aria config set tools.shell.enabled true)",
        )

    def check_path(self, raw: str, *, write: bool) -> dict[str, Any]:
        """Would a file tool use ``raw`` (for reading, or for changing with ``write``)?"""
        try:
            resolved = self.files.fs.check(raw, write=write)
        except PathRefusedError as exc:
            return {"path": raw, "verdict": "refuse", "reason": exc.message}
        if write:
            reason = "inside the allowed folders: creating a new file runs at once; changing, "
            reason += "moving or trashing an existing one asks you first"
            return {"path": raw, "resolved": resolved, "verdict": "ask", "reason": reason}
        return {
            "path": raw,
            "resolved": resolved,
            "verdict": "allow",
            "reason": "inside the allowed folders: reading and listing run at once",
        }

    def check_shell(self, argv: list[str], cwd: str | None = None) -> dict[str, Any]:
        """What the policy would decide about running ``argv`` (nothing is run)."""
        assessment: Assessment = self.shell.assess(argv, cwd)
        decision: PolicyDecision = decision_of(
            assessment, cwd=cwd, home=self.shell.facts.sandbox.home
        )
        verdict = {"allow": "allow", "confirm": "ask", "deny": "refuse"}[decision.verdict]
        result: dict[str, Any] = {
            "command": assessment.command,
            "verdict": verdict,
            "rule": decision.rule,
            "reason": decision.reason,
            "effects": [
                {"kind": e.kind, "words": e.words, "paths": list(e.paths)}
                for e in assessment.effects
            ],
        }
        if not self.shell_enabled:
            result["verdict"] = "refuse"
            result["reason"] = (
                "the shell tool is off (tools.shell.enabled); if it were on: "
                f"{verdict}, {decision.reason}"
            )
        return result
