"""The hands adapter: file system and process I/O for the file and shell tools.

``files.py`` (operations inside the allowed roots), ``guard.py`` (resolution and
descriptor-based opening), ``trash.py`` (the freedesktop trash), ``shell.py`` (running an argv
with a deadline), ``facts.py`` (read-only path facts for the shell classifier). Like every
adapter it imports only ``domain`` and the standard library (ARCHITECTURE.md: layers).
"""
