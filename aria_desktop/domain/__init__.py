"""Stdlib-only value types shared by every layer: events, commands, errors, chat.

The facts every layer exchanges, and the pure value logic that is no capability's policy or
that adapters apply too: events and their wire form, commands, the ``AriaError`` tree, chat
messages and requests, each capability's facts (memory, knowledge, audio, computer, hands and
the sandbox's path rules, Home Assistant, MCP, web, automations, usage, settings as text), and
rules decided once such as geometry, cron, the prompt budget, locality and a turn's transcript.
"""
