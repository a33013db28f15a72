"""Controllers: behaviour behind the views (commands to the Assistant, event rendering).

One controller per window or feature — chat, memory, knowledge and citations, settings, MCP,
the first-run wizard, the tray, quick ask, confirmations, a keyring secret's field — each
turning what the user does into ``Assistant`` calls and bus events into what the views show.
"""
