"""The dependency rule of ``aria_desktop/ARCHITECTURE.md``, checked on the real import graph.

import-linter (``lint-imports``, run by CI) holds the layers; these tests state the rules that
an allow-list says better than a deny-list, so a new module is covered the day it is added:
a front-end reaches the core only through its ports, and the core and domain import nothing
but the domain and the standard library. Each test also proves it can fail, on a graph with
one offending import added.
"""

from __future__ import annotations

import sys
from functools import cache

import grimp
import pytest

PACKAGE = "aria_desktop"
FRONT_ENDS = ("aria_desktop.gui", "aria_desktop.daemon", "aria_desktop.api")


@cache
def _graph() -> grimp.ImportGraph:
    return grimp.build_graph(PACKAGE, include_external_packages=True)


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _is_port(module: str) -> bool:
    """``core.ports`` (the index) or a capability's ``core.<capability>.ports``."""
    parts = module.split(".")
    return parts[:2] == ["aria_desktop", "core"] and parts[-1] == "ports" and len(parts) in (3, 4)


def _front_end_reaches_into_core(graph: grimp.ImportGraph) -> list[str]:
    found = []
    for module in sorted(graph.modules):
        if not any(_within(module, front) for front in FRONT_ENDS):
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            if _within(imported, "aria_desktop.core") and not _is_port(imported):
                found.append(f"{module} -> {imported}")
    return found


def _ports_reach_into_core(graph: grimp.ImportGraph) -> list[str]:
    found = []
    for module in sorted(graph.modules):
        if not _is_port(module):
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            if _within(imported, "aria_desktop.core") and not _is_port(imported):
                found.append(f"{module} -> {imported}")
    return found


def _core_imports_beyond_domain(graph: grimp.ImportGraph) -> list[str]:
    stdlib = sys.stdlib_module_names | {"__future__"}
    found = []
    for module in sorted(graph.modules):
        if _within(module, "aria_desktop.domain"):
            allowed = ["aria_desktop.domain"]
        elif _within(module, "aria_desktop.core"):
            allowed = ["aria_desktop.domain", "aria_desktop.core"]
        else:
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            top = imported.split(".")[0]
            inside = top == PACKAGE and any(_within(imported, package) for package in allowed)
            if not inside and (top == PACKAGE or top not in stdlib):
                found.append(f"{module} -> {imported}")
    return found


def test_front_ends_import_only_the_ports_of_the_core() -> None:
    assert _front_end_reaches_into_core(_graph()) == []


def test_ports_import_no_core_implementation() -> None:
    assert _ports_reach_into_core(_graph()) == []


def test_core_and_domain_import_only_domain_and_the_standard_library() -> None:
    assert _core_imports_beyond_domain(_graph()) == []


@pytest.mark.parametrize(
    ("importer", "imported", "check"),
    [
        ("aria_desktop.gui.app", "aria_desktop.core.orchestrator", _front_end_reaches_into_core),
        ("aria_desktop.api.app", "aria_desktop.core.voice.pipeline", _front_end_reaches_into_core),
        ("aria_desktop.core.ports", "aria_desktop.core.orchestrator", _ports_reach_into_core),
        ("aria_desktop.core.agent", "httpx", _core_imports_beyond_domain),
        ("aria_desktop.domain.chat", "aria_desktop.core.bus", _core_imports_beyond_domain),
        ("aria_desktop.core.agent", "aria_desktop.settings", _core_imports_beyond_domain),
    ],
)
def test_each_rule_fails_on_an_offending_import(
    importer: str, imported: str, check: object
) -> None:
    graph = grimp.build_graph(PACKAGE, include_external_packages=True)
    assert callable(check)
    assert check(graph) == []
    graph.add_import(importer=importer, imported=imported)
    assert check(graph) == [f"{importer} -> {imported}"]
