"""The local time zone as a DST-aware ``tzinfo``: the process's ``TZ``, else the system's.

Reminders are said in local wall-clock time ("tomorrow at 9"), and 9:00 is 9:00 on the
desktop's clock whether summer time starts in between or not; a fixed UTC offset would be an
hour wrong across the change. So the zone is an IANA zone (``zoneinfo``): ``TZ`` when it names
one (``Europe/Berlin``, tests set it with ``time.tzset()``), else ``/etc/localtime``, else UTC.
"""

from __future__ import annotations

import datetime as dt
import os
from functools import lru_cache
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = ["local_zone", "zone_name"]

_LOCALTIME = Path("/etc/localtime")


def local_zone() -> dt.tzinfo:
    """The zone local times are meant in, read again whenever ``TZ`` changes."""
    return _zone(os.environ.get("TZ", ""))


def zone_name(zone: dt.tzinfo) -> str:
    """The zone's IANA name ("" when it has none, e.g. read from a file without one)."""
    key = getattr(zone, "key", None)
    return key if isinstance(key, str) and key != "localtime" else ""


@lru_cache(maxsize=8)
def _zone(tz: str) -> dt.tzinfo:
    name = tz.removeprefix(":")
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass  # a POSIX rule ("CET-1CEST") or a typo: fall back to the system's zone
    return _system_zone()


def _system_zone() -> dt.tzinfo:
    try:
        target = str(_LOCALTIME.resolve())
    except OSError:
        return dt.UTC
    if "zoneinfo/" in target:
        try:
            return ZoneInfo(target.split("zoneinfo/", 1)[1])
        except (ZoneInfoNotFoundError, ValueError):
            pass
    try:
        with _LOCALTIME.open("rb") as handle:
            return ZoneInfo.from_file(handle, key="localtime")
    except (OSError, ValueError):
        return dt.UTC
