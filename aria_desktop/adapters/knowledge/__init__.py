"""The knowledge base's I/O: the user's documents read, chunked by structure and indexed.

An adapter built on ``adapters.storage`` (the owner's database and the hybrid ranking shared
with long-term memory) that imports no other adapter: the embedder and the OCR page reader are
handed in at composition. It owns the extractors (``formats_text``, ``formats_html``,
``formats_office``, ``scanned_pages`` with ``ocr_cache``; ``extract`` dispatches and checks each
file), ``document`` and ``chunking``, the folder walk and change detection (``scan``), URL
sources (``fetch``), the transactions (``rows``), ``search`` (with ``supersede``: a newer version
of a document first), ``store.SQLiteKnowledgeStore``
(the ``KnowledgeStore`` port) and the watched folders (``watcher``).
"""
