"""OpenAI- and Ollama-compatible endpoints: their wire formats, errors and routes."""
