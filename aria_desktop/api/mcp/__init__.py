"""ARIA as an MCP server (stdio and streamable HTTP at ``/mcp``).

Tools, resources and prompts, all over the ``Assistant`` port.
"""
