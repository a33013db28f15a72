"""OpenAI- and Ollama-compatible endpoints: their wire formats, errors and routes.

What programs that speak to "a model" call (Home Assistant's Ollama integration, Open WebUI,
scripts): the routes (``openai_routes``, ``ollama_routes``), each protocol's requests and
replies (``openai_wire``, ``ollama_wire``, the shared ``wire``), one ``ClientTurn`` over the
``Assistant`` (``turn``) and their OpenAPI documentation (``docs``) (ARCHITECTURE.md: client
turns).
"""
