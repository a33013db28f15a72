"""Watched folders: changes on disk reach the index while ARIA runs (watchfiles, debounced).

One ``watchfiles.awatch`` over every watched folder; created, modified, moved (a delete and an
add) and deleted files arrive in debounced batches and are handed to the store's
``apply_changes``. When the set of folders changes the watch restarts with the new set. Runs
in the owner process only (ARCHITECTURE.md: owner), as one named task.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable

from aria_desktop.domain.knowledge import IngestReport

__all__ = ["FolderWatcher"]

_LOGGER = logging.getLogger(__name__)


class FolderWatcher:
    """Watches folders and applies their changes through ``apply``.

    Args:
        apply: indexes changed paths and drops vanished ones (the store's ``apply_changes``).
        on_update: told each batch's report (the service publishes ``knowledge-changed``).
        debounce_ms: changes closer together than this arrive as one batch.
    """

    def __init__(
        self,
        apply: Callable[[Iterable[str]], Awaitable[IngestReport]],
        on_update: Callable[[IngestReport], None],
        *,
        debounce_ms: int = 400,
    ) -> None:
        """Watch nothing yet; :meth:`run` waits for folders."""
        self._apply = apply
        self._on_update = on_update
        self._debounce_ms = debounce_ms
        self._folders: tuple[str, ...] = ()
        self._changed = asyncio.Event()
        self._stop_watch: asyncio.Event | None = None
        self.ready = asyncio.Event()
        """Set once the watch over the current folders is running (tests wait on it)."""

    @property
    def folders(self) -> tuple[str, ...]:
        """The folders watched now."""
        return self._folders

    def watch(self, folders: Iterable[str]) -> None:
        """Watch exactly ``folders`` from now on (restarts the watch when they differ)."""
        wanted = tuple(sorted(set(folders)))
        if wanted == self._folders:
            return
        self._folders = wanted
        self.ready.clear()
        self._changed.set()
        if self._stop_watch is not None:
            self._stop_watch.set()

    async def run(self) -> None:
        """Watch until cancelled; a failing batch is logged and the watch goes on."""
        import watchfiles

        while True:
            self._changed.clear()
            folders = self._folders
            if not folders:
                self.ready.set()
                await self._changed.wait()
                continue
            stop = asyncio.Event()
            self._stop_watch = stop
            _LOGGER.info("Watching %d knowledge folder(s)", len(folders))
            try:
                async for changes in watchfiles.awatch(
                    *folders,
                    stop_event=stop,
                    debounce=self._debounce_ms,
                    step=50,
                    recursive=True,
                    ignore_permission_denied=True,
                    # An empty batch after each quiet second: the first one says the watch
                    # is really set up (changes from then on are seen).
                    rust_timeout=1000,
                    yield_on_timeout=True,
                ):
                    self.ready.set()
                    if changes:
                        await self._handle({path for _change, path in changes})
            except FileNotFoundError as exc:  # a watched folder vanished
                _LOGGER.warning("A watched folder is gone (%s); watching the others", exc)
                self._folders = tuple(f for f in folders if _exists(f))
            if not self._changed.is_set() and self._folders == folders:
                await self._changed.wait()

    async def _handle(self, paths: set[str]) -> None:
        try:
            report = await self._apply(paths)
        except Exception:  # one bad batch must not end the watch
            _LOGGER.exception("Applying folder changes failed")
            return
        self._on_update(report)


def _exists(path: str) -> bool:
    import os

    return os.path.isdir(path)
