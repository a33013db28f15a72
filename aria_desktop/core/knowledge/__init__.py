"""The knowledge base service.

The user's documents as a cited search for a turn, over the ``KnowledgeAccess`` store port.
"""
