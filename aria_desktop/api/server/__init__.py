"""The local HTTP API's serving side.

Security (token, Host/Origin checks, body cap, rate limits), SSE streams, the route
dependencies, the one error table and the protocol-shaped errors, the schemas, the shared
OpenAPI docs and the 405 rule for fixed paths. Routes live in ``api/routes`` (native),
``api/compat`` (OpenAI/Ollama) and ``api/mcp`` (MCP server); ``api/app.py`` assembles them and
``api/runner.py`` serves them.
"""
