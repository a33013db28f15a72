"""The HTTP client of ARIA's own API.

``ApiClient`` (``api_client``) is the ``core.ports.Assistant`` of an ARIA running in another
process, used by the CLI, the attached GUI and ``aria mcp serve`` when an owner runs. The
package owns the connection and its token (``transport``), the operation table
(``operations``), the event stream (``subscription``), the knowledge base over HTTP
(``knowledge``), the decoding of domain values (``wire``) and HTTP failures turned back into
``AriaError`` (``errors``). It imports nothing of the serving side.
"""
