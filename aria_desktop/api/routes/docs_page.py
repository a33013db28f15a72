"""The API's documentation page at ``/docs``: Swagger UI served from this computer.

The machine may be offline, so nothing comes from a CDN: Swagger UI's files ship in the
``fastapi-offline`` package and are served from ``/docs/assets/``. The page is behind the same
token as the API: a browser cannot send a bearer header when it opens a page, so without a
session the page is a sign-in form whose script sends the token once to ``/docs/session``
(the security middleware answers it with an HttpOnly, SameSite=Strict cookie derived from the
token; see ``api/server/security.py``). The token never travels in a URL, so it never lands in
a log or the browser's history. Every page forbids framing and loads only its own files.
"""

from __future__ import annotations

from importlib import resources
from typing import Final

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from aria_desktop.api.server.errors import error_response
from aria_desktop.api.server.security import DOCS_SIGNED_IN
from aria_desktop.domain.errors import NotFoundError

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

_HEADERS: Final = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; "
        "base-uri 'none'"
    ),
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
}

_VENDOR: Final = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "favicon.png": "image/png",
}
"""Swagger UI's files, as ``fastapi-offline`` ships them."""

_SWAGGER_INIT: Final = """
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: false,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
  layout: "BaseLayout",
});
"""

_SIGN_IN: Final = """
document.getElementById("sign-in").addEventListener("submit", async (event) => {
  event.preventDefault();
  const token = document.getElementById("token").value.trim();
  const said = document.getElementById("said");
  const reply = await fetch("/docs/session", {
    headers: { Authorization: "Bearer " + token },
    credentials: "same-origin",
  });
  if (reply.ok) { window.location.replace("/docs"); return; }
  said.textContent = "That is not ARIA's API token. Check it and try again.";
});
"""

_OWN: Final = {"swagger-init.js": _SWAGGER_INIT, "sign-in.js": _SIGN_IN}

_DOCS_HTML: Final = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ARIA Desktop local API</title>
<link rel="icon" href="/docs/assets/favicon.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-init.js"></script></body></html>
"""

_SIGN_IN_HTML: Final = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ARIA Desktop local API — sign in</title>
<style>body{font:16px/1.5 sans-serif;max-width:34em;margin:4em auto;padding:0 1em}
input{font:inherit;width:100%;padding:.4em;box-sizing:border-box}
button{font:inherit;margin-top:.8em;padding:.4em 1.2em}</style></head>
<body><h1>ARIA's API documentation</h1>
<p>This page is only for you. Paste ARIA's API token to open it: the command
<code>aria token show</code> prints it.</p>
<form id="sign-in"><label for="token">API token</label>
<input id="token" type="password" autocomplete="off" autofocus required>
<button type="submit">Open the documentation</button></form>
<p id="said" role="status"></p>
<script src="/docs/assets/sign-in.js"></script></body></html>
"""


@router.get("/docs")
async def docs_page(request: Request) -> HTMLResponse:
    """Swagger UI with a session, else the sign-in form (both 200: they are pages)."""
    signed_in = bool(request.scope.get(DOCS_SIGNED_IN))
    return HTMLResponse(_DOCS_HTML if signed_in else _SIGN_IN_HTML, headers=_HEADERS)


@router.get("/docs/assets/{name}")
async def docs_asset(name: str) -> Response:
    """One of the page's files: Swagger UI's own, or the two small scripts above."""
    if name in _OWN:
        return Response(_OWN[name], media_type="text/javascript", headers=_HEADERS)
    media_type = _VENDOR.get(name)
    if media_type is None:
        return error_response(NotFoundError(f"No documentation file {name!r}."))
    data = (resources.files("fastapi_offline") / "static" / name).read_bytes()
    headers = {**_HEADERS, "cache-control": "max-age=86400"}
    return Response(data, media_type=media_type, headers=headers)
