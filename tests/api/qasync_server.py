"""Run the API on qasync's Qt event loop (child process of test_qasync.py): a full
orchestrator, a chat turn streamed over SSE, then a clean stop. Prints OK lines."""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

import httpx
import qasync
from PySide6.QtCore import QCoreApplication

from aria_desktop import __version__
from aria_desktop.adapters.llm import OllamaBackend, Router, Timeouts
from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.api.config import ApiConfig
from aria_desktop.api.runner import ApiServer
from aria_desktop.api.token import TokenFile
from aria_desktop.core.assistant import LocalAssistant
from aria_desktop.core.audit import AuditLog
from aria_desktop.core.orchestrator import Orchestrator
from tests.fakes.audit import MemoryAuditStore


async def main(ollama_url: str, root: Path) -> None:
    db = await Database.open(root / "aria.db")
    timeouts = Timeouts(connect_s=2.0, first_token_s=5.0, stall_s=5.0, total_s=20.0)
    backend = OllamaBackend(base_url=ollama_url, model="m", timeouts=timeouts)
    router = Router({"ollama": backend}, {"chat": ("ollama",)})
    orchestrator = Orchestrator(
        model=router,
        store=SQLiteConversationStore(db),
        audit=AuditLog(MemoryAuditStore()),
    )
    token = TokenFile(root / "api" / "token")
    server = ApiServer(
        LocalAssistant(orchestrator), config=ApiConfig(port=0), token=token, version=__version__
    )
    await server.start()
    headers = {"Authorization": f"Bearer {token.read()}"}
    async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=10) as client:
        assert (await client.get("/api/v1/health")).status_code == 200
        done = None
        async with client.stream("POST", "/api/v1/chat", json={"message": "hi"}) as response:
            name = ""
            async for line in response.aiter_lines():
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: ") and name == "done":
                    done = json.loads(line[6:])
                    break
        assert done is not None
        assert done["status"] == "complete", done
        print("OK chat", done["text"], flush=True)
        async with client.stream("GET", "/api/v1/events") as events:
            lines = events.aiter_lines()
            assert await anext(lines) == ": ready"
            stopping = asyncio.create_task(server.stop())
            rest = [line async for line in lines]
            await stopping
        assert "event: close" in rest, rest
    print("OK stopped", flush=True)
    await orchestrator.stop()
    await router.aclose()
    await db.close()


if __name__ == "__main__":
    app = QCoreApplication(sys.argv[:1])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory() as tmp, loop:
        loop.run_until_complete(asyncio.wait_for(main(sys.argv[1], Path(tmp)), 30))
    print("OK exit", flush=True)
