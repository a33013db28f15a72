"""Views: widgets and layout only; behaviour lives in ``gui.controllers``.

The chat window and its transcript, the memory browser, the knowledge and MCP pages, the
settings dialog, the wizard, the tray menu, quick ask, the overlay and the confirm dialog, with
the one non-nesting yes/no question (``question``) and shared widgets (``_widgets``).
"""
