"""What a turn offers the model and how it asks (ARCHITECTURE.md: client turns).

A turn from ARIA's own front-ends offers every registered tool through the ``chat`` chain
with ARIA's settings; a ``ClientTurn`` offers ARIA's read-only tools beside the client's own
(which ARIA never runs), through the chain its model name maps to, with the client's options.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aria_desktop.domain.chat import ToolSpec
from aria_desktop.domain.commands import GenerationOptions

__all__ = ["TurnTools"]


@dataclass(frozen=True, kw_only=True)
class TurnTools:
    """What a turn offers the model and how it asks (a ``ClientTurn`` differs from the default).

    Attributes:
        own: ARIA's tools offered; None for every registered tool.
        client: the client's tools: offered, never run here (a call ends the turn).
        agent: the routing chain.
        options: generation options (None fields: ARIA's settings).
    """

    own: tuple[ToolSpec, ...] | None = None
    client: tuple[ToolSpec, ...] = ()
    agent: str = "chat"
    options: GenerationOptions = field(default_factory=GenerationOptions)
