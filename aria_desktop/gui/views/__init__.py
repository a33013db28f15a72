"""Views: widgets and layout only; behaviour lives in ``gui.controllers``."""
