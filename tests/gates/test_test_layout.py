"""The tests' own layout: shared helpers live in tests/support (or beside a suite), never in another test module."""

from __future__ import annotations

import ast

from tests.support.paths import TESTS


def test_no_test_module_imports_another() -> None:
    offenders = []
    for path in sorted(TESTS.rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.relative_to(TESTS)}:{node.lineno}: imports {name}"
                for name in names
                if name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith("test_")
            ]
    assert offenders == [], "move shared helpers to tests/support:\n" + "\n".join(offenders)
