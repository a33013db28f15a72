"""The everyday skills: commands answered on this computer before any model (pure logic).

Recognition is a port (hassil is an adapter); each skill family's storage and desktop parts
are ports beside it. ARCHITECTURE.md: everyday skills.
"""
