"""ARIA as an MCP server (stdio and streamable HTTP at ``/mcp``).

``server`` builds the SDK's server — tools, resources and prompts — over the ``Assistant`` port
only, and ``routes`` serves it at ``/mcp`` behind the API's security, beside the
``/api/v1/mcp`` routes of the MCP client; ``aria mcp serve`` runs the same server on stdio.
"""
