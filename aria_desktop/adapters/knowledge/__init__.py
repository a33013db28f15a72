"""The knowledge base: the user's documents, chunked by structure and searchable with citations.

An adapter built on ``aria_desktop.adapters.storage`` (the same SQLite file, the owner's one writer
and the hybrid ranking shared with long-term memory; see ``aria_desktop/ARCHITECTURE.md``). It
imports no other adapter: the embedder instance is handed in at composition.

Modules: ``document`` (blocks), ``formats_text``/``formats_html``/``formats_office``
(extractors), ``extract`` (dispatch and per-file checks), ``chunking``, ``scan`` (walk,
change detection, preparation), ``rows`` (transactions), ``search``, ``fetch`` (URLs),
``store`` (``SQLiteKnowledgeStore``), ``watcher`` (watched folders).
"""
