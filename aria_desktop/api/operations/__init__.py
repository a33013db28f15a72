"""The API client's table: every operation's HTTP method, path, request encoder and decoder.

``ApiClient`` carries the ``core.ports.Assistant`` calls and the commands over the local HTTP
API. Each of them is one :class:`Operation` (data, not a method body), and the client runs them
all through one ``call``; a command's operation is found by the command's type in
:data:`COMMANDS` (``aria_desktop/ARCHITECTURE.md``, "API"). Response bodies decode into domain
values with ``api.wire.from_json``.

The table is kept by area: ``control`` (the owner's state and settings), ``memory``, ``chat``
(turns and conversations) and ``commands``, on ``base`` (``Operation`` and its helpers). Each
public name is imported from its module on first use (PEP 562), not here: ``aria memory search``
through a running owner must not build the dataclasses of turns, commands and computer use it
never sends (ARCHITECTURE.md: start-up cost).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from aria_desktop.api.operations.base import HttpArgs, Operation

if TYPE_CHECKING:
    from aria_desktop.api.operations.chat import (
        CANCEL_TURN,
        CAPABILITIES,
        CONFIRM_ACTION,
        CREATE_CONVERSATION,
        DELETE_CONVERSATION,
        GET_CONVERSATION,
        LIST_CONVERSATIONS,
        MESSAGES_PAGE,
        RENAME_CONVERSATION,
        START_TURN,
    )
    from aria_desktop.api.operations.commands import COMMANDS
    from aria_desktop.api.operations.control import GET_SETTINGS, STATE, UPDATE_SETTINGS
    from aria_desktop.api.operations.memory import (
        ADD_MEMORY,
        APPROVE_MEMORY,
        FORGET_MEMORY,
        GET_MEMORY,
        LIST_MEMORIES,
        MEMORY_INBOX,
        REJECT_MEMORY,
        SEARCH_MEMORIES,
        UPDATE_MEMORY,
    )

__all__ = [
    "ADD_MEMORY",
    "APPROVE_MEMORY",
    "CANCEL_TURN",
    "CAPABILITIES",
    "COMMANDS",
    "CONFIRM_ACTION",
    "CREATE_CONVERSATION",
    "DELETE_CONVERSATION",
    "FORGET_MEMORY",
    "GET_CONVERSATION",
    "GET_MEMORY",
    "GET_SETTINGS",
    "LIST_CONVERSATIONS",
    "LIST_MEMORIES",
    "MEMORY_INBOX",
    "MESSAGES_PAGE",
    "REJECT_MEMORY",
    "RENAME_CONVERSATION",
    "SEARCH_MEMORIES",
    "START_TURN",
    "STATE",
    "UPDATE_MEMORY",
    "UPDATE_SETTINGS",
    "HttpArgs",
    "Operation",
]

_MODULE_OF = {
    **dict.fromkeys(("GET_SETTINGS", "STATE", "UPDATE_SETTINGS"), "control"),
    **dict.fromkeys(
        (
            "ADD_MEMORY",
            "APPROVE_MEMORY",
            "FORGET_MEMORY",
            "GET_MEMORY",
            "LIST_MEMORIES",
            "MEMORY_INBOX",
            "REJECT_MEMORY",
            "SEARCH_MEMORIES",
            "UPDATE_MEMORY",
        ),
        "memory",
    ),
    **dict.fromkeys(
        (
            "CANCEL_TURN",
            "CAPABILITIES",
            "CONFIRM_ACTION",
            "CREATE_CONVERSATION",
            "DELETE_CONVERSATION",
            "GET_CONVERSATION",
            "LIST_CONVERSATIONS",
            "MESSAGES_PAGE",
            "RENAME_CONVERSATION",
            "START_TURN",
        ),
        "chat",
    ),
    "COMMANDS": "commands",
}


def __getattr__(name: str) -> object:
    """A table entry, imported from its area's module the first time it is asked for.

    Raises:
        AttributeError: ``name`` is not one of the package's public names.
    """
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    """The public names, as ``dir()`` showed them when they were defined here."""
    return sorted({*globals(), *__all__})
