"""The local HTTP API for scripts, Home Assistant, the CLI and ``aria desktop --attach``.

FastAPI routes over ``core.ports.Assistant`` (``routes/``, one router per area, assembled by
``app``; statuses in ``errors``, shared OpenAPI docs in ``docs``), its security middleware, the
embedded uvicorn server, and ``ApiClient`` (the same ``Assistant`` over HTTP, driven by the
operation table in ``operations``).

Public names: ``ApiConfig``, ``ApiServer``, ``ApiClient``, ``TokenFile``, ``create_app``.
Submodules are imported directly (``aria_desktop.api.runner``) so that a client does not load
FastAPI and uvicorn.
"""
