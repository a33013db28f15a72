"""Child process for the crash test: writes through the storage API until it is killed.

Usage: ``python -m tests.storage.crash_writer DBPATH``. Imports everything, prints ``loaded``,
waits for a line on stdin (so the parent can overlap our start-up with its own work), opens
the database, prints ``ready``, then adds messages as fast as it can, printing
``committed <id>`` after each awaited write has returned (one unbuffered write per line).
Every tenth message also begins and finishes a tool call, so more than one table changes.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys

from aria_desktop.adapters.storage.conversations import SQLiteConversationStore
from aria_desktop.adapters.storage.database import Database
from aria_desktop.domain.chat import NewMessage, ToolCall


def _say(text: str) -> None:
    os.write(sys.stdout.fileno(), (text + "\n").encode())


async def _main(path: str) -> None:
    db = await Database.open(path)
    store = SQLiteConversationStore(db)
    existing = await store.list_conversations(limit=1)
    conversation = existing[0] if existing else await store.create_conversation("crash test")
    rng = random.Random()
    _say("ready")
    n = 0
    while True:
        n += 1
        # Sizes from a few bytes to several pages, so some commits span overflow pages.
        body = f"{os.getpid()}-{n} " + "x" * rng.choice((10, 300, 5000, 20000))
        message = await store.add_message(conversation.id, NewMessage(role="user", content=body))
        _say(f"committed {message.id}")
        if n % 10 == 0:
            call = ToolCall(id=f"{os.getpid()}-{n}", name="probe", arguments={"n": n})
            await store.begin_tool_call(conversation.id, call)
            await store.finish_tool_call(conversation.id, call.id, status="ok", result="done")


def main() -> None:
    """Entry point: wait for the go-ahead, then write until killed."""
    path = sys.argv[1]
    _say("loaded")
    if not sys.stdin.readline():
        return  # the parent went away before starting us
    asyncio.run(_main(path))


if __name__ == "__main__":
    main()
