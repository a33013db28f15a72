"""The shell tools: ``shell_run`` (an argv list, judged by its effects) and ``shell_output``.

The policy assesses the argv (``core/hands/classify.py``) in its working folder: read-only
allow-listed commands run at once, secret stores are refused, everything else asks with the
exact command and its effects in words. The handler assesses again right before running: a
command whose verdict became stricter since the user saw it does not run. Output comes back
as head and tail, with the id to page the rest; the agent loop fences and scans it like every
tool result (ARCHITECTURE.md: safety).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from aria_desktop.core.hands.approvals import Approvals
from aria_desktop.core.hands.classify import Assessment, assess
from aria_desktop.core.hands.ports import FileSystem, PathFacts, Shell
from aria_desktop.core.tools import PolicyDecision, Tool
from aria_desktop.domain.errors import PathRefusedError, ToolDeniedError
from aria_desktop.domain.sandbox import shorten

__all__ = ["ShellConfig", "ShellTools"]

_STRICTNESS = {"allow": 0, "confirm": 1, "deny": 2}
_PAGE_MAX = 12_000  # bytes per page: fits, with its header, in one tool result


@dataclass(frozen=True, kw_only=True)
class ShellConfig:
    """Limits of the shell tool.

    Attributes:
        folders: resolved folders a command may run in (empty: the file roots).
        scratch: resolved scratch folder (writes there are told apart; they still ask).
        default_timeout_s: a command's timeout when the model gives none, seconds.
        max_timeout_s: the longest timeout the model may ask for, seconds.
    """

    folders: tuple[str, ...] = ()
    scratch: str = ""
    default_timeout_s: float = 30.0
    max_timeout_s: float = 300.0


class ShellTools:
    """``shell_run`` and ``shell_output`` over a runner, the path facts and the file guard."""

    def __init__(self, shell: Shell, *, fs: FileSystem, facts: PathFacts, config: ShellConfig):
        self.shell = shell
        self.fs = fs
        self.facts = facts
        self.config = config
        self._approved: Approvals[Assessment] = Approvals()

    def assess(self, argv: list[str], cwd: str | None) -> Assessment:
        """What the policy decides about ``argv`` in ``cwd`` (None: the first allowed folder)."""
        folder = cwd or (self.config.folders or self.facts.sandbox.roots or ("~",))[0]
        command = " ".join(argv)[:2000]
        try:
            resolved = self.fs.check(folder)
        except PathRefusedError as exc:
            return Assessment(
                command=command, verdict="deny", rule="shell:cwd", reason=exc.message, effects=()
            )
        return assess(
            [str(a) for a in argv],
            cwd=resolved,
            facts=self.facts,
            scratch=self.config.scratch,
            allowed_dirs=self.config.folders,
        )

    def tools(self) -> list[Tool]:
        """``shell_run`` and ``shell_output``."""
        return [
            Tool(
                name="shell_run",
                description="Run one command given as an argv list (no shell: no pipes, "
                "redirection or globbing). Read-only commands run at once; anything that "
                "changes files, installs, uses the network or is unknown needs the user's "
                "approval. Returns exit code and output (head and tail; page with shell_output).",
                parameters={
                    "type": "object",
                    "properties": {
                        "argv": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                        "cwd": {"type": "string", "description": "working folder (~/...)"},
                        "timeout_s": {"type": "number", "minimum": 1},
                    },
                    "required": ["argv"],
                },
                permission="consequential",
                handler=self._run,
                policy=self._policy,
                summarize=lambda a: "$ " + " ".join(str(x) for x in a.get("argv", [])),
            ),
            Tool(
                name="shell_output",
                description="Page through the stored full output of an earlier shell_run.",
                parameters={
                    "type": "object",
                    "properties": {
                        "output_id": {"type": "string"},
                        "offset": {"type": "integer", "minimum": 0},
                        "limit": {"type": "integer", "minimum": 1},
                    },
                    "required": ["output_id"],
                },
                permission="read_only",
                handler=self._page,
            ),
        ]

    async def _policy(self, arguments: dict[str, Any]) -> PolicyDecision:
        assessment = await asyncio.to_thread(self.assess, arguments["argv"], arguments.get("cwd"))
        if assessment.verdict != "deny":
            self._approved.remember(arguments, assessment)
        return decision_of(assessment, cwd=arguments.get("cwd"), home=self.facts.sandbox.home)

    async def _run(self, arguments: dict[str, Any]) -> str:
        approved = self._approved.take(arguments)
        now = await asyncio.to_thread(self.assess, arguments["argv"], arguments.get("cwd"))
        if approved is None or _STRICTNESS[now.verdict] > _STRICTNESS[approved.verdict]:
            raise ToolDeniedError(
                f"The command was not run: it now {now.words()} ({now.reason}), which differs "
                "from what was approved.",
                hint="Look at the folder again and ask again.",
            )
        cwd = self.fs.check(
            arguments.get("cwd") or (self.config.folders or self.facts.sandbox.roots)[0]
        )
        timeout_s = min(
            float(arguments.get("timeout_s", self.config.default_timeout_s)),
            self.config.max_timeout_s,
        )
        outcome = await self.shell.run(
            [str(a) for a in arguments["argv"]], cwd=cwd, timeout_s=timeout_s
        )
        status = f"exit code {outcome.exit_code}"
        if outcome.timed_out:
            status = f"killed after its {timeout_s:g} s timeout (with its child processes)"
        text = outcome.head
        if outcome.tail:
            skipped = outcome.total_bytes - len(outcome.head.encode()) - len(outcome.tail.encode())
            text += f"\n[… {max(0, skipped)} bytes not shown …]\n" + outcome.tail
        header = (
            f"$ {now.command}\n{status}; {outcome.total_bytes} bytes of output in "
            f"{outcome.duration_s:.1f} s; output_id={outcome.output_id}"
        )
        return header + "\n" + text  # fenced and scanned by the agent loop like every result

    async def _page(self, arguments: dict[str, Any]) -> str:
        offset = int(arguments.get("offset", 0))
        limit = min(int(arguments.get("limit", _PAGE_MAX)), _PAGE_MAX)
        text, size = await asyncio.to_thread(
            self.shell.page, str(arguments["output_id"]), offset=offset, limit=limit
        )
        end = min(size, offset + len(text.encode()))
        header = f"bytes {offset}-{end} of {size}" + (
            f"; read on with offset={end}" if end < size else ""
        )
        return header + "\n" + text


def decision_of(assessment: Assessment, *, cwd: str | None, home: str) -> PolicyDecision:
    """The policy decision for an assessment: the exact command and its effects in words."""
    where = f" (in {shorten(cwd, home) if cwd and cwd.startswith('/') else cwd or '~'})"
    return PolicyDecision(
        verdict=assessment.verdict,
        rule=assessment.rule,
        reason=assessment.reason,
        summary=f"Run: {assessment.command}{where}\nIt {assessment.words()}.",
    )
