"""A remote MCP server that needs an OAuth sign-in, built from the official SDK's own pieces.

The MCP SDK's ``MCPServer`` with its authorization-server routes (discovery metadata, dynamic
client registration, authorize, token, revocation) over an in-memory provider, served by
uvicorn on 127.0.0.1 in the test's own event loop, so a test can read what the server saw
(registrations, refresh grants, revoked tokens). ``authorize`` approves at once: the person's
consent page is the one step a test simulates (its "browser" follows the redirect).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

__all__ = ["OAuthMcpServer", "oauth_mcp_server"]


@dataclass
class Provider:
    """The authorization server's memory; what the test inspects."""

    access_lifetime_s: int = 3600
    clients: dict[str, OAuthClientInformationFull] = field(default_factory=dict)
    codes: dict[str, AuthorizationCode] = field(default_factory=dict)
    access: dict[str, AccessToken] = field(default_factory=dict)
    refresh: dict[str, RefreshToken] = field(default_factory=dict)
    refreshed: int = 0
    revoked: list[str] = field(default_factory=list)

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        # Registered as a confidential client, as RFC 7591 lets a server decide: the SDK's
        # revocation endpoint accepts only clients with a secret.
        assert client_info.client_id is not None
        client_info.client_secret = client_info.client_secret or secrets.token_urlsafe(16)
        client_info.token_endpoint_auth_method = "client_secret_post"
        self.clients[client_info.client_id] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        token, refresh = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        expires = int(time.time()) + self.access_lifetime_s
        self.access[token] = AccessToken(
            token=token, client_id=client_id, scopes=scopes, expires_at=expires, resource=resource
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=token,
            expires_in=self.access_lifetime_s,
            refresh_token=refresh,
            scope=" ".join(scopes) or None,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(
            authorization_code.client_id, authorization_code.scopes, authorization_code.resource
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        self.refreshed += 1
        return self._issue(
            refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.revoked.append(token.token)
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    async def exchange_identity_assertion(self, *args: object, **kwargs: object) -> OAuthToken:
        raise NotImplementedError("enterprise identity assertions are not part of this fake")

    def expire_access_tokens(self) -> None:
        """Every access token issued so far is expired from now on (no waiting in tests)."""
        for token in self.access.values():
            token.expires_at = int(time.time()) - 1


@dataclass
class OAuthMcpServer:
    """The running server: its MCP URL and its provider."""

    url: str
    provider: Provider


@contextlib.asynccontextmanager
async def oauth_mcp_server() -> AsyncIterator[OAuthMcpServer]:
    """Serve a signed-in-only MCP server with one tool, ``whoami``, until the block ends."""
    # Listening before uvicorn starts: a client connecting early waits in the backlog.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = int(listener.getsockname()[1])
    base = f"http://127.0.0.1:{port}"
    provider = Provider()
    server = MCPServer(
        "oauth-fake",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,  # type: ignore[arg-type]
            resource_server_url=f"{base}/mcp",  # type: ignore[arg-type]
            client_registration_options=ClientRegistrationOptions(enabled=True),
            revocation_options=RevocationOptions(enabled=True),
            validate_token_resource=True,
        ),
    )

    def whoami() -> str:
        """Say that the caller is signed in."""
        return "signed in"

    server.add_tool(whoami, name="whoami")
    config = uvicorn.Config(
        server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning"
    )
    web = uvicorn.Server(config)
    task = asyncio.create_task(web.serve(sockets=[listener]))
    try:
        yield OAuthMcpServer(url=f"{base}/mcp", provider=provider)
    finally:
        web.should_exit = True
        await task
        listener.close()
