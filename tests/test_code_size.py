"""The size rule of ``aria_desktop/ARCHITECTURE.md``: no module over 600 lines, no function
over 80 (from ``def`` to its last line). Small modules with one job stay small this way."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "aria_desktop"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80


def _sources() -> list[tuple[str, str]]:
    return [
        (str(path.relative_to(PACKAGE.parent)), path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def _too_long_modules(sources: list[tuple[str, str]]) -> list[str]:
    return [
        f"{name}: {text.count(chr(10))} lines"
        for name, text in sources
        if text.count("\n") > MAX_MODULE_LINES
    ]


def _too_long_functions(sources: list[tuple[str, str]]) -> list[str]:
    found = []
    for name, text in sources:
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found.append(f"{name}:{node.lineno} {node.name}: {length} lines")
    return found


def test_no_module_is_over_600_lines() -> None:
    assert _too_long_modules(_sources()) == []


def test_no_function_is_over_80_lines() -> None:
    assert _too_long_functions(_sources()) == []


def test_the_checks_find_an_oversized_module_and_function() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    long_function = f"def f() -> None:\n{body}\n"
    assert _too_long_functions([("m.py", long_function)]) == ["m.py:1 f: 81 lines"]
    assert _too_long_modules([("m.py", "x = 1\n" * 601)]) == ["m.py: 601 lines"]
