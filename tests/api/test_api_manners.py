"""API manners: a whole reply that fails is an HTTP failure with the error body (never a 200
whose body says "error"), and the API client raises the error the owner raised."""

from __future__ import annotations

import httpx

from aria_desktop.api.client.errors import error_from
from aria_desktop.api.server.schemas.chat import ChatFailedOut
from aria_desktop.domain.errors import NoBackendError
from tests.api.conftest import Api
from tests.fakes import FakeOllama


async def test_a_whole_reply_no_model_can_give_is_a_503_with_the_error(
    api: Api, ollama: FakeOllama
) -> None:
    ollama.stop()  # nothing answers at the configured address any more
    response = await api.client.post("/api/v1/chat", json={"message": "hi", "stream": False})
    assert response.status_code == 503
    body = ChatFailedOut.model_validate(response.json())
    assert body.error.code == "no_backend"
    assert "cannot connect" in body.error.message
    assert body.run_id
    assert body.conversation_id
    # The turn is stored: a program can ask again in the same conversation.
    stored = await api.client.get(f"/api/v1/conversations/{body.conversation_id}")
    assert stored.status_code == 200


async def test_the_api_client_raises_the_error_the_owner_raised(
    api: Api, ollama: FakeOllama
) -> None:
    ollama.stop()
    response = await api.client.post("/api/v1/chat", json={"message": "hi", "stream": False})
    error = error_from(response)
    assert isinstance(error, NoBackendError)
    assert error.status == 503
    assert error.hint


async def test_the_openapi_document_lists_the_whole_replys_failures(api: Api) -> None:
    schema = (await api.client.get("/openapi.json")).json()
    responses = schema["paths"]["/api/v1/chat"]["post"]["responses"]
    for status in ("400", "402", "502", "503", "504"):
        ref = responses[status]["content"]["application/json"]["schema"]["$ref"]
        assert ref.endswith("/ChatFailedOut")


def test_an_unlisted_code_keeps_its_status_and_message() -> None:
    response = httpx.Response(418, json={"error": {"code": "odd", "message": "m", "hint": "h"}})
    error = error_from(response)
    assert (error.message, error.hint) == ("m", "h")
