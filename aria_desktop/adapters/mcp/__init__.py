"""The MCP client adapter: the user's MCP servers kept running, their tools and calls.

ARCHITECTURE.md: MCP. The core sees it only through ``core.mcp_tools.McpHub``.
"""
