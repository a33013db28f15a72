"""Signing in to remote MCP servers with OAuth 2.1, as the MCP authorization spec describes it.

The MCP SDK's ``OAuthClientProvider`` speaks the protocol: discovery from the 401's
``WWW-Authenticate`` and protected-resource metadata, authorization-server metadata (OAuth and
OpenID fallbacks), client-ID metadata documents, dynamic or pre-registered clients, PKCE, the
``resource`` parameter, scopes from the challenge and step-up, token endpoint auth methods and
refresh. ARIA supplies what only an application can (ARCHITECTURE.md: MCP):

- where the grant lives (``GrantStore``): the keyring, one secret per server, so a sign-in
  survives restarts and is refreshed quietly; without a usable keyring, this process's memory
  (the user signs in again after a restart, and is told so);
- the redirect: a one-shot receiver on ``127.0.0.1`` (RFC 8252 loopback redirect), on the port
  the client was registered with;
- the person: ``Browser`` opens the authorization page. With no browser (a server started in
  the background) a needed sign-in raises ``McpSignInNeeded``, and the server waits for the
  user instead of retrying;
- sign-out: the token is revoked at the authorization server when it offers revocation
  (RFC 7009), then forgotten.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from aria_desktop.domain.errors import McpServerError, SecretStoreError

if TYPE_CHECKING:
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthToken

__all__ = [
    "Browser",
    "GrantStore",
    "LoopbackReceiver",
    "McpSignInNeeded",
    "OAuthOptions",
    "grant_secret_name",
    "oauth_provider",
    "revoke_grant",
    "system_browser",
]

_LOGGER = logging.getLogger(__name__)
_CALLBACK_PATH = "/callback"
_SIGN_IN_TIMEOUT_S = 300.0
_UNSAFE_RE = re.compile(r"[^a-z0-9]+")
_IN_MEMORY: dict[str, str] = {}
"""Grants of this process when the keyring cannot hold them."""


class McpSignInNeeded(McpServerError):
    """A remote server wants the user to sign in, and no one was asked (started in the background).

    Never shown as a failure: the supervisor turns it into the "needs-sign-in" state.
    """

    def __init__(self, server: str) -> None:
        """The sign-in ``server`` needs."""
        super().__init__(
            f"The MCP server {server} needs you to sign in.",
            hint=f"Sign in with `aria mcp login {server}` or on the MCP page.",
        )
        self.server = server


Browser = Callable[[str], Awaitable[None]]
"""Shows the authorization URL to the person (the system browser; a test's fetch)."""


@dataclass(frozen=True, kw_only=True)
class OAuthOptions:
    """A server's sign-in settings.

    Attributes:
        client_id / client_secret: a client registered with the server beforehand ("" = let the
            server register ARIA, or use ``client_metadata_url``).
        client_metadata_url: an HTTPS URL of ARIA's client-ID metadata document, used where the
            authorization server accepts those ("" = none).
        scopes: scopes to ask for when the server names none.
    """

    client_id: str = ""
    client_secret: str = ""
    client_metadata_url: str = ""
    scopes: tuple[str, ...] = ()


def grant_secret_name(server: str) -> str:
    """The keyring name of a server's grant: ``mcp_oauth_<server>`` in the secret alphabet."""
    return f"mcp_oauth_{_UNSAFE_RE.sub('_', server.lower()).strip('_')}"[:64]


class GrantStore:
    """One server's tokens and client registration, kept as one keyring secret (JSON).

    Satisfies the SDK's ``TokenStorage``. The access token's expiry is kept as a moment, so a
    token loaded after a restart is refreshed rather than sent expired.
    """

    def __init__(self, server: str) -> None:
        """The grant of ``server`` (read lazily)."""
        self.server = server
        self.name = grant_secret_name(server)
        self.kept_in_memory = False

    # --- the secret ---------------------------------------------------------------------

    def _load(self) -> dict[str, Any]:
        from aria_desktop import keystore

        text = _IN_MEMORY.get(self.name)
        if text is None:
            try:
                text = keystore.get_secret(self.name)
            except SecretStoreError:
                text = None
        if not text:
            return {}
        try:
            data = json.loads(text)
        except ValueError:
            _LOGGER.warning("The stored sign-in for MCP server %s is unreadable", self.server)
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self, data: dict[str, Any]) -> None:
        from aria_desktop import keystore

        text = json.dumps(data, separators=(",", ":"))
        if self.name not in _IN_MEMORY:
            try:
                keystore.set_secret(self.name, text)
                return
            except SecretStoreError as exc:
                _LOGGER.warning(
                    "No keyring for the sign-in to MCP server %s (%s): it lasts until ARIA quits",
                    self.server,
                    exc.message,
                )
        self.kept_in_memory = True
        _IN_MEMORY[self.name] = text

    def forget(self) -> bool:
        """Delete the grant; whether there was one."""
        from aria_desktop import keystore

        had = _IN_MEMORY.pop(self.name, None) is not None
        with contextlib.suppress(SecretStoreError):
            had = keystore.delete_secret(self.name) or had
        return had

    # --- what the SDK and ARIA read -----------------------------------------------------

    @property
    def signed_in(self) -> bool:
        """Whether a token is stored."""
        return bool(self._load().get("tokens"))

    @property
    def expires_at(self) -> float | None:
        """When the stored access token expires (epoch seconds), if the server said."""
        value = self._load().get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    @property
    def redirect_port(self) -> int | None:
        """The loopback port of the registered client's redirect URI (None: not registered)."""
        uris = self._load().get("client", {}).get("redirect_uris") or []
        port = urlsplit(str(uris[0])).port if uris else None
        return port if isinstance(port, int) else None

    @property
    def revocation_endpoint(self) -> str:
        """The authorization server's revocation endpoint ("" = it has none)."""
        return str(self._load().get("revocation_endpoint") or "")

    def remember_revocation(self, endpoint: str) -> None:
        """Keep the revocation endpoint (the SDK keeps server metadata in memory only)."""
        data = self._load()
        if data.get("revocation_endpoint") != endpoint:
            data["revocation_endpoint"] = endpoint
            self._save(data)

    async def get_tokens(self) -> OAuthToken | None:
        """The stored tokens (SDK ``TokenStorage``)."""
        from mcp.shared.auth import OAuthToken

        tokens = self._load().get("tokens")
        return OAuthToken.model_validate(tokens) if tokens else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Store new tokens and when the access token expires."""
        data = self._load()
        data["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        data["expires_at"] = time.time() + tokens.expires_in if tokens.expires_in else None
        self._save(data)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        """The client registration (SDK ``TokenStorage``)."""
        from mcp.shared.auth import OAuthClientInformationFull

        info = self._load().get("client")
        return OAuthClientInformationFull.model_validate(info) if info else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Store the client registration."""
        data = self._load()
        data["client"] = client_info.model_dump(mode="json", exclude_none=True)
        self._save(data)


class LoopbackReceiver:
    """Receives the authorization server's redirect on ``127.0.0.1`` once.

    ``url`` is the redirect URI to register; ``result()`` waits for the browser to arrive with
    the code (or the server's error) and answers the page in plain words.
    """

    def __init__(self, server: str, port: int) -> None:
        """Receive for ``server`` (named on the page) on ``port``."""
        self.server = server
        self.port = port
        self._result: asyncio.Future[dict[str, str]] | None = None

    @property
    def url(self) -> str:
        """The redirect URI."""
        return f"http://127.0.0.1:{self.port}{_CALLBACK_PATH}"

    @contextlib.asynccontextmanager
    async def listening(self) -> AsyncIterator[LoopbackReceiver]:
        """Listen for the redirect while the block runs."""
        self._result = asyncio.get_running_loop().create_future()
        try:
            server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        except OSError as exc:
            raise McpServerError(
                f"Signing in to {self.server} needs port {self.port} on this computer, "
                f"which is in use ({exc.strerror}).",
                hint="Close the program using it, or sign out and in again to use another port.",
            ) from None
        try:
            yield self
        finally:
            server.close()
            await server.wait_closed()

    async def result(self) -> dict[str, str]:
        """The redirect's query (code, state, iss) once the browser arrives."""
        assert self._result is not None, "result() outside listening()"
        try:
            async with asyncio.timeout(_SIGN_IN_TIMEOUT_S):
                return await self._result
        except TimeoutError:
            raise McpServerError(
                f"Signing in to {self.server} was not finished within "
                f"{_SIGN_IN_TIMEOUT_S / 60:.0f} minutes.",
                hint="Sign in again and finish the steps in the browser.",
            ) from None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            writer.close()
            return
        target = request.split(b" ", 2)[1].decode("latin-1") if request.count(b" ") >= 2 else ""
        parts = urlsplit(target)
        query = {key: values[0] for key, values in parse_qs(parts.query).items()}
        done = self._result is not None and self._result.done()
        if parts.path != _CALLBACK_PATH or done or not ({"code", "error"} & query.keys()):
            status, page = "404 Not Found", "This page is not part of signing in."
        elif "error" in query:
            status = "200 OK"
            why = query.get("error_description") or query["error"]
            page = f"Signing in to {self.server} did not work: {why}. You can close this tab."
        else:
            status = "200 OK"
            page = (
                f"You are signed in to {self.server}. You can close this tab and go back to ARIA."
            )
        body = f"<!doctype html><meta charset=utf-8><title>ARIA</title><p>{_html(page)}</p>"
        data = body.encode()
        head = (
            f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n"
        )
        writer.write(head.encode() + data)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()
        if status == "200 OK" and self._result is not None and not self._result.done():
            self._result.set_result(query)


class _QuietSignInNeeded(logging.Filter):
    """Drops the SDK's error log of a sign-in ARIA chose not to start (the server waits)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, McpSignInNeeded)


logging.getLogger("mcp.client.auth.oauth2").addFilter(_QuietSignInNeeded())


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def free_loopback_port() -> int:
    """A port nobody listens on now (the redirect URI is registered with it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def system_browser(url: str) -> None:
    """Open ``url`` in the user's web browser (in a thread: ``webbrowser`` may block)."""
    import webbrowser

    if not await asyncio.to_thread(webbrowser.open, url):
        raise McpServerError(
            "No web browser could be opened for signing in.",
            hint="Sign in from a terminal with `aria mcp login`, which shows the address to open.",
        )


class _Person:
    """The SDK's redirect and callback handlers: the browser out, the loopback receiver back."""

    def __init__(self, server: str, receiver: LoopbackReceiver, browser: Browser | None) -> None:
        self.server = server
        self.receiver = receiver
        self.browser = browser
        self._listening: contextlib.AbstractAsyncContextManager[LoopbackReceiver] | None = None

    async def redirect(self, authorization_url: str) -> None:
        """Listen for the redirect, then show the page (no browser: the sign-in must wait)."""
        if self.browser is None:
            raise McpSignInNeeded(self.server)
        self._listening = self.receiver.listening()
        await self._listening.__aenter__()
        await self.browser(authorization_url)

    async def callback(self) -> AuthorizationCodeResult:
        """The code the browser brought back (the receiver stops listening either way)."""
        from mcp.shared.auth import AuthorizationCodeResult

        try:
            query = await self.receiver.result()
        finally:
            listening, self._listening = self._listening, None
            if listening is not None:
                await listening.__aexit__(None, None, None)
        if "error" in query:
            why = query.get("error_description") or query["error"]
            raise McpServerError(f"Signing in to {self.server} was refused: {why}.")
        return AuthorizationCodeResult(
            code=query["code"], state=query.get("state"), iss=query.get("iss")
        )


def oauth_provider(
    server: str,
    url: str,
    options: OAuthOptions,
    store: GrantStore,
    browser: Browser | None,
) -> OAuthClientProvider:
    """The SDK's OAuth provider for one server, with ARIA's store, redirect and browser.

    ``browser`` None: a server started in the background, where a needed sign-in raises
    ``McpSignInNeeded`` (no page opens by itself).
    """
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    receiver = LoopbackReceiver(server, store.redirect_port or free_loopback_port())
    person = _Person(server, receiver, browser)
    metadata = OAuthClientMetadata(
        client_name="ARIA Desktop",
        redirect_uris=[receiver.url],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
        scope=" ".join(options.scopes) or None,
    )

    class Provider(OAuthClientProvider):
        """The SDK's provider, knowing when a stored token expires and keeping revocation."""

        async def _initialize(self) -> None:
            await super()._initialize()
            self.context.token_expiry_time = store.expires_at
            if options.client_id and self.context.client_info is None:
                self.context.client_info = _pre_registered(options, receiver.url)

        async def _handle_token_response(self, response: Any) -> None:
            await super()._handle_token_response(response)
            self._remember_revocation()

        async def _handle_refresh_response(self, response: Any) -> bool:
            refreshed = await super()._handle_refresh_response(response)
            self._remember_revocation()
            return refreshed

        def _remember_revocation(self) -> None:
            meta = self.context.oauth_metadata
            endpoint = getattr(meta, "revocation_endpoint", None) if meta else None
            if endpoint:
                store.remember_revocation(str(endpoint))

    return Provider(
        server_url=url,
        client_metadata=metadata,
        storage=store,
        redirect_handler=person.redirect,
        callback_handler=person.callback,
        client_metadata_url=options.client_metadata_url or None,
    )


def _pre_registered(options: OAuthOptions, redirect_uri: str) -> OAuthClientInformationFull:
    from mcp.shared.auth import OAuthClientInformationFull

    return OAuthClientInformationFull(
        client_id=options.client_id,
        client_secret=options.client_secret or None,
        redirect_uris=[redirect_uri],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        token_endpoint_auth_method="client_secret_basic" if options.client_secret else "none",
    )


async def revoke_grant(store: GrantStore, options: OAuthOptions) -> str:
    """Revoke the stored tokens where the server offers it, then forget them; what happened."""
    import httpx

    tokens = await store.get_tokens()
    endpoint = store.revocation_endpoint
    info = await store.get_client_info()
    revoked = ""
    if tokens is not None and endpoint:
        client_id = (info.client_id if info else None) or options.client_id
        secret = (info.client_secret if info else None) or options.client_secret
        method = (info.token_endpoint_auth_method if info else None) or "client_secret_basic"
        # The client authenticates as it does at the token endpoint (RFC 7009 section 2.1).
        basic = httpx.BasicAuth(client_id, secret) if secret and method.endswith("basic") else None
        try:
            async with httpx.AsyncClient(timeout=15) as client:
                for token, hint in (
                    (tokens.refresh_token, "refresh_token"),
                    (tokens.access_token, "access_token"),
                ):
                    if not token:
                        continue
                    form = {"token": token, "token_type_hint": hint}
                    if basic is None:
                        form["client_id"] = client_id
                        if secret:
                            form["client_secret"] = secret
                    answer = await client.post(
                        endpoint, data=form, auth=basic or httpx.USE_CLIENT_DEFAULT
                    )
                    answer.raise_for_status()
            revoked = "revoked"
        except httpx.HTTPError as exc:
            said = exc.response.text[:200] if isinstance(exc, httpx.HTTPStatusError) else ""
            _LOGGER.warning("Revoking the sign-in to %s failed: %s %s", store.server, exc, said)
            revoked = "not revoked (the server did not answer)"
    had = store.forget()
    if not had:
        return "not signed in"
    return f"signed out ({revoked})" if revoked else "signed out"
