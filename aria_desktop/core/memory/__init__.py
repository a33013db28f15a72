"""Long-term memory's logic.

Extraction from conversations, recall for a turn, the model's memory tools, the inbox and edits,
over the ``MemoryStore`` port.
"""
