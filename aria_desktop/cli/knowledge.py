"""``aria knowledge``: add files, folders and URLs, search them, and see what is indexed.

Through the owner's API when a daemon or the tray app runs (it owns the database and watches
the folders); otherwise the command opens the database itself. Either way a long ingest shows
a progress bar on standard error, read from the knowledge base's status while it runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from aria_desktop.cli._args import add_actions
from aria_desktop.cli._common import (
    Subparsers,
    fmt_time,
    owner_or_local,
    show_result,
)
from aria_desktop.domain.knowledge import IngestReport, KnowledgeQuery, KnowledgeSource
from aria_desktop.domain.wording import counted
from aria_desktop.settings import Settings

if TYPE_CHECKING:
    from aria_desktop.core.ports import KnowledgeAccess

__all__ = ["register"]

_T = TypeVar("_T")
_POLL_S = 0.2
_BAR = 30


def register(sub: Subparsers) -> None:
    """Add the ``knowledge`` subcommand."""
    acts = add_actions(
        sub, "knowledge", "your documents: add, search, list, remove, ...", _cmd_knowledge
    )
    add = acts.add_parser("add", help="add and index a file, folder or URL")
    add.add_argument("location", metavar="PATH|URL")
    add.add_argument("--watch", action="store_true", help="follow the folder's changes")
    add.add_argument("--json", action="store_true")
    acts.add_parser("list", help="sources with counts and their last problem").add_argument(
        "--json", action="store_true"
    )
    files = acts.add_parser("files", help="one source's files and per-file problems")
    files.add_argument("source", help="number or location")
    files.add_argument("--json", action="store_true")
    search = acts.add_parser("search", help="passages that answer a question")
    search.add_argument("query")
    search.add_argument("--limit", type=int, default=5)
    search.add_argument("--json", action="store_true")
    remove = acts.add_parser("remove", help="remove a source and its index entries")
    remove.add_argument("source", help="number or location")
    reindex = acts.add_parser("reindex", help="re-read and re-embed every source")
    reindex.add_argument("--changed-only", action="store_true", help="only what changed (a rescan)")
    reindex.add_argument("--json", action="store_true")
    acts.add_parser("status", help="counts, watched folders, indexing").add_argument(
        "--json", action="store_true"
    )


def _open_knowledge(settings: Settings) -> contextlib.AbstractAsyncContextManager[KnowledgeAccess]:
    """The owner's knowledge base over its API, or one opened here (closed on exit)."""
    return owner_or_local(
        settings, lambda client: client.knowledge, lambda: _knowledge_here(settings)
    )


@contextlib.asynccontextmanager
async def _knowledge_here(settings: Settings) -> AsyncIterator[KnowledgeAccess]:
    """The knowledge base opened here, for when no ARIA runs (closed on exit)."""
    from aria_desktop.adapters.storage.database import Database
    from aria_desktop.compose.app import database_path
    from aria_desktop.compose.knowledge import build_knowledge
    from aria_desktop.compose.memory import build_embedder
    from aria_desktop.domain.errors import KnowledgeUnavailableError

    database = await Database.open(database_path(settings))
    embedder = build_embedder(settings)
    try:
        service = await build_knowledge(settings, database, embedder, watch=False)
        if service is None:
            raise KnowledgeUnavailableError(
                "The knowledge base is switched off.",
                hint="aria config set knowledge.enabled true",
            )
        yield service
    finally:
        if embedder is not None:
            await embedder.aclose()
        await database.close()


async def _with_progress(knowledge: KnowledgeAccess, work: Awaitable[_T]) -> _T:
    """Await ``work`` while drawing the ingest's progress on a terminal's standard error."""
    task = asyncio.ensure_future(work)
    shown = False
    try:
        while not task.done():
            await asyncio.wait({task}, timeout=_POLL_S)
            if task.done() or not sys.stderr.isatty():
                continue
            status = await knowledge.knowledge_status()
            if status.progress_total > 1 and status.indexing:
                done, total = status.progress_done, status.progress_total
                filled = _BAR * done // total
                name = status.indexing.rsplit("/", 1)[-1][:40]
                sys.stderr.write(
                    f"\r[{'#' * filled}{'.' * (_BAR - filled)}] {done}/{total} files  {name:<40}"
                )
                sys.stderr.flush()
                shown = True
    finally:
        if shown:
            sys.stderr.write("\r" + " " * (_BAR + 60) + "\r")
    return task.result()


def _report_lines(report: IngestReport) -> list[str]:
    """The report for people; each problem gets its own ``!`` line."""
    lines = [
        f"{counted(report.files_indexed, 'file')} indexed, {report.files_unchanged} unchanged, "
        f"{report.files_removed} removed; {counted(report.chunks_added, 'passage')} written, "
        f"{report.chunks_embedded} embedded ({report.elapsed_s:.1f} s)"
    ]
    for problem in report.problems:
        part = " (the rest of it is indexed)" if problem.partial else ""
        lines.append(f"  ! {problem.code}: {problem.message}{part}")
    return lines


def _source_line(s: KnowledgeSource) -> str:
    watch = "watched" if s.watch else ""
    when = fmt_time(s.indexed_at) if s.indexed_at else "never"
    line = (
        f"{s.id:>3}  {s.kind:<6} {watch:<7} {s.files:>5} files {s.chunks:>6} passages  "
        f"{when}  {s.location}"
    )
    if s.state:
        line += f"\n       {s.state}"
    if s.problems:
        line += f"\n       {s.problems} problem(s), last: {s.last_error}"
    return line


def _asdict(value: Any) -> Any:
    return dataclasses.asdict(value)


async def _cmd_knowledge(args: argparse.Namespace, settings: Settings) -> int:
    async with _open_knowledge(settings) as knowledge:
        return await _action(args, knowledge)


_Shown = tuple[Any, list[str]]
"""What an action shows: its JSON form, and its lines for people ([] says "nothing")."""


async def _add(args: argparse.Namespace, knowledge: KnowledgeAccess) -> _Shown:
    work = knowledge.add_source(args.location, watch=args.watch)
    outcome = await _with_progress(knowledge, work)
    return _asdict(outcome), [_source_line(outcome.source), *_report_lines(outcome.report)]


async def _list(_args: argparse.Namespace, knowledge: KnowledgeAccess) -> _Shown:
    sources = await knowledge.list_sources()
    return [_asdict(s) for s in sources], [_source_line(s) for s in sources]


async def _files(args: argparse.Namespace, knowledge: KnowledgeAccess) -> _Shown:
    files = await knowledge.list_files(args.source)
    lines = [
        f"{f.chunks:>5}  {f.path}"
        + (f"  ({f.ocr_pages} page(s) read by OCR)" if f.ocr_pages else "")
        + (f"  ! {f.problem_code}: {f.problem}" if f.problem else "")
        for f in files
    ]
    return [_asdict(f) for f in files], lines


async def _search(args: argparse.Namespace, knowledge: KnowledgeAccess) -> _Shown:
    hits = await knowledge.search_knowledge(KnowledgeQuery(text=args.query, limit=args.limit))
    lines = [
        f"[{n}] {h.label}  ({h.score:.4f})\n    {h.target}\n    {' '.join(h.text.split())[:300]}"
        for n, h in enumerate(hits, start=1)
    ]
    return [{**_asdict(h), "label": h.label, "target": h.target} for h in hits], lines


async def _remove(args: argparse.Namespace, knowledge: KnowledgeAccess) -> _Shown:
    removed = await knowledge.remove_source(args.source)
    return _asdict(removed), [f"Removed {removed.location} ({removed.files} files)."]


async def _reindex(args: argparse.Namespace, knowledge: KnowledgeAccess) -> _Shown:
    work = knowledge.reindex_knowledge(force=not args.changed_only)
    report = await _with_progress(knowledge, work)
    return _asdict(report), _report_lines(report)


async def _status(_args: argparse.Namespace, knowledge: KnowledgeAccess) -> _Shown:
    status = await knowledge.knowledge_status()
    lines = [
        f"{counted(status.sources, 'source')}, {counted(status.files, 'file')}, "
        f"{counted(status.chunks, 'passage')}, {counted(status.problems, 'file')} with problems",
        f"search: {status.vector_status}",
        *(
            f"watching {folder}" + (" (folder missing)" if folder in status.missing else "")
            for folder in status.watching
        ),
    ]
    if status.indexing:
        lines.append(f"indexing {status.indexing} ({status.progress_done}/{status.progress_total})")
    return _asdict(status), lines


_ACTIONS: dict[str, Callable[[argparse.Namespace, KnowledgeAccess], Awaitable[_Shown]]] = {
    "add": _add,
    "list": _list,
    "files": _files,
    "search": _search,
    "remove": _remove,
    "reindex": _reindex,
    "status": _status,
}
_NOTHING = {
    "list": "No sources yet. Add one with: aria knowledge add ~/Documents --watch",
    "files": "No files indexed from this source.",
    "search": "Nothing found.",
}


async def _action(args: argparse.Namespace, knowledge: KnowledgeAccess) -> int:
    """One ``aria knowledge`` action: JSON with ``--json``, else lines (problems on stderr)."""
    data, lines = await _ACTIONS[args.action](args, knowledge)
    as_json = getattr(args, "json", False)
    return show_result(data, lines, as_json=as_json, nothing=_NOTHING.get(args.action, ""))
