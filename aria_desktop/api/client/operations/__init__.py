"""The API client's table: every operation's HTTP method, path, request encoder and decoder.

``ApiClient`` carries the ``core.ports.Assistant`` calls and the commands over the local HTTP
API. Each of them is one :class:`Operation` (data, not a method body), and the client runs them
all through one ``call``; a command's operation is found by the command's type in
:data:`COMMANDS` (``aria_desktop/ARCHITECTURE.md``, "API"). Response bodies decode into domain
values with ``api.wire.from_json``.

The table is kept by area: ``control`` (the owner's state and settings), ``memory``, ``chat``
(turns and conversations) and ``commands``, on ``base`` (``Operation`` and its helpers). The
client imports an area's module where it first uses it, and this package imports none of them:
``aria memory search`` through a running owner must not build the dataclasses of turns,
commands and computer use it never sends (ARCHITECTURE.md: start-up cost).
"""

from __future__ import annotations

from aria_desktop.api.client.operations.base import HttpArgs, Operation

__all__ = ["HttpArgs", "Operation"]
