"""The API client's table: every operation's HTTP method, path, request encoder and decoder.

Each ``Assistant`` call and command ``ApiClient`` carries is one :class:`Operation` (data, not a
method body), run through one ``call``; a command's operation is found by the command's type in
:data:`COMMANDS`. The table is kept by area — ``control`` (the owner's state and settings),
``memory``, ``chat`` (turns and conversations), ``knowledge`` and ``commands`` — on ``base``;
bodies decode with ``api/client/wire.py``. The client imports an area's module where it first
uses it and this package imports none of them (ARCHITECTURE.md: start-up cost).
"""

from __future__ import annotations

from aria_desktop.api.client.operations.base import HttpArgs, Operation

__all__ = ["HttpArgs", "Operation"]
