""" "Remember that …" stores the statement as said and "what do you remember about …" reads it
back, with no model; a turn a skill answered is never mined for memories again."""

from __future__ import annotations

from pathlib import Path

from aria_desktop.compose.app import build_app
from aria_desktop.core.orchestrator import TurnOutcome
from aria_desktop.domain.memory import MemoryQuery
from tests.fakes import FakeOllama
from tests.skills.conftest import ask, no_model_settings


async def test_remember_and_recall_work_without_a_model_and_are_not_mined_again(
    tmp_path: Path,
) -> None:
    with FakeOllama() as ollama:
        settings = no_model_settings(
            tmp_path, ARIA_LLM__OLLAMA__URL=ollama.url, ARIA_MEMORY__AUTO_EXTRACT="true"
        )
        app = await build_app(settings)  # type: ignore[arg-type]
        try:
            stored = await ask(app, "remember that my sister's birthday is on May 3")
            assert stored.text == "Okay, I'll remember that my sister's birthday is on May 3."
            assert app.memory is not None
            hits = await app.memory.search_memories(MemoryQuery(text="sister birthday"))
            assert [hit.memory.content for hit in hits] == ["My sister's birthday is on May 3."]
            recalled = await ask(app, "What do you remember about my sister?")
            assert recalled.model == "memory"
            assert "My sister's birthday is on May 3." in recalled.text
            outcome = TurnOutcome(
                run_id="r",
                conversation_id="c",
                source="text",
                user_text="remember that my sister's birthday is on May 3",
                answer=stored.text,
                status="complete",
                backend=stored.backend,
                model=stored.model,
            )
            assert not app.memory.should_mine(outcome)
            assert ollama.requests_to("/api/chat") == []
        finally:
            await app.aclose()
