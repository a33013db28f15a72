"""Adapter for Home Assistant's REST API (``client.HomeAssistantClient``).

An adapter like ``llm`` or ``computer``: it imports only ``domain`` and httpx, never the core,
another adapter or a front-end (ARCHITECTURE.md: layers).
"""

from __future__ import annotations
