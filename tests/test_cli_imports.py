"""What ``aria`` imports before it knows the command: start-up cost is kept by not importing.

Each check runs in a fresh interpreter, because this test process has imported everything.
"""

from __future__ import annotations

import subprocess
import sys

import pytest


def _imported_after(code: str, candidates: tuple[str, ...]) -> list[str]:
    """Which of ``candidates`` a fresh interpreter has imported after running ``code``."""
    probe = f"{code}\nimport sys\nprint(' '.join(m for m in {candidates!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_building_the_parser_imports_no_events_ports_storage_or_numerics() -> None:
    heavy = (
        "aria_desktop.domain.events",
        "aria_desktop.domain.commands",
        "aria_desktop.domain.computer",
        "aria_desktop.core.ports",
        "aria_desktop.core.computer",
        "aria_desktop.storage.database",
        "aria_desktop.storage.conversations",
        "numpy",
        "scipy",
        "httpx",
    )
    code = "from aria_desktop.cli import build_parser\nbuild_parser()"
    assert _imported_after(code, heavy) == []


def test_the_composition_root_imports_computer_use_only_when_it_builds_it() -> None:
    assert _imported_after("import aria_desktop.bootstrap", ("aria_desktop.core.computer",)) == []


@pytest.mark.parametrize(
    "name", ["Database", "SQLiteConversationStore", "read_owner", "fuse", "VectorIndex"]
)
def test_the_storage_package_still_exports_its_public_names(name: str) -> None:
    import aria_desktop.storage as storage

    assert name in storage.__all__
    assert getattr(storage, name).__name__ == name


def test_reading_the_owner_lock_does_not_import_the_database() -> None:
    code = "from aria_desktop.storage import read_owner"
    assert _imported_after(code, ("aria_desktop.storage.database",)) == []
