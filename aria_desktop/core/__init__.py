"""The async heart of ARIA: orchestrator, event bus, agent loop, tools, sessions, audit log.

It owns every decision of a turn and of each capability: the turn machinery at this level (the
orchestrator, the agent loop, the tool registry and its policy hook, confirmation, sessions,
untrusted content, structured output, automations, the audit log) and one subpackage per
capability (``computer``, ``hands``, ``homeassistant``, ``knowledge``, ``mcp``, ``memory``,
``voice``). It imports only ``aria_desktop.domain`` and the standard library; adapters satisfy
the Protocols of ``core.ports``, the one index of every capability's ``ports``, structurally.
"""
