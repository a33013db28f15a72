"""The native API's routes, one ``APIRouter`` module per area (``aria_desktop/ARCHITECTURE.md``).

``api/app.py`` includes them, with the compatible endpoints (``api/compat``) and the MCP
server (``api/mcp``), in the order of its ``ROUTERS``.
"""
