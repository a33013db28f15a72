"""The web adapter: fetching pages as readable text for the ``web_fetch`` tool.

``fetcher.py`` (httpx, caps, redirects followed and re-checked), ``addresses.py`` (which
addresses may be contacted), ``extract.py`` (trafilatura, pypdf), ``hidden.py`` (what a reader
would not see). An adapter like ``llm``/``computer``: never imports core, other adapters or
front-ends (``aria_desktop/ARCHITECTURE.md``, layers).
"""
