"""ARIA's on-disk stores: the adapters that keep core's records in files and databases.

Core declares what it needs as ports (``core.ports``); the modules here satisfy them with real
files, so the core itself never opens one (see ``aria_desktop/ARCHITECTURE.md``).
"""
