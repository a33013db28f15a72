"""The async heart of ARIA: orchestrator, event bus, agent loop, tools, sessions, audit log.

Depends only on ``aria_desktop.domain`` and the standard library; adapters satisfy the
Protocols in ``core.ports`` structurally.
"""
