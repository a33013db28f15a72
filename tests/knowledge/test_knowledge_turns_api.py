"""A chat turn gets cited passages; the knowledge API and its client over a real server."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from aria_desktop import __version__
from aria_desktop.adapters.knowledge.store import SQLiteKnowledgeStore
from aria_desktop.api.client.api_client import ApiClient
from aria_desktop.api.client.knowledge import KnowledgeClient
from aria_desktop.api.config import ApiConfig
from aria_desktop.api.runner import ApiServer
from aria_desktop.api.token import TokenFile
from aria_desktop.core.agent import AgentConfig
from aria_desktop.core.assistant import LocalAssistant
from aria_desktop.core.audit import AuditLog
from aria_desktop.core.knowledge.service import KnowledgeService
from aria_desktop.core.orchestrator import Orchestrator, TurnOutcome
from aria_desktop.domain.commands import StartTurn
from aria_desktop.domain.errors import KnowledgeError
from aria_desktop.domain.events import RunEnd
from aria_desktop.domain.knowledge import Citation, KnowledgeQuery, answer_key
from aria_desktop.domain.memory_events import KnowledgeCited
from tests.fakes.audit import MemoryAuditStore
from tests.fakes.ports import InMemoryConversationStore, ScriptedChatModel, text_reply


def _orchestrator(model: ScriptedChatModel) -> Orchestrator:
    return Orchestrator(
        model=model,
        store=InMemoryConversationStore(),
        audit=AuditLog(MemoryAuditStore()),
        config=AgentConfig(flush_interval_s=0.05),
    )


async def test_a_turn_gets_numbered_passages_and_the_citations_event(
    store: SQLiteKnowledgeStore, corpus: Path
) -> None:
    await store.add(str(corpus))
    model = ScriptedChatModel(text_reply("The warranty lasts 24 months [1]."))
    orchestrator = _orchestrator(model)
    service = KnowledgeService(store=store)
    observed = asyncio.Event()
    keep = service.on_turn

    async def on_turn(outcome: TurnOutcome) -> None:
        await keep(outcome)
        observed.set()

    service.on_turn = on_turn  # type: ignore[method-assign]
    service.install(orchestrator)
    sub = orchestrator.bus.subscribe()
    try:
        handle = await orchestrator.handle(StartTurn(text="How long is the warranty?"))
        cited: KnowledgeCited | None = None
        async with asyncio.timeout(30):
            while True:
                event = await sub.get()
                if isinstance(event, KnowledgeCited):
                    cited = event
                if isinstance(event, RunEnd) and event.run_id == handle.run_id:
                    break
        prompt = "\n".join(m.content for m in model.requests[0].messages if m.role == "system")
        assert "<documents" in prompt
        assert "[1] manual.pdf, p. 3" in prompt
        assert cited is not None
        assert cited.conversation_id == handle.conversation_id
        assert cited.citations[0].target.endswith("manual.pdf#page=3")
        async with asyncio.timeout(30):
            await observed.wait()
        kept = await service.conversation_citations(handle.conversation_id)
        assert list(kept) == [answer_key("The warranty lasts 24 months [1].")]
        assert [c.page for c in kept[answer_key("The warranty lasts 24 months [1].")]] == [3]
    finally:
        await orchestrator.stop()


async def test_knowledge_routes_through_the_api_client(
    store: SQLiteKnowledgeStore, corpus: Path, tmp_path: Path
) -> None:
    orchestrator = _orchestrator(ScriptedChatModel())
    service = KnowledgeService(store=store)
    token_file = TokenFile(tmp_path / "token")
    server = ApiServer(
        LocalAssistant(orchestrator, knowledge=service),
        config=ApiConfig(port=0),
        token=token_file,
        version=__version__,
    )
    await server.start()
    try:
        async with ApiClient(server.url, token_file.read()) as client:
            kb = KnowledgeClient(client)
            outcome = await kb.add_source(str(corpus), watch=True)
            assert outcome.source.files == 4
            assert outcome.report.files_indexed == 4
            again = await kb.add_source(str(corpus))
            assert again.report.chunks_embedded == 0
            assert again.report.files_unchanged == 4
            hits = await kb.search_knowledge(KnowledgeQuery(text="monthly rent", limit=2))
            assert hits[0].heading == "Lease agreement > Rent"
            assert hits[0].path.endswith(".docx")
            status = await kb.knowledge_status()
            assert status.files == 4
            assert status.watching == (str(corpus),)
            assert [s.id for s in await kb.list_sources()] == [outcome.source.id]
            files = await kb.list_files(str(corpus))
            assert len(files) == 4
            report = await kb.reindex_knowledge(force=False)
            assert report.files_unchanged == 4
            router = (await kb.search_knowledge(KnowledgeQuery(text="router port 8443")))[0]
            cite = Citation(number=1, path=router.path, content_hash=router.content_hash)
            assert await kb.stale_citations([cite]) == []
            (corpus / "router.md").write_text("# Changed\n\nNew text.\n")
            await kb.reindex_knowledge(force=False)
            assert await kb.stale_citations([cite]) == [1]
            assert await kb.conversation_citations("no-such-conversation") == {}
            with pytest.raises(KnowledgeError, match="does not exist"):
                await kb.add_source(str(corpus / "nowhere"))
            removed = await kb.remove_source(str(corpus))
            assert removed.id == outcome.source.id
            assert await kb.list_sources() == []
    finally:
        await server.stop()
        await orchestrator.stop()
