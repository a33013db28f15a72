"""Doctor checks of what ARIA keeps.

The settings file, SQLite and its extensions, the keyring, the audit log and long-term memory
search.
"""

from __future__ import annotations

import asyncio
import os

from aria_desktop import keystore, paths
from aria_desktop.doctor.result import PROBE_TIMEOUT_S, CheckResult, judged, ok, warn
from aria_desktop.domain.errors import AriaError
from aria_desktop.domain.settings_problems import SettingsProblem
from aria_desktop.settings import Settings

__all__ = ["check_audit", "check_config", "check_keyring", "check_memory", "check_sqlite"]


def check_config(
    settings: Settings, problems: tuple[SettingsProblem, ...] = ()
) -> list[CheckResult]:
    """The settings file: one row per problem the tolerant load found, else one OK row.

    A file that does not parse is a FAIL (none of the user's settings apply); a key that
    took its default or was ignored is a WARN (ARIA works, differently than written).
    """
    path = paths.settings_file()
    if problems:
        return [
            CheckResult(
                name="config",
                status="FAIL" if not problem.key and problem.file else "WARN",
                detail=problem.message,
                fix=f"edit {problem.where()}" if problem.file else "change that variable",
            )
            for problem in problems
        ]
    if path.exists():
        return [ok("config", f"{path} is valid")]
    return [
        CheckResult(
            name="config",
            status="OK",
            detail=f"no settings file yet; using defaults ({path})",
            fix="aria config set KEY VALUE creates it",
        )
    ]


def check_sqlite(settings: Settings) -> list[CheckResult]:
    """SQLite with FTS5, the sqlite-vec extension, and who owns the database file."""
    from aria_desktop.adapters.storage.connection import sqlite_info
    from aria_desktop.adapters.storage.owner_lock import read_owner
    from aria_desktop.settings import resolve_database_path

    info = sqlite_info()
    results = [
        judged(
            "sqlite",
            info.fts5,
            f"SQLite {info.sqlite_version} via {info.driver}; "
            f"FTS5 {'available' if info.fts5 else 'MISSING'}",
            "reinstall ARIA: bash packaging/setup.sh start",
            bad="FAIL",
        ),
        judged(
            "sqlite-vec",
            bool(info.vec_version),
            f"sqlite-vec {info.vec_version}"
            if info.vec_version
            else f"cannot load sqlite-vec: {info.vec_error}",
            "pip install sqlite-vec==0.1.9 (memory search then works lexically only)",
        ),
    ]
    db_path = resolve_database_path(settings)
    owner = read_owner(db_path)
    if owner is not None and owner.pid != os.getpid():
        where = f" (API port {owner.port})" if owner.port else ""
        results.append(ok("database", f"{db_path} is owned by running ARIA pid {owner.pid}{where}"))
    else:
        results.append(ok("database", str(db_path)))
    return results


def check_keyring() -> CheckResult:
    """A usable system keyring for API keys."""
    usable, detail = keystore.keyring_status()
    return judged(
        "keyring",
        usable,
        detail,
        "install/unlock a keyring (gnome-keyring, KWallet), or store keys with "
        "`aria config set-secret NAME --insecure-file`",
    )


def check_audit() -> CheckResult:
    """The audit log's hash chain is intact."""
    from aria_desktop.compose.app import open_audit_log

    report = open_audit_log().verify()
    if report.ok:
        return ok("audit log", f"{report.records} records, intact")
    return CheckResult(
        name="audit log",
        status="FAIL",
        detail=f"record {report.first_bad_seq}: {report.reason}",
        fix=f"the audit log was altered; inspect {paths.audit_log_path()} (aria audit verify)",
    )


async def check_memory(settings: Settings) -> list[CheckResult]:
    """Whether memory search can use vectors, and if not, why (it still works by keywords)."""
    from aria_desktop.adapters.storage.connection import sqlite_info
    from aria_desktop.compose.memory import build_embedder

    lexical_fix = "memory still works with keyword search only"
    if settings.memory.embedder == "none":
        return [
            warn(
                "memory",
                "no embedder (memory.embedder = none): keyword search only",
                "aria config set memory.embedder local",
            )
        ]
    info = await asyncio.to_thread(sqlite_info)
    if not info.vec_available:
        return [
            warn(
                "memory",
                f"keyword search only: sqlite-vec unavailable ({info.vec_error})",
                "pip install sqlite-vec==0.1.9; " + lexical_fix,
            )
        ]
    embedder = build_embedder(settings)
    if embedder is None:  # pragma: no cover - "none" handled above
        return []
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_S * 4):
            vectors = await embedder.embed(["ARIA doctor embedding check"])
        dim = len(vectors[0]) // 4
    except (AriaError, TimeoutError) as exc:
        hint = getattr(exc, "hint", "") or lexical_fix
        return [warn("memory", f"keyword search only: {exc or 'the embedder timed out'}", hint)]
    finally:
        await embedder.aclose()
    extraction = "on" if settings.memory.auto_extract else "off"
    if settings.memory.ask_first:
        extraction += " (ask first)"
    return [
        ok("memory", f"hybrid search with {embedder.name} ({dim}-d); fact extraction {extraction}")
    ]
