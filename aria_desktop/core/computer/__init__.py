"""Computer use in the core: one pipeline, one action vocabulary, two loops.

* ``capability`` — ``ComputerUse``: wiring, the switch, the kill switch, perception, commands;
* ``pipeline`` — ``ActionPipeline``: policy -> confirmation -> re-verify -> act -> audit;
* ``targets`` — where a model aimed, as a screen point (``resolve_action``, ``ground``);
* ``chat_tools`` — the computer tools of chat turns and their policy hook;
* ``task`` — ``ComputerAgent``, the multi-step task loop with a model;
* ``config`` — ``ComputerConfig`` and ``ModelChoice``.

The action vocabulary itself (tool schemas, ``action_from_call``) is in
``aria_desktop.domain.computer_tools``; fencing and flagging of screen text in
``aria_desktop.core.untrusted`` (``aria_desktop/ARCHITECTURE.md``, computer use).
"""
