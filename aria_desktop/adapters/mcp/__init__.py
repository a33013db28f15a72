"""The MCP client adapter: the user's MCP servers kept running, their tools and calls.

Built on the official SDK: ``spec`` (settings -> command or URL, secrets filled in),
``supervisor`` (one server kept running in one task), ``hub`` (every server, their tools and
calls, argument checks; the ``McpHub`` port of ``core.mcp``), ``pins`` (approved definitions in
a JSON file, the ``PinStore`` port), ``importer`` (servers configured for other assistants) and
``children`` (a stdio server's process id). Which call may run is decided in ``core.mcp``.
"""
