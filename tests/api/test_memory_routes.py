"""Memory routes over real HTTP: create/get/list/update/forget/search, the inbox, the error
mapping, and ``ApiClient`` doing the same through the ``Assistant`` protocol."""

from __future__ import annotations

import pytest

from aria_desktop.api.client.api_client import ApiClient
from aria_desktop.core.ports import Assistant
from aria_desktop.domain.chat import NewMessage
from aria_desktop.domain.errors import ApiAuthError, MemoryUnavailableError, NotFoundError
from aria_desktop.domain.memory import MemoryDraft, MemoryEdit, MemoryFilter, MemoryQuery, NewMemory
from aria_desktop.domain.memory_reflection import TurnReflection
from tests.api.conftest import Api

P = "/api/v1"


async def test_memory_round_trip_create_get_update_search_forget(api: Api) -> None:
    created = await api.client.post(
        f"{P}/memories",
        json={"content": "My sister Dana lives in Lisbon", "subject": "Dana", "importance": 0.8},
    )
    assert created.status_code == 201, created.text
    memory = created.json()
    assert memory["id"].startswith("mem_")
    assert (memory["provenance"], memory["subject"], memory["status"]) == ("api", "Dana", "active")
    assert (await api.client.get(f"{P}/memories/{memory['id']}")).json() == memory

    listed = (await api.client.get(f"{P}/memories", params={"subject": "dana"})).json()
    assert [m["id"] for m in listed] == [memory["id"]]

    patched = await api.client.patch(
        f"{P}/memories/{memory['id']}", json={"content": "My sister Dana lives in Porto"}
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["content"] == "My sister Dana lives in Porto"
    assert patched.json()["importance"] == 0.8  # left out: kept

    hits = (await api.client.post(f"{P}/memories/search", json={"query": "Dana Porto"})).json()
    assert [h["memory"]["id"] for h in hits] == [memory["id"]]
    assert hits[0]["lexical_rank"] == 1
    assert hits[0]["score"] > 0

    assert (await api.client.delete(f"{P}/memories/{memory['id']}")).status_code == 204
    assert (await api.client.post(f"{P}/memories/search", json={"query": "Porto"})).json() == []
    forgotten = (await api.client.get(f"{P}/memories/{memory['id']}")).json()
    assert forgotten["status"] == "forgotten"
    assert (await api.client.get(f"{P}/memories")).json() == []
    by_status = (await api.client.get(f"{P}/memories", params={"status": "forgotten"})).json()
    assert [m["id"] for m in by_status] == [memory["id"]]


async def test_a_memory_can_be_pinned_to_a_tier_listed_by_tier_and_its_moves_read(
    api: Api,
) -> None:
    created = (await api.client.post(f"{P}/memories", json={"content": "I am vegetarian"})).json()
    assert (created["tier"], created["tier_pinned"]) == ("active", False)
    path = f"{P}/memories/{created['id']}"
    pinned = await api.client.patch(path, json={"tier": "stable"})
    assert pinned.status_code == 200, pinned.text
    assert (pinned.json()["tier"], pinned.json()["tier_pinned"]) == ("stable", True)
    stable = (await api.client.get(f"{P}/memories", params={"tier": "stable"})).json()
    assert [m["id"] for m in stable] == [created["id"]]
    assert (await api.client.get(f"{P}/memories", params={"tier": "thread"})).json() == []
    [change] = (await api.client.get(f"{path}/tier-changes")).json()
    assert (change["from_tier"], change["to_tier"], change["reason"]) == (
        "active",
        "stable",
        "pinned by the user",
    )
    released = (await api.client.patch(path, json={"tier_pinned": False})).json()
    assert (released["tier"], released["tier_pinned"]) == ("stable", False)
    assert (await api.client.patch(path, json={"tier": "gold"})).status_code == 422
    missing = await api.client.get(f"{P}/memories/mem_nothere/tier-changes")
    assert missing.status_code == 404


async def test_memory_stats_answer_the_latest_conversations_and_refuse_a_bad_count(
    api: Api,
) -> None:
    empty = await api.client.get(f"{P}/memory-stats")
    assert empty.status_code == 200, empty.text
    assert empty.json() == {
        "conversations": [],
        "waste_ratio": 0.0,
        "earlier_waste_ratio": None,
        "trend": "new",
    }
    assert (await api.client.get(f"{P}/memory-stats", params={"last": 0})).status_code == 422


async def test_memory_errors_are_mapped_with_codes_and_hints(api: Api) -> None:
    for method, path, body in (
        ("GET", f"{P}/memories/mem_nope", None),
        ("PATCH", f"{P}/memories/mem_nope", {"importance": 0.1}),
        ("DELETE", f"{P}/memories/mem_nope", None),
        ("POST", f"{P}/memory-inbox/cand_nope/approve", None),
        ("POST", f"{P}/memory-inbox/cand_nope/reject", None),
    ):
        response = await api.client.request(method, path, json=body)
        assert response.status_code == 404, (method, path, response.text)
        assert response.json()["error"]["code"] == "not_found"
    # Passes the schema's "not blank" pattern, but is only a separator once normalised.
    empty = await api.client.post(f"{P}/memories", json={"content": "\x1c"})
    assert empty.status_code == 422
    assert empty.json()["error"]["code"] == "memory_invalid"
    assert empty.json()["error"]["hint"]
    bad_kind = await api.client.post(f"{P}/memories", json={"content": "x", "kind": "secret"})
    assert bad_kind.status_code == 422


@pytest.mark.parametrize("memory_enabled", [False])
async def test_memory_routes_answer_503_with_a_hint_when_memory_is_not_set_up(api: Api) -> None:
    for method, path, body in (
        ("GET", f"{P}/memories", None),
        ("POST", f"{P}/memories", {"content": "x"}),
        ("POST", f"{P}/memories/search", {"query": "x"}),
        ("GET", f"{P}/memory-inbox", None),
    ):
        response = await api.client.request(method, path, json=body)
        assert response.status_code == 503, (path, response.text)
        error = response.json()["error"]
        assert error["code"] == "memory_unavailable"
        assert "aria doctor" in error["hint"]
    async with ApiClient(api.url, api.token) as client:
        with pytest.raises(MemoryUnavailableError):
            await client.list_memories()


async def test_inbox_lists_approves_and_rejects_proposed_memories(api: Api) -> None:
    assert api.memory_store is not None
    keep = await api.memory_store.add_candidate(
        MemoryDraft(content="I prefer tea over coffee", kind="preference")
    )
    drop = await api.memory_store.add_candidate(MemoryDraft(content="I live on the moon"))
    assert keep is not None
    assert drop is not None
    inbox = (await api.client.get(f"{P}/memory-inbox")).json()
    assert [c["id"] for c in inbox] == [keep.id, drop.id]
    assert inbox[0]["kind"] == "preference"

    approved = await api.client.post(f"{P}/memory-inbox/{keep.id}/approve")
    assert approved.status_code == 200, approved.text
    assert approved.json()["content"] == "I prefer tea over coffee"
    assert (await api.client.post(f"{P}/memory-inbox/{drop.id}/reject")).status_code == 204
    assert (await api.client.get(f"{P}/memory-inbox")).json() == []
    listed = (await api.client.get(f"{P}/memories")).json()
    assert [m["content"] for m in listed] == ["I prefer tea over coffee"]


async def test_api_client_drives_memory_like_the_local_assistant(api: Api) -> None:
    assert api.memory_store is not None
    async with ApiClient(api.url, api.token) as client:
        assistant: Assistant = client
        added = await assistant.add_memory(
            NewMemory(content="The boiler code is 4471", kind="fact", importance=0.9)
        )
        assert added.provenance == "api"
        assert added.importance == 0.9
        assert await assistant.get_memory(added.id) == added
        assert await assistant.get_memory("mem_missing") is None
        fixed = await assistant.update_memory(
            added.id, MemoryEdit(content="The boiler code is 4472")
        )
        assert fixed.id == added.id
        assert fixed.content.endswith("4472")
        hits = await assistant.search_memories(MemoryQuery(text="boiler code", limit=5))
        assert [h.memory.id for h in hits] == [added.id]
        facts = await assistant.list_memories(MemoryFilter(kinds=("fact",)))
        assert [m.id for m in facts] == [added.id]
        assert await assistant.list_memories(MemoryFilter(kinds=("skill",))) == []

        candidate = await api.memory_store.add_candidate(
            MemoryDraft(content="My cat is called Miso")
        )
        assert candidate is not None
        assert [c.id for c in await assistant.list_memory_inbox()] == [candidate.id]
        approved = await assistant.approve_memory(candidate.id)
        assert approved.content == "My cat is called Miso"
        with pytest.raises(NotFoundError):
            await assistant.reject_memory(candidate.id)

        await api.memory_store.record_reflection(
            TurnReflection(
                conversation_id="conv-1", run_id="run-1", at=1e9, loaded=4, used=1, load_ms=3.0
            )
        )
        stats = await assistant.memory_stats(5)
        [reflected] = stats.conversations
        assert (reflected.conversation_id, reflected.loaded, reflected.used) == ("conv-1", 4, 1)
        assert (stats.waste_ratio, stats.trend) == (0.75, "new")
        tiers = await assistant.memory_tier_changes(added.id)
        assert tiers == []

        await assistant.forget_memory(added.id)
        forgotten = await assistant.get_memory(added.id)
        assert forgotten is not None
        assert forgotten.status == "forgotten"
        with pytest.raises(NotFoundError):
            await assistant.forget_memory("mem_missing")


async def test_api_client_follows_a_rotated_token_from_its_token_file(api: Api) -> None:
    old = api.token
    async with (
        ApiClient(api.url, old, token_file=api.token_file) as follows,
        ApiClient(api.url, old) as fixed,
    ):
        await follows.add_memory(NewMemory(content="Before the rotation"))
        api.token_file.rotate()  # as the settings dialog or `aria token rotate` do
        assert [m.content for m in await follows.list_memories()] == ["Before the rotation"]
        with pytest.raises(ApiAuthError):
            await fixed.list_memories()


@pytest.mark.parametrize(
    "content",
    [
        "  leading and trailing spaces  ",
        "two  spaces,\ttab,\nnewline,\r\nCRLF and a final newline\n",
        "line separator\u2028and NBSP\u00a0and zero-width\u200bjoiner\u200d👍🏽",
        'quotes " \' and backslash \\ and <b>markup</b> & NEAR(" OR *',
    ],
)
async def test_acknowledged_memory_text_reads_back_exactly(api: Api, content: str) -> None:
    created = await api.client.post("/api/v1/memories", json={"content": content})
    assert created.status_code == 201, created.text
    assert created.json()["content"] == content
    again = await api.client.get(f"/api/v1/memories/{created.json()['id']}")
    assert again.json()["content"] == content
    patched = await api.client.patch(
        f"/api/v1/memories/{created.json()['id']}", json={"content": content + " (edited)"}
    )
    assert patched.json()["content"] == content + " (edited)"


@pytest.mark.parametrize(
    ("content", "where"),
    [
        ("ends in a unit separator\x1f", "U+001F at position 24"),
        ("a NUL \x00 inside", "U+0000 at position 6"),
        ("escape \x1b[31mred", "U+001B at position 7"),
        ("delete \x7f", "U+007F at position 7"),
        ("next line \x85 (C1)", "U+0085 at position 10"),
    ],
)
async def test_memory_text_with_control_characters_is_refused_not_altered(
    api: Api, content: str, where: str
) -> None:
    response = await api.client.post("/api/v1/memories", json={"content": content})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "memory_invalid"
    assert where in error["message"]
    assert error["hint"]
    assert (await api.client.get("/api/v1/memories")).json() == []
    created = await api.client.post("/api/v1/memories", json={"content": "a clean memory"})
    patched = await api.client.patch(
        f"/api/v1/memories/{created.json()['id']}", json={"content": content}
    )
    assert patched.status_code == 422
    read = await api.client.get(f"/api/v1/memories/{created.json()['id']}")
    assert read.json()["content"] == "a clean memory"


async def test_memory_subject_is_one_line_and_kept_exactly(api: Api) -> None:
    kept = await api.client.post(
        "/api/v1/memories", json={"content": "likes tea", "subject": " Dana  Smith"}
    )
    assert kept.json()["subject"] == " Dana  Smith"
    refused = await api.client.post(
        "/api/v1/memories", json={"content": "likes coffee", "subject": "Dana\nSmith"}
    )
    assert refused.status_code == 422
    assert "subject" in refused.json()["error"]["message"]


async def test_unpaired_surrogate_is_refused_with_a_clear_error(api: Api) -> None:
    body = b'{"content": "broken \\ud800 half"}'
    response = await api.client.post(
        "/api/v1/memories", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] in ("memory_invalid", "invalid_request")


async def test_associations_over_http_and_the_api_client_with_search_bringing_them_in(
    api: Api,
) -> None:
    assert api.memory_store is not None
    job = await api.memory_store.add(
        MemoryDraft(content="I start a new job at Fernhill Studios in March")
    )
    office = await api.memory_store.add(
        MemoryDraft(content="Fernhill's office is on Canal Road in Leeds")
    )
    job_id, office_id = job[0].id, office[0].id
    for conversation in ("conv-1", "conv-2"):
        await api.memory_store.associate([job_id, office_id], conversation)
    listed = await api.client.get(f"/api/v1/memories/{job_id}/associations")
    assert listed.status_code == 200
    [link] = listed.json()
    assert link["memory"]["id"] == office_id
    assert link["count"] == 2
    assert link["strength"] == pytest.approx(0.1099, abs=1e-4)
    assert link["conversations"] == ["conv-1", "conv-2"]
    missing = await api.client.get("/api/v1/memories/mem_missing/associations")
    assert missing.status_code == 404
    found = await api.client.post(
        "/api/v1/memories/search",
        json={"query": "my commute at the new job", "associates": 2, "min_similarity": 0.0},
    )
    assert [(h["memory"]["id"], h["associated_with"]) for h in found.json()] == [
        (job_id, None),
        (office_id, job_id),
    ]
    async with ApiClient(api.url, api.token) as client:
        [remote] = await client.memory_associations(office_id)
        assert (remote.memory.id, remote.count, remote.conversations) == (
            job_id,
            2,
            ("conv-1", "conv-2"),
        )
        hits = await client.search_memories(
            MemoryQuery(text="my commute at the new job", associates=2)
        )
        assert [h.associated_with for h in hits] == [None, job_id]


async def test_a_closed_conversation_has_an_episode_linked_to_what_it_taught(api: Api) -> None:
    assert api.memory_store is not None
    conversation = await api.store.create_conversation("The car")
    await api.store.add_message(
        conversation.id, NewMessage(role="user", content="Should I sell the Golf?")
    )
    golf, _ = await api.memory_store.add(
        MemoryDraft(content="The user drives a VW Golf", conversation_id=conversation.id)
    )
    assert (await api.client.get(f"{P}/episodes")).json() == []
    ended = await api.client.post(f"{P}/conversations/{conversation.id}/end")
    assert ended.status_code == 200, ended.text
    episode = ended.json()
    assert episode["summary"] == "The car: Should I sell the Golf?"
    assert (episode["summarised"], episode["memory_ids"]) == (False, [golf.id])
    assert (await api.client.get(f"{P}/episodes/{episode['id']}")).json() == episode
    found = (await api.client.get(f"{P}/episodes", params={"q": "selling the Golf"})).json()
    assert [e["id"] for e in found] == [episode["id"]]
    [source] = (await api.client.get(f"{P}/memories/{golf.id}/sources")).json()
    assert source == {
        "conversation_id": conversation.id,
        "relation": "extracted",
        "at": source["at"],
        "episode_id": episode["id"],
    }
    assert (await api.client.get(f"{P}/episodes/ep_missing")).status_code == 404
    assert (await api.client.post(f"{P}/conversations/nope/end")).status_code == 404
    async with ApiClient(api.url, api.token) as client:
        assert [e.id for e in await client.list_episodes("Golf")] == [episode["id"]]
        assert (await client.get_episode(episode["id"])) is not None
        assert await client.get_episode("ep_missing") is None
        assert [s.episode_id for s in await client.memory_sources(golf.id)] == [episode["id"]]
        again = await client.end_conversation(conversation.id)
        assert again is not None
        assert again.id == episode["id"]
    # Deleting the conversation takes its episode and the memory only it taught.
    assert (await api.client.delete(f"{P}/conversations/{conversation.id}")).status_code == 204
    assert (await api.client.get(f"{P}/episodes")).json() == []
    forgotten = (await api.client.get(f"{P}/memories/{golf.id}")).json()
    assert forgotten["status"] == "forgotten"
