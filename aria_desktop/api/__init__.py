"""The local HTTP API for scripts, Home Assistant, the CLI and ``aria desktop --attach``.

A front-end over the ``core.ports.Assistant`` protocol, split by role: ``app`` (the FastAPI
factory, assembling ``ROUTERS``) and ``runner`` (uvicorn on the running loop); ``routes`` (the
native API, one router per area), ``compat`` (OpenAI- and Ollama-compatible endpoints) and
``mcp`` (ARIA as an MCP server); ``server`` (security, SSE, errors, schemas, docs) and
``client`` (``ApiClient``, the same ``Assistant`` over HTTP); ``config`` and ``token``.
Submodules are imported directly, so a client does not load FastAPI and uvicorn.
"""
