"""Hands on the system: the sandboxed file tools and the argv-only shell judged by its effects.

``toolkit.Hands`` bundles the tools, registers them on the orchestrator (the shell only when
``tools.shell.enabled``) and answers ``aria tools check`` without running anything. The pure
decisions are ``classify`` (what a command does) and ``effects``; the I/O lives in the
``adapters/hands`` package (ARCHITECTURE.md: safety).
"""
