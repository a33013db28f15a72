"""Watched folders: changes on disk reach the index while ARIA runs (watchfiles, debounced).

One ``watchfiles.awatch`` over every watched folder that is there; created, modified, moved
(a delete and an add) and deleted files arrive in debounced batches and are handed to the
store's ``apply_changes``. When the set of folders changes the watch restarts with the new
set. Runs in the owner process only (ARCHITECTURE.md: owner), as one named task.

A folder can go (deleted, or its drive unplugged) and come back (recreated, or the drive
mounted later, maybe after ARIA started). The operating system's watch on a folder ends with
it and never sees it return, so the watcher looks at each folder after every batch and at
least once a second (a ``stat`` per folder: the watch's quiet-second ticks, or a poll while no
folder is there at all). A folder that went, came back, or changed device (a drive mounted
onto, or unmounted from, the folder itself: the directory stays, its filesystem changes) is
rescanned through the store, which marks it missing or indexes it again, and the watch
restarts over the folders that are there. A folder that came back is rescanned once the new
watch runs: files still being copied into it are then either found by the rescan or seen
by the watch, never lost in between.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
from collections.abc import Awaitable, Callable, Iterable

from aria_desktop.domain.knowledge import IngestReport

__all__ = ["FolderWatcher"]

_LOGGER = logging.getLogger(__name__)


class FolderWatcher:
    """Watches folders and applies their changes through ``apply``.

    Args:
        apply: indexes changed paths and drops vanished ones (the store's ``apply_changes``).
        rescan: brings one folder source up to date (the store's ``rescan``): called when a
            watched folder goes missing or comes back.
        on_update: told each batch's report (the service publishes ``knowledge-changed``).
        debounce_ms: changes closer together than this arrive as one batch.
        poll_s: how often a missing folder is looked for.
    """

    def __init__(
        self,
        apply: Callable[[Iterable[str]], Awaitable[IngestReport]],
        rescan: Callable[[str], Awaitable[IngestReport]],
        on_update: Callable[[IngestReport], None],
        *,
        debounce_ms: int = 400,
        poll_s: float = 1.0,
    ) -> None:
        """Watch nothing yet; :meth:`run` waits for folders."""
        self._apply = apply
        self._rescan = rescan
        self._on_update = on_update
        self._debounce_ms = debounce_ms
        self._poll_s = poll_s
        self._folders: tuple[str, ...] = ()
        self._seen: dict[str, int | None] = {}
        """Each folder's device at the last look (None: missing); a change is measured from
        it."""
        self._back: set[str] = set()
        """Folders that came back, rescanned once the watch over them runs."""
        self._changed = asyncio.Event()
        self._stop_watch: asyncio.Event | None = None
        self.ready = asyncio.Event()
        """Set once the watch over the current folders is running (tests wait on it)."""

    @property
    def folders(self) -> tuple[str, ...]:
        """The folders watched now (missing ones included: they are looked for)."""
        return self._folders

    def watch(self, folders: Iterable[str], missing: Iterable[str] = ()) -> None:
        """Watch exactly ``folders`` from now on (restarts the watch when they differ).

        ``missing``: those the store last found missing; one that is there at the watcher's
        first look is rescanned (it came back in between).
        """
        wanted = tuple(sorted(set(folders)))
        gone = set(missing)
        self._seen = {f: self._seen[f] for f in wanted if f in self._seen and f not in gone}
        self._seen.update(dict.fromkeys(gone & set(wanted)))
        if wanted == self._folders:
            return
        self._folders = wanted
        self.ready.clear()
        self._changed.set()
        if self._stop_watch is not None:
            self._stop_watch.set()

    async def run(self) -> None:
        """Watch until cancelled; a failing batch is logged and the watch goes on."""
        while True:
            self._changed.clear()
            folders = self._folders
            devices = await self._look(folders)
            present = tuple(devices)
            if self._changed.is_set():
                continue  # the folders changed during the rescans
            if not present:
                self.ready.set()
                with contextlib.suppress(TimeoutError):
                    # Nothing to watch: wait for new folders, looking for missing ones.
                    timeout = self._poll_s if folders else None
                    await asyncio.wait_for(self._changed.wait(), timeout)
                continue
            await self._watch(folders, devices)

    async def _watch(self, folders: tuple[str, ...], devices: dict[str, int]) -> None:
        """Watch the folders that are there until the set or a folder's presence changes."""
        import watchfiles

        stop = asyncio.Event()
        self._stop_watch = stop
        _LOGGER.info("Watching %d knowledge folder(s)", len(devices))
        try:
            async for changes in watchfiles.awatch(
                *devices,
                stop_event=stop,
                debounce=self._debounce_ms,
                step=50,
                recursive=True,
                ignore_permission_denied=True,
                # An empty batch after each quiet second: the first one says the watch is
                # really set up (changes from then on are seen); each is a look for folders
                # that went or came back.
                rust_timeout=1000,
                yield_on_timeout=True,
            ):
                self.ready.set()
                for folder in sorted(self._back & set(devices)):
                    self._back.discard(folder)
                    await self._run(self._rescan(folder))
                if changes:
                    await self._handle({path for _change, path in changes})
                if await asyncio.to_thread(_devices, folders) != devices:
                    return  # a folder went, came back or changed drive: look, rescan, watch
        except FileNotFoundError as exc:  # went between the look and the watch's start
            _LOGGER.info("A watched folder went as the watch started (%s)", exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), self._poll_s)

    async def _look(self, folders: tuple[str, ...]) -> dict[str, int]:
        """The folders that are there, with their devices.

        Each that went since the last look is rescanned now; each that came back or changed
        device, as soon as the watch over it runs (``_back``).
        """
        devices = await asyncio.to_thread(_devices, folders)
        for folder in folders:
            now = devices.get(folder)
            if folder in self._seen and self._seen[folder] != now:
                _LOGGER.info("Watched folder %s %s", folder, "is back" if now else "is missing")
                if now is None:
                    self._back.discard(folder)
                    await self._run(self._rescan(folder))
                else:
                    self._back.add(folder)
            self._seen[folder] = now
        return devices

    async def _handle(self, paths: set[str]) -> None:
        await self._run(self._apply(paths))

    async def _run(self, work: Awaitable[IngestReport]) -> None:
        try:
            report = await work
        except Exception:  # one bad batch must not end the watch
            _LOGGER.exception("Applying folder changes failed")
            return
        self._on_update(report)


def _devices(folders: Iterable[str]) -> dict[str, int]:
    """The folders that exist now (in order), with the device each is on."""
    found: dict[str, int] = {}
    for folder in folders:
        with contextlib.suppress(OSError):
            st = os.stat(folder)
            if stat.S_ISDIR(st.st_mode):
                found[folder] = st.st_dev
    return found
