"""The HTTP client of ARIA's own API.

``ApiClient`` is used by the CLI, the attached GUI and ``aria mcp serve`` when an owner process
runs. It imports nothing of the serving side.
"""
