"""Computer use in the core: one pipeline, one action vocabulary, two loops.

``capability`` (``ComputerUse``: wiring, the switch, the kill switch, perception, commands),
``pipeline`` (``ActionPipeline``: policy -> confirmation -> re-verify -> act -> audit),
``policy`` and ``consequence`` (the pure decisions: deny lists, rate limits, what a click
commits), ``targets`` (where a model aimed, as a screen point), ``chat_tools`` (the tools of
chat turns), ``task`` (``ComputerAgent``, the multi-step loop), ``config`` and ``ports``. The
action vocabulary is ``domain.computer_tools`` (ARCHITECTURE.md: computer use).
"""
