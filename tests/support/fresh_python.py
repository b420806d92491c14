"""Code run in a new interpreter, for tests of what a command imports (only a fresh process shows it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def fresh_python(code: str, cwd: Path | None = None) -> str:
    """What `code` prints when run by a new Python; the test fails with the end of its stderr if it fails."""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout
