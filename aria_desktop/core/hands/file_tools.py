"""The file tools the model may call: list, read, find, write, edit, move and trash.

Each tool carries its own policy (``Tool.policy``): a path outside the allowed roots is refused
with the reason; looking runs at once; creating a new file runs at once; anything that changes
or removes an existing file asks, showing the diff or the list of items and the effect in words
("moves 3 items to the trash in ~/Downloads"). A change is planned when the policy decides and
applied only as planned — the file must still be what the user saw (ARCHITECTURE.md: safety).
Results are plain data; the agent loop fences and scans every tool result (``core/untrusted.py``,
``core/injection.py``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from aria_desktop.core.hands.approvals import Approvals
from aria_desktop.core.hands.effects import count_of
from aria_desktop.core.hands.ports import FileSystem
from aria_desktop.core.tools import PermissionClass, PolicyDecision, Tool
from aria_desktop.domain.errors import AriaError, FileOperationError, PathRefusedError
from aria_desktop.domain.hands import FileChange
from aria_desktop.domain.sandbox import shorten

__all__ = ["FileTools"]

_PATH = {"type": "string", "description": "A path: ~/folder/file, or relative to the home folder"}
_MAX_BATCH = 100


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


_TEXT: dict[str, Any] = {"type": "string"}
_FLAG: dict[str, Any] = {"type": "boolean"}
_SPECS: tuple[tuple[str, PermissionClass, str, dict[str, Any]], ...] = (
    (
        "file_list",
        "read_only",
        "List a folder's visible files and folders (name, kind, size).",
        _schema({"path": _PATH}, ["path"]),
    ),
    (
        "file_read",
        "read_only",
        "Read a text file (capped; binary files are refused). Use offset to read on when the "
        "result says it was truncated.",
        _schema({"path": _PATH, "offset": {"type": "integer", "minimum": 0}}, ["path"]),
    ),
    (
        "file_find",
        "read_only",
        "Find files below a folder by name (glob such as *.pdf) and/or by text they contain.",
        _schema({"folder": _PATH, "name": _TEXT, "text": _TEXT}, ["folder"]),
    ),
    (
        "file_write",
        "reversible",
        "Create a text file. An existing file is never replaced unless overwrite is true (then "
        "the user confirms the diff).",
        _schema({"path": _PATH, "content": _TEXT, "overwrite": _FLAG}, ["path", "content"]),
    ),
    (
        "file_edit",
        "consequential",
        "Replace one exact, unique piece of text in a text file (the user confirms the diff). "
        "Fails, saying where, when the text is missing or not unique.",
        _schema(
            {"path": _PATH, "old_text": _TEXT, "new_text": _TEXT}, ["path", "old_text", "new_text"]
        ),
    ),
    (
        "file_move",
        "consequential",
        "Move or rename files and folders (the user confirms). An existing target is never "
        "replaced unless overwrite is true (it then goes to the trash).",
        _schema(
            {
                "moves": {
                    "type": "array",
                    "items": _schema({"source": _PATH, "target": _PATH}, ["source", "target"]),
                },
                "overwrite": _FLAG,
            },
            ["moves"],
        ),
    ),
    (
        "file_trash",
        "consequential",
        "Move files or folders to the trash, where the user can restore them (the user "
        "confirms). Nothing is deleted permanently.",
        _schema({"paths": {"type": "array", "items": _PATH}}, ["paths"]),
    ),
)
"""Name, permission class, description and argument schema of each file tool."""


class FileTools:
    """The file tools over one :class:`FileSystem`.

    Args:
        fs: the sandboxed file system adapter.
        home: the home folder, for ``~`` in the words the user reads.
    """

    def __init__(self, fs: FileSystem, *, home: str) -> None:
        self.fs = fs
        self.home = home
        self._plans: Approvals[FileChange] = Approvals()

    def tools(self) -> list[Tool]:
        """Every file tool, with its schema and policy."""
        behaviour: dict[str, tuple[Any, Any]] = {
            "file_list": (self._list, self._looking("path")),
            "file_read": (self._read, self._looking("path")),
            "file_find": (self._find, self._looking("folder")),
            "file_write": (self._write, self._write_policy),
            "file_edit": (self._edit, self._edit_policy),
            "file_move": (self._move, self._move_policy),
            "file_trash": (self._trash, self._trash_policy),
        }
        return [
            Tool(
                name=name,
                description=description,
                parameters=parameters,
                permission=permission,
                handler=behaviour[name][0],
                policy=behaviour[name][1],
            )
            for name, permission, description, parameters in _SPECS
        ]

    # --- policies ----------------------------------------------------------------------------

    def _looking(self, key: str) -> Callable[[dict[str, Any]], Awaitable[PolicyDecision]]:
        async def policy(arguments: dict[str, Any]) -> PolicyDecision:
            try:
                await asyncio.to_thread(self.fs.check, str(arguments[key]))
            except PathRefusedError as exc:
                return _refused(exc)
            return PolicyDecision(verdict="allow", rule="files:read-inside-roots")

        return policy

    async def _write_policy(self, arguments: dict[str, Any]) -> PolicyDecision:
        overwrite = bool(arguments.get("overwrite", False))
        plan = await self._plan(
            arguments,
            self.fs.plan_write,
            arguments["path"],
            arguments["content"],
            overwrite=overwrite,
        )
        if isinstance(plan, PolicyDecision):
            return plan
        if plan.created:
            return PolicyDecision(verdict="allow", rule="files:create", reason="creates a new file")
        return PolicyDecision(
            verdict="confirm",
            rule="files:overwrite",
            reason="replaces the contents of an existing file",
            summary=f"Overwrite {plan.display}:\n{plan.diff}",
        )

    async def _edit_policy(self, arguments: dict[str, Any]) -> PolicyDecision:
        plan = await self._plan(
            arguments,
            self.fs.plan_edit,
            arguments["path"],
            arguments["old_text"],
            arguments["new_text"],
        )
        if isinstance(plan, PolicyDecision):
            return plan
        return PolicyDecision(
            verdict="confirm",
            rule="files:edit",
            reason="changes the contents of a file",
            summary=f"Edit {plan.display}:\n{plan.diff}",
        )

    async def _plan(
        self, arguments: dict[str, Any], planner: Callable[..., FileChange], *args: Any, **kw: Any
    ) -> FileChange | PolicyDecision:
        try:
            plan = await asyncio.to_thread(planner, *args, **kw)
        except PathRefusedError as exc:
            return _refused(exc)
        except FileOperationError as exc:
            # Nothing would change: the handler reports the same error to the model.
            return PolicyDecision(verdict="allow", rule="files:no-change", reason=exc.message)
        self._plans.remember(arguments, plan)
        return plan

    async def _move_policy(self, arguments: dict[str, Any]) -> PolicyDecision:
        moves = arguments["moves"][:_MAX_BATCH]
        overwrite = bool(arguments.get("overwrite", False))
        lines, replaced = [], 0
        for move in moves:
            try:
                src, dst, exists = await asyncio.to_thread(
                    self.fs.plan_move, move["source"], move["target"], overwrite=overwrite
                )
            except PathRefusedError as exc:
                return _refused(exc)
            except FileOperationError as exc:
                return PolicyDecision(verdict="deny", rule="files:move-invalid", reason=exc.message)
            replaced += exists
            note = " (replacing it; the old one goes to the trash)" if exists else ""
            lines.append(f"  {self._show(src)} -> {self._show(dst)}{note}")
        words = f"moves {_count(len(moves))}"
        if replaced:
            words += f", replacing {_count(replaced)} (they go to the trash)"
        return PolicyDecision(
            verdict="confirm",
            rule="files:move",
            reason=words,
            summary=f"{words[0].upper()}{words[1:]}:\n" + "\n".join(lines),
        )

    async def _trash_policy(self, arguments: dict[str, Any]) -> PolicyDecision:
        paths = []
        for raw in arguments["paths"][:_MAX_BATCH]:
            try:
                paths.append(await asyncio.to_thread(self.fs.check, str(raw), write=True))
            except PathRefusedError as exc:
                return _refused(exc)
        if not paths:
            return PolicyDecision(
                verdict="deny", rule="files:trash-nothing", reason="no paths given"
            )
        missing = [p for p in paths if not await asyncio.to_thread(self.fs.exists, p)]
        if missing:
            reason = f"{self._show(missing[0])} does not exist; nothing was trashed"
            return PolicyDecision(verdict="deny", rule="files:trash-missing", reason=reason)
        folders = {path.rsplit("/", 1)[0] for path in paths}
        where = self._show(folders.pop()) if len(folders) == 1 else f"{len(folders)} folders"
        dirs = {p for p in paths if await asyncio.to_thread(self.fs.is_dir, p)}
        counted = count_of(paths, dirs.__contains__, lambda _: True)
        words = f"moves {counted} to the trash in {where}"
        listing = "\n".join(f"  {self._show(path)}" for path in paths)
        return PolicyDecision(
            verdict="confirm",
            rule="files:trash",
            reason=words + " (restorable from the trash)",
            summary=f"{words[0].upper()}{words[1:]}:\n{listing}",
        )

    # --- handlers ----------------------------------------------------------------------------

    async def _list(self, arguments: dict[str, Any]) -> str:
        result = await asyncio.to_thread(self.fs.list_dir, arguments["path"])
        return json.dumps(result, ensure_ascii=False)

    async def _read(self, arguments: dict[str, Any]) -> str:
        result = await asyncio.to_thread(
            self.fs.read_text, arguments["path"], offset=int(arguments.get("offset", 0))
        )
        text = result.pop("text")
        header = json.dumps(result, ensure_ascii=False)
        return f"{header}\n{text}"

    async def _find(self, arguments: dict[str, Any]) -> str:
        result = await asyncio.to_thread(
            self.fs.find,
            arguments["folder"],
            name=str(arguments.get("name", "")),
            text=str(arguments.get("text", "")),
            limit=50,
        )
        return json.dumps(result, ensure_ascii=False)

    async def _write(self, arguments: dict[str, Any]) -> dict[str, Any]:
        plan = self._plans.take(arguments)
        if plan is None:
            plan = await asyncio.to_thread(
                self.fs.plan_write, arguments["path"], arguments["content"], overwrite=False
            )
        return await asyncio.to_thread(self.fs.apply, plan)

    async def _edit(self, arguments: dict[str, Any]) -> dict[str, Any]:
        plan = self._plans.take(arguments)
        if plan is None:
            # No plan: the policy found nothing to change; say why, change nothing.
            await asyncio.to_thread(
                self.fs.plan_edit, arguments["path"], arguments["old_text"], arguments["new_text"]
            )
            raise FileOperationError("The edit was not confirmed; nothing was changed.")
        result = await asyncio.to_thread(self.fs.apply, plan)
        result["diff"] = plan.diff
        return result

    async def _move(self, arguments: dict[str, Any]) -> dict[str, Any]:
        done: list[dict[str, Any]] = []
        for move in arguments["moves"][:_MAX_BATCH]:
            try:
                done.append(
                    await asyncio.to_thread(
                        self.fs.move,
                        move["source"],
                        move["target"],
                        overwrite=bool(arguments.get("overwrite", False)),
                    )
                )
            except AriaError as exc:
                return {"moved": done, "stopped_at": move, "error": exc.message}
        return {"moved": done}

    async def _trash(self, arguments: dict[str, Any]) -> dict[str, Any]:
        done: list[str] = []
        for raw in arguments["paths"][:_MAX_BATCH]:
            try:
                done.append((await asyncio.to_thread(self.fs.trash, str(raw)))["trashed"])
            except AriaError as exc:
                return {"trashed": done, "stopped_at": raw, "error": exc.message}
        return {
            "trashed": done,
            "restore": "from the trash (file manager or `gio trash --restore`)",
        }

    def _show(self, path: str) -> str:
        return shorten(path, self.home)


def _refused(exc: PathRefusedError) -> PolicyDecision:
    return PolicyDecision(verdict="deny", rule="files:path-refused", reason=exc.message)


def _count(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"
