"""The local HTTP API's serving side.

Security (token, Host/Origin checks, rate limits), SSE, the one error table, the schemas and the
OpenAPI docs, and the uvicorn runner. Routes live in ``api/routes`` (native), ``api/compat``
(OpenAI/Ollama) and ``api/mcp`` (MCP server); ``api/app.py`` only assembles them.
"""
