"""Citations in the chat window and the Knowledge window, against a real knowledge base."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl

from aria_desktop.adapters.knowledge.store import SQLiteKnowledgeStore
from aria_desktop.core.assistant import LocalAssistant
from aria_desktop.core.knowledge.service import KnowledgeService
from aria_desktop.domain.knowledge import Citation
from aria_desktop.gui.citations import link_citations
from tests.fakes import FakeOllama
from tests.fakes.ollama_server import ollama_text
from tests.gui.conftest import wait_for
from tests.knowledge.corpus import write_corpus


def _with_knowledge(stack: Any, run: Any) -> tuple[LocalAssistant, KnowledgeService]:
    async def build() -> KnowledgeService:
        store = SQLiteKnowledgeStore(stack.db, None)  # keyword search: no model to load
        await store.open()
        service = KnowledgeService(store=store)
        service.install(stack.orchestrator)
        return service

    service = run(build())
    return LocalAssistant(stack.orchestrator, knowledge=service), service


def test_link_citations_links_only_known_numbers_outside_code() -> None:
    cited = [Citation(number=1, path="/d/a.pdf", page=2, target="file:///d/a.pdf#page=2")]
    text, used = link_citations("See [1] and [2]; `x[1]` stays.", cited)
    assert text == "See [\\[1\\]](file:///d/a.pdf#page=2) and [2]; `x[1]` stays."
    assert used == cited


def test_a_cited_answer_links_its_sources_and_marks_a_changed_one(
    desktop_factory: Any, stack: Any, ollama: FakeOllama, run: Any, tmp_path: Path
) -> None:
    corpus = write_corpus(tmp_path / "docs")
    assistant, service = _with_knowledge(stack, run)
    run(service.add_source(str(corpus)))
    ollama.script("/api/chat", ollama_text("The warranty lasts 24 months [1]."))
    desktop = desktop_factory(assistant)
    finished: list[str] = []
    desktop.chat.turn_finished.connect(lambda _run_id, status: finished.append(status))
    desktop.chat_view.composer.setPlainText("How long is the warranty?")
    desktop.chat_view.send_button.click()
    run(wait_for(lambda: bool(finished), 20))
    transcript = desktop.chat_view.transcript
    assert "Sources: [1] manual.pdf, p. 3" in transcript.plain_text()
    target = (corpus / "manual.pdf").as_uri() + "#page=3"
    assert f'href="{target}"' in transcript.document().toHtml()
    assert desktop.chat.citations.handles(QUrl(target))
    assert "line-through" not in transcript.document().toHtml()

    (corpus / "manual.pdf").write_bytes((corpus / "manual.pdf").read_bytes() + b"%changed\n")
    run(service.reindex_knowledge(force=False))  # publishes knowledge-changed
    run(wait_for(lambda: "line-through" in transcript.document().toHtml(), 20))

    # Reopened later, the stored answer links its sources again and marks the changed one.
    conversation_id = desktop.chat.conversation_id
    assert conversation_id is not None
    desktop.chat.new_conversation()
    assert "Sources:" not in transcript.plain_text()
    desktop.chat.open_conversation(conversation_id)
    run(wait_for(lambda: "Sources: [1] manual.pdf, p. 3" in transcript.plain_text(), 20))
    assert f'href="{target}"' in transcript.document().toHtml()
    run(wait_for(lambda: "line-through" in transcript.document().toHtml(), 20))


def test_the_knowledge_window_adds_a_folder_and_lists_it(
    desktop_factory: Any, stack: Any, run: Any, tmp_path: Path
) -> None:
    corpus = write_corpus(tmp_path / "docs")
    (corpus / "broken.docx").write_bytes(b"not a docx")
    assistant, _service = _with_knowledge(stack, run)
    desktop = desktop_factory(assistant)
    desktop.actions.knowledge.trigger()
    view = desktop.knowledge.view
    assert view is not None
    assert view.isVisible()
    view.location.setText(str(corpus))
    view.watch.setChecked(True)
    view.add_button.click()
    run(wait_for(lambda: "indexed," in view.report.text(), 20))
    assert "4 files indexed" in view.report.text()
    assert "broken.docx is not a readable DOCX file" in view.report.text()
    run(wait_for(lambda: view.sources.rowCount() == 1, 20))
    row = [view.sources.item(0, c).text() for c in range(view.sources.columnCount())]
    assert row[:7] == [str(corpus), "folder", "yes", "5", "12", "1", ""]
    assert "broken.docx" in row[7]
    view.query.setText("monthly rent")
    view.query.returnPressed.emit()
    run(wait_for(lambda: "lease.docx" in view.results.toPlainText(), 20))
    view.location.setText(str(tmp_path / "missing"))
    view.add_button.click()
    run(wait_for(lambda: "does not exist" in view.report.text(), 20))
    run(wait_for(lambda: "watching 1 folder" in view.status.text(), 20))
