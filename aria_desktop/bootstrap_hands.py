"""Composition of the file and shell tools (``core/hands`` over the ``hands/`` adapter).

A builder of its own beside ``bootstrap.py`` (ARCHITECTURE.md: layers, composition): turns the
``[tools]`` settings into a sandbox, the adapters and the tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aria_desktop import paths

if TYPE_CHECKING:
    from aria_desktop.core.hands import Hands
    from aria_desktop.settings import Settings

__all__ = ["build_hands"]


def build_hands(settings: Settings, *, home: str | None = None) -> Hands:
    """The file and shell tools from the ``[tools]`` settings (nothing is touched yet).

    ARIA's own folders (data, settings, state, cache) are excluded whatever the roots say.
    """
    import os

    from aria_desktop.core.hands import Hands, ShellConfig
    from aria_desktop.core.hands.file_tools import FileTools
    from aria_desktop.core.hands.shell_tool import ShellTools
    from aria_desktop.domain.sandbox import Sandbox
    from aria_desktop.hands.facts import LocalPathFacts
    from aria_desktop.hands.files import SandboxedFiles
    from aria_desktop.hands.shell import ShellRunner

    tools = settings.tools
    home = os.path.realpath(home or os.path.expanduser("~"))

    def real(path: str) -> str:
        expanded = home + path[1:] if path == "~" or path.startswith("~/") else path
        return os.path.realpath(expanded)

    own = (paths.data_dir(), paths.config_dir(), paths.state_dir(), paths.cache_dir())
    sandbox = Sandbox(
        home=home,
        roots=tuple(real(root) for root in tools.files.roots if root.strip()),
        excluded=tuple(real(str(p)) for p in (*tools.files.exclude, *own) if str(p).strip()),
        allow_hidden=tools.files.allow_hidden,
    )
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share")
    files = SandboxedFiles(
        sandbox,
        read_max_bytes=tools.files.read_max_kb * 1024,
        edit_max_bytes=tools.files.edit_max_kb * 1024,
        trash_home=os.path.join(data_home, "Trash"),
    )
    runner = ShellRunner(
        paths.state_dir() / "shell-output",
        keep_bytes=tools.shell.output_kb * 512,
        store_max_bytes=8 * 1024 * 1024,
    )
    shell = ShellTools(
        runner,
        fs=files,
        facts=LocalPathFacts(sandbox),
        config=ShellConfig(
            folders=tuple(real(f) for f in tools.shell.folders if f.strip()),
            scratch=real(tools.shell.scratch) if tools.shell.scratch.strip() else "",
            default_timeout_s=tools.shell.timeout_s,
            max_timeout_s=tools.shell.max_timeout_s,
        ),
    )
    return Hands(files=FileTools(files, home=home), shell=shell, shell_enabled=tools.shell.enabled)
