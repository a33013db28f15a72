"""``aria memory``: see, search, correct, forget, export and import long-term memories."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aria_desktop.cli._args import add_actions, add_paging, add_show
from aria_desktop.cli._common import EXIT_FAILURE, EXIT_OK, Subparsers, err, fmt_time, print_json
from aria_desktop.domain import memory as mem
from aria_desktop.domain.episodes import MemorySource
from aria_desktop.domain.errors import (
    AriaError,
    MemoryInvalidError,
    MemoryUnavailableError,
    NotFoundError,
)
from aria_desktop.domain.wording import counted
from aria_desktop.settings import Settings, resolve_database_path

if TYPE_CHECKING:
    from aria_desktop.adapters.memory.store import SQLiteMemoryStore
    from aria_desktop.compose.memory import MemoryStorage
    from aria_desktop.core.memory.episodes import EpisodeKeeper
    from aria_desktop.core.memory.service import MemoryService
    from aria_desktop.core.ports import Assistant

__all__ = ["register"]


def register(sub: Subparsers) -> None:
    """Add the ``memory`` subcommand."""
    acts = add_actions(
        sub, "memory", "long-term memory: add, search, list, forget, ...", _cmd_memory
    )
    add = acts.add_parser("add", help="remember something")
    add.add_argument("text")
    add.add_argument("--kind", choices=mem.MEMORY_KINDS, default="fact")
    add.add_argument("--subject", default="user", help="who or what it is about")
    add.add_argument("--importance", type=float, default=0.5, help="0-1")
    add.add_argument("--json", action="store_true")
    search = acts.add_parser("search", help="hybrid keyword + meaning search")
    search.add_argument("query")
    search.add_argument("--limit", type=int, default=10)
    search.add_argument("--kind", action="append", choices=mem.MEMORY_KINDS, default=[])
    search.add_argument("--subject")
    search.add_argument("--all", action="store_true", help="include superseded and forgotten")
    search.add_argument("--json", action="store_true")
    lst = acts.add_parser("list", help="newest first")
    lst.add_argument("--kind", action="append", choices=mem.MEMORY_KINDS, default=[])
    lst.add_argument("--subject")
    lst.add_argument("--status", action="append", choices=mem.MEMORY_STATUSES, default=[])
    lst.add_argument(
        "--tier", action="append", choices=mem.MEMORY_TIERS, default=[], help="only these tiers"
    )
    add_paging(lst, limit=100)
    add_show(acts, "one memory with all its details")
    related = acts.add_parser("related", help="the memories used together with one")
    related.add_argument("id")
    related.add_argument("--json", action="store_true")
    edit = acts.add_parser("edit", help="correct a memory's text (same id)")
    edit.add_argument("id")
    edit.add_argument("text")
    edit.add_argument("--kind", choices=mem.MEMORY_KINDS)
    edit.add_argument("--subject")
    edit.add_argument("--importance", type=float)
    tier = acts.add_parser(
        "tier", help="pin a memory in a tier (stable: loaded at the start of every conversation)"
    )
    tier.add_argument("id")
    tier.add_argument(
        "tier", choices=(*mem.MEMORY_TIERS, "unpin"), help="unpin: let its use move it again"
    )
    episodes = acts.add_parser(
        "episodes", help="what happened in each conversation (latest first, or about QUERY)"
    )
    episodes.add_argument("query", nargs="?", default="", help='e.g. "the car" or "yesterday"')
    episodes.add_argument("--limit", type=int, default=20)
    episodes.add_argument("--json", action="store_true")
    stats = acts.add_parser(
        "stats", help="how well memory served the latest conversations (loaded, used, waste)"
    )
    stats.add_argument("--last", type=int, default=10, help="how many conversations (1-200)")
    stats.add_argument("--json", action="store_true")
    forget = acts.add_parser("forget", help="forget a memory")
    forget.add_argument("id")
    export = acts.add_parser("export", help="write every memory to a JSON-lines file")
    export.add_argument("file", help="path, or - for standard output")
    imp = acts.add_parser("import", help="read memories from a JSON-lines file (idempotent)")
    imp.add_argument("file", help="path, or - for standard input")
    acts.add_parser("reindex", help="rebuild the keyword index and all vectors from the rows")
    inbox = acts.add_parser("inbox", help="extracted facts waiting for approval")
    inbox.add_argument("--json", action="store_true")
    approve = acts.add_parser("approve", help="store an inbox entry as a memory")
    approve.add_argument("id", nargs="+")
    reject = acts.add_parser("reject", help="drop an inbox entry")
    reject.add_argument("id", nargs="+")


def _memory_dict(memory: mem.Memory) -> dict[str, Any]:
    data = dataclasses.asdict(memory)
    data["message_ids"] = list(memory.message_ids)
    return data


def _line(memory: mem.Memory) -> str:
    about = f" [{memory.subject}]" if memory.subject != "user" else ""
    state = "" if memory.status == "active" else f" ({memory.status})"
    if memory.tier != "active":
        state += f" [{memory.tier}{', pinned' if memory.tier_pinned else ''}]"
    when = fmt_time(memory.created_at)
    return f"{memory.id}  {when}  {memory.kind:<10}{about} {memory.content}{state}"


_NEEDS_THE_DATABASE = frozenset({"export", "import", "reindex"})


async def _cmd_memory(args: argparse.Namespace, settings: Settings) -> int:
    from aria_desktop.adapters.storage.owner_lock import read_owner
    from aria_desktop.compose.assistant import owner_client

    lines: list[dict[str, Any]] = []
    if args.action == "import":
        lines = _read_lines(args.file)  # before taking the database: fail fast on a bad file
    owner = read_owner(resolve_database_path(settings))
    if owner is not None:  # a daemon or the tray app owns the data: go through its API
        if args.action in _NEEDS_THE_DATABASE:
            raise AriaError(
                f"`aria memory {args.action}` needs the database, which the running ARIA "
                f"(pid {owner.pid}) owns.",
                hint="Stop it first (`systemctl --user stop aria`, or quit the tray app).",
            )
        async with await owner_client(settings, owner.port, owner.pid) as client:
            return await _memory_action(args, client, None, lines)
    from aria_desktop.compose.memory import open_memory  # only without an owner: builds the core

    storage = await open_memory(settings)
    try:
        if storage.pending_vectors and args.action != "reindex":
            err(
                f"Building vectors for {storage.pending_vectors} memories "
                "(new or changed embedding model)…"
            )
            await storage.store.sync_vectors()
        return await _memory_action(args, storage.memory, storage, lines)
    finally:
        await storage.aclose()


@dataclasses.dataclass(frozen=True)
class _Action:
    """One ``aria memory`` action's inputs (``storage`` is None through the API)."""

    args: argparse.Namespace
    memory: Assistant | MemoryService
    storage: MemoryStorage | None
    lines: list[dict[str, Any]]

    @property
    def store(self) -> SQLiteMemoryStore:
        """The store itself, for the actions that need the database (refused with an owner)."""
        if self.storage is None:  # the caller refuses these when an owner runs
            raise AriaError(f"`aria memory {self.args.action}` needs the database.")
        return self.storage.store


async def _memory_action(
    args: argparse.Namespace,
    memory: Assistant | MemoryService,
    storage: MemoryStorage | None,
    lines: list[dict[str, Any]],
) -> int:
    """One ``aria memory`` action on ``memory`` (``storage`` is None through the API)."""
    return await _ACTIONS[args.action](_Action(args, memory, storage, lines))


async def _add(run: _Action) -> int:
    args = run.args
    added = await run.memory.add_memory(
        mem.NewMemory(
            content=args.text, kind=args.kind, subject=args.subject, importance=args.importance
        )
    )
    if args.json:
        print_json(_memory_dict(added))
    else:
        print(added.id)
    return EXIT_OK


async def _search(run: _Action) -> int:
    args = run.args
    statuses = mem.MEMORY_STATUSES if args.all else ("active",)
    hits = await run.memory.search_memories(
        mem.MemoryQuery(
            text=args.query,
            limit=args.limit,
            kinds=tuple(args.kind),
            subject=args.subject,
            statuses=tuple(statuses),
            min_similarity=0.2,
        )
    )
    if args.json:
        print_json(
            [
                {
                    "memory": _memory_dict(h.memory),
                    "score": h.score,
                    "lexical_rank": h.lexical_rank,
                    "vector_rank": h.vector_rank,
                }
                for h in hits
            ]
        )
        return EXIT_OK
    if not hits:
        err("Nothing found.")
    if run.storage is not None and not run.storage.store.vector_search_available:
        err(f"(keyword search only: {run.storage.store.vector_status})")
    for hit in hits:
        print(f"{hit.score:.4f}  {_line(hit.memory)}")
    return EXIT_OK


async def _list(run: _Action) -> int:
    args = run.args
    memories = await run.memory.list_memories(
        mem.MemoryFilter(
            kinds=tuple(args.kind),
            subject=args.subject,
            statuses=tuple(args.status) or ("active",),
            tiers=tuple(args.tier),
            limit=args.limit,
            offset=args.offset,
        )
    )
    if args.json:
        print_json([_memory_dict(m) for m in memories])
        return EXIT_OK
    if not memories:
        err('No memories yet. Add one with: aria memory add "I prefer dark themes"')
    for m in memories:
        print(_line(m))
    return EXIT_OK


async def _show(run: _Action) -> int:
    found = await run.memory.get_memory(run.args.id)
    if found is None:
        raise NotFoundError(
            f"There is no memory {run.args.id!r}.", hint="List them with `aria memory list`."
        )
    changes = await run.memory.memory_tier_changes(found.id)
    sources = await _sources(run, found.id)
    if run.args.json:
        print_json(
            {
                **_memory_dict(found),
                "tier_changes": [dataclasses.asdict(c) for c in changes],
                "sources": [dataclasses.asdict(s) for s in sources],
            }
        )
    else:
        _print_details(found)
        for source in sources:
            said = "learnt in" if source.relation == "extracted" else "said again in"
            episode = f" (episode {source.episode_id})" if source.episode_id else ""
            print(f"  {fmt_time(source.at)}  {said} conversation {source.conversation_id}{episode}")
        if changes:
            print("tier moves:")
        for change in changes:
            print(
                f"  {fmt_time(change.at)}  {change.from_tier or '-'} -> {change.to_tier}: "
                f"{change.reason}"
            )
    return EXIT_OK


async def _related(run: _Action) -> int:
    found = await run.memory.memory_associations(run.args.id)
    if run.args.json:
        print_json(
            [
                {
                    "memory": _memory_dict(a.memory),
                    "count": a.count,
                    "strength": round(a.strength, 4),
                    "first_seen": a.first_seen,
                    "last_seen": a.last_seen,
                    "conversations": list(a.conversations),
                }
                for a in found
            ]
        )
        return EXIT_OK
    if not found:
        err(
            f"{run.args.id} has not been used together with another memory yet: memories get "
            "linked when one reply uses both, or when one conversation teaches both."
        )
    for association in found:
        times = "once" if association.count == 1 else f"{association.count} times"
        print(
            f"{association.memory.id}  together {times}, last {fmt_time(association.last_seen)}"
            f"  {association.memory.content}"
        )
    return EXIT_OK


async def _edit(run: _Action) -> int:
    args = run.args
    edit = mem.MemoryEdit(
        content=args.text, kind=args.kind, subject=args.subject, importance=args.importance
    )
    updated = await run.memory.update_memory(args.id, edit)
    err(f"Updated {updated.id}: {updated.content}")
    return EXIT_OK


async def _tier(run: _Action) -> int:
    wanted = run.args.tier
    edit = mem.MemoryEdit(tier_pinned=False) if wanted == "unpin" else mem.MemoryEdit(tier=wanted)
    updated = await run.memory.update_memory(run.args.id, edit)
    if updated.tier_pinned:
        err(f"{updated.id} is pinned in the {updated.tier} tier.")
    else:
        err(f"{updated.id} ({updated.tier}) moves with its use again.")
    return EXIT_OK


def _episode_access(run: _Action) -> Assistant | EpisodeKeeper:
    """Episodes through the owner's API, or this process's keeper."""
    from aria_desktop.core.memory.service import MemoryService

    if not isinstance(run.memory, MemoryService):
        return run.memory
    if run.memory.episodes is None:
        raise MemoryUnavailableError("Episodes are not kept here.", hint="Run `aria doctor`.")
    return run.memory.episodes


async def _sources(run: _Action, memory_id: str) -> list[MemorySource]:
    """Where a memory came from; none where episodes are not kept (memory still works)."""
    try:
        return await _episode_access(run).memory_sources(memory_id)
    except MemoryUnavailableError:
        return []


async def _episodes(run: _Action) -> int:
    access = _episode_access(run)
    found = await access.list_episodes(run.args.query, max(1, min(run.args.limit, 200)))
    if run.args.json:
        print_json([dataclasses.asdict(e) for e in found])
        return EXIT_OK
    if not found:
        what = f"about {run.args.query!r}" if run.args.query.strip() else "yet"
        err(
            f"No episodes {what}. A conversation gets one when it has been quiet for half an "
            "hour, or when you start a new one."
        )
    for episode in found:
        draft = "" if episode.summarised else " (not summarised yet)"
        learnt = f", {len(episode.memory_ids)} memories" if episode.memory_ids else ""
        print(
            f"{episode.id}  {fmt_time(episode.ended_at)}  {episode.conversation_id}"
            f"{learnt}{draft}\n    {episode.summary}"
        )
    return EXIT_OK


_TRENDS = {
    "better": "less waste than the {n} before",
    "worse": "more waste than the {n} before",
    "steady": "about as much waste as the {n} before",
    "new": "nothing earlier to compare with",
}


async def _stats(run: _Action) -> int:
    last = run.args.last
    if not 1 <= last <= 200:
        raise AriaError(f"--last must be 1 to 200, not {last}.", hint="For example: --last 20")
    stats = await run.memory.memory_stats(last)
    if run.args.json:
        print_json(
            {
                **dataclasses.asdict(stats),
                "conversations": [
                    {**dataclasses.asdict(c), "waste_ratio": round(c.waste_ratio, 4)}
                    for c in stats.conversations
                ],
            }
        )
        return EXIT_OK
    if not stats.conversations:
        err(
            "No reflections yet: each turn that recalls memories records how many it loaded and "
            "how many the reply used."
        )
        return EXIT_OK
    for c in stats.conversations:
        turns = "1 turn" if c.turns == 1 else f"{c.turns} turns"
        print(
            f"{c.conversation_id}  {fmt_time(c.last_at)}  {turns:>9}  loaded {c.loaded:>3}  "
            f"used {c.used:>3}  waste {c.waste_ratio:4.0%}  load {c.load_ms_median:.0f} ms"
        )
    n = len(stats.conversations)
    trend = _TRENDS[stats.trend].format(n=n)
    print(f"waste over these {n}: {stats.waste_ratio:.0%} ({trend})")
    return EXIT_OK


async def _forget(run: _Action) -> int:
    await run.memory.forget_memory(run.args.id)
    err(f"Forgot {run.args.id}.")
    return EXIT_OK


async def _export(run: _Action) -> int:
    rows = await run.store.export_rows()
    _write_lines(run.args.file, rows)
    memories = sum(1 for row in rows if "id" in row)  # the other lines are associations
    links = len(rows) - memories
    also = f" and {counted(links, 'association')}" if links else ""
    err(f"Exported {counted(memories, 'memory', 'memories')}{also}.")
    return EXIT_OK


async def _import(run: _Action) -> int:
    report = await run.store.import_rows(run.lines)
    err(
        f"Imported {report.added} memories; {report.skipped} already present"
        + (f"; {report.rejected} invalid lines skipped (see the log)" if report.rejected else "")
        + "."
    )
    return EXIT_OK if not report.rejected else EXIT_FAILURE


async def _reindex(run: _Action) -> int:
    store = run.store
    fts_rows, vectors = await store.reindex()
    err(f"Reindexed {fts_rows} memories; {vectors} vectors built.")
    if not store.vector_search_available:
        err(f"Vector search is off: {store.vector_status}")
    return EXIT_OK


async def _inbox(run: _Action) -> int:
    candidates = await run.memory.list_memory_inbox()
    if run.args.json:
        print_json([dataclasses.asdict(c) for c in candidates])
        return EXIT_OK
    if not candidates:
        err("The inbox is empty.")
    for c in candidates:
        print(f"{c.id}  {fmt_time(c.created_at)}  {c.kind:<10} {c.content}")
    return EXIT_OK


async def _approve(run: _Action) -> int:
    for candidate_id in run.args.id:
        stored = await run.memory.approve_memory(candidate_id)
        err(f"Remembered {stored.id}: {stored.content}")
    return EXIT_OK


async def _reject(run: _Action) -> int:
    for candidate_id in run.args.id:
        await run.memory.reject_memory(candidate_id)
        err(f"Rejected {candidate_id}.")
    return EXIT_OK


_ACTIONS: dict[str, Callable[[_Action], Awaitable[int]]] = {
    "add": _add,
    "search": _search,
    "list": _list,
    "show": _show,
    "related": _related,
    "edit": _edit,
    "tier": _tier,
    "stats": _stats,
    "episodes": _episodes,
    "forget": _forget,
    "export": _export,
    "import": _import,
    "reindex": _reindex,
    "inbox": _inbox,
    "approve": _approve,
    "reject": _reject,
}
"""Each ``aria memory`` action's handler (export, import and reindex need the database)."""


def _print_details(memory: mem.Memory) -> None:
    print(f"# {memory.id}  ({memory.status})")
    print(memory.content)
    print()
    print(f"kind:        {memory.kind}")
    print(f"subject:     {memory.subject}")
    if memory.topic:
        print(f"topic:       {memory.topic}")
    print(f"importance:  {memory.importance:.2f}")
    print(f"confidence:  {memory.confidence:.2f}")
    pinned = ", pinned by the user" if memory.tier_pinned else ""
    again = f", learned again {memory.reinforced_count} times" if memory.reinforced_count else ""
    print(f"tier:        {memory.tier}{pinned}{again}")
    source = memory.provenance
    if memory.conversation_id:
        source += f" (conversation {memory.conversation_id}"
        source += (
            f", messages {', '.join(map(str, memory.message_ids))})" if memory.message_ids else ")"
        )
    print(f"provenance:  {source}")
    print(f"created:     {fmt_time(memory.created_at)}")
    print(f"updated:     {fmt_time(memory.updated_at)}")
    accessed = fmt_time(memory.last_accessed_at) if memory.last_accessed_at else "never"
    print(f"accessed:    {memory.access_count} times, last {accessed}")
    print(f"embedding:   {memory.embedding_model or 'none (keyword search only)'}")
    if memory.supersedes:
        print(f"replaces:    {memory.supersedes}")
    if memory.superseded_by:
        print(f"replaced by: {memory.superseded_by}")


def _read_lines(name: str) -> list[dict[str, Any]]:
    try:
        if name == "-":
            text = sys.stdin.read()
        else:
            text = Path(name).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AriaError(
            f"Cannot read {name}: {exc}", hint="Give a JSON-lines file from `aria memory export`."
        ) from exc
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except ValueError as exc:
            raise MemoryInvalidError(
                f"{name} line {number} is not JSON: {exc}",
                hint="Each line must be one memory object, as `aria memory export` writes.",
            ) from exc
    return rows


def _write_lines(name: str, rows: list[dict[str, Any]]) -> None:
    body = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    if name == "-":
        sys.stdout.write(body)
        sys.stdout.flush()
        return
    path = Path(name).expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Memories are private: write owner-only, atomically.
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(body)
            os.chmod(tmp, 0o600)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise AriaError(
            f"Cannot write {path}: {exc}", hint="Choose a folder you can write to."
        ) from exc
