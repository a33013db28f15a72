"""Adapters: each subpackage talks to one part of the world and satisfies core ports.

LLM servers, SQLite, audio, the screen, files, the web, Home Assistant, MCP servers. Adapters
import ``domain`` and their own libraries, never each other (only ``memory`` and ``knowledge``
build on ``storage``), never ``core`` or anything above; they do I/O, the decisions are in core.
"""
