"""MCP servers as tools.

The bridge that offers their tools to the model, and the pins (approved descriptions) that
disable a tool whose description changed until the user looks at the difference.
"""
