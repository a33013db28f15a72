"""The API's docs page at /docs: served from this computer (no CDN), behind the API's token.

A browser opens the page without a bearer header: it gets a sign-in form, whose script sends
the token once to /docs/session; the HttpOnly, SameSite=Strict cookie that sets (derived from
the token, never the token) then opens the page and its same-origin "Try it out" calls, and
nothing for another page on this computer. Over the real loopback server.
"""

from __future__ import annotations

import httpx

from tests.api.conftest import Api

SAME_ORIGIN = {"sec-fetch-site": "same-origin"}


async def _session_cookie(api: Api) -> str:
    reply = await api.client.get("/docs/session")
    assert reply.status_code == 204
    set_cookie = reply.headers["set-cookie"]
    assert "HttpOnly" in set_cookie
    assert "SameSite=Strict" in set_cookie
    value = set_cookie.split(";", 1)[0].removeprefix("aria_docs=")
    assert value
    assert api.token not in set_cookie  # a value derived from the token, not the token
    return f"aria_docs={value}"


async def test_without_the_token_the_docs_page_is_a_sign_in_form(api: Api) -> None:
    async with httpx.AsyncClient(base_url=api.url) as browser:
        page = await browser.get("/docs")
        refused = await browser.get("/docs/session")
    assert page.status_code == 200
    assert "aria token show" in page.text
    assert 'type="password"' in page.text
    assert "swagger-ui-bundle.js" not in page.text
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert refused.status_code == 401


async def test_signed_in_the_page_is_swagger_ui_from_this_computer(api: Api) -> None:
    cookie = await _session_cookie(api)
    async with httpx.AsyncClient(base_url=api.url, headers={"cookie": cookie}) as browser:
        page = await browser.get("/docs", headers={"sec-fetch-site": "none"})
        bundle = await browser.get("/docs/assets/swagger-ui-bundle.js", headers=SAME_ORIGIN)
        schema = await browser.get("/openapi.json", headers=SAME_ORIGIN)
        missing = await browser.get("/docs/assets/nope.js", headers=SAME_ORIGIN)
    assert page.status_code == 200
    assert '<script src="/docs/assets/swagger-ui-bundle.js">' in page.text
    assert "http" not in page.text.replace('"/docs', "")  # nothing from another host
    assert bundle.status_code == 200
    assert "SwaggerUIBundle" in bundle.text[:2000]
    assert schema.json()["paths"]["/api/v1/chat"]
    assert missing.status_code == 404


async def test_the_session_serves_only_the_browsers_same_origin_requests(api: Api) -> None:
    cookie = await _session_cookie(api)
    origin = {"origin": api.url}
    async with httpx.AsyncClient(base_url=api.url, headers={"cookie": cookie}) as browser:
        try_it_out = await browser.post(
            "/api/v1/conversations", json={"title": "From the docs"}, headers=SAME_ORIGIN | origin
        )
        other_port_page = await browser.get(
            "/api/v1/conversations", headers={"sec-fetch-site": "same-site"}
        )
        no_fetch_site = await browser.get("/api/v1/conversations")
        linked_from_elsewhere = await browser.get("/docs", headers={"sec-fetch-site": "cross-site"})
    assert try_it_out.status_code == 201, try_it_out.text
    assert other_port_page.status_code == 401
    assert no_fetch_site.status_code == 401
    assert "swagger-ui-bundle.js" not in linked_from_elsewhere.text


async def test_rotating_the_token_ends_the_docs_session(api: Api) -> None:
    cookie = await _session_cookie(api)
    api.token_file.rotate()
    async with httpx.AsyncClient(base_url=api.url, headers={"cookie": cookie}) as browser:
        page = await browser.get("/docs", headers={"sec-fetch-site": "none"})
    assert "swagger-ui-bundle.js" not in page.text
