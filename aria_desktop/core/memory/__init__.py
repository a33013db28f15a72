"""Long-term memory's logic.

Extraction from conversations, recall for a turn, the inbox and edits, over the ``MemoryStore``
port.
"""
