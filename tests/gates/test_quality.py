"""The gates, run with the tests: ruff (lint and format), mypy (strict) and the import-linter contracts.

Each runs as its own program from the repository root, with its configuration from
pyproject.toml, exactly as a developer runs it; a failure prints the tool's output.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT


def tool(name: str) -> str:
    """The tool installed next to this interpreter (the virtualenv's), else the one on PATH."""
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: install the test extra (pip install -e '.[test]')")
    return found


def run_gate(name: str, *args: str) -> None:
    result = subprocess.run([tool(name), *args], cwd=ROOT, capture_output=True, text=True, timeout=900)
    command = " ".join([name, *args])
    if result.returncode != 0:
        pytest.fail(f"`{command}` failed (exit {result.returncode}):\n{result.stdout}\n{result.stderr}", pytrace=False)


def test_ruff_check() -> None:
    run_gate("ruff", "check", ".")


def test_ruff_format() -> None:
    run_gate("ruff", "format", "--check", ".")


def test_mypy() -> None:
    run_gate("mypy")


def test_import_contracts() -> None:
    run_gate("lint-imports")
