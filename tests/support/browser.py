"""The browser the web desk's end-to-end tests drive: chromium and its chromedriver, both required under CI."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def missing_browser(chromium: str = CHROMIUM, chromedriver: str = CHROMEDRIVER) -> str | None:
    """What is missing of the two programs (None when both are there)."""
    missing = [
        name for name, path in (("chromium", chromium), ("chromedriver", chromedriver)) if not Path(path).exists()
    ]
    return f"{' and '.join(missing)} not installed (.ci/run installs them with apt-get)" if missing else None


def require_browser(chromium: str = CHROMIUM, chromedriver: str = CHROMEDRIVER) -> None:
    """Skip a browser test without the programs, except under CI=true: there it fails, as the live tests do.

    Why: a runner with chromium but no driver went green without ever opening the web desk.
    """
    missing = missing_browser(chromium, chromedriver)
    if missing is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"the browser tests need both programs in CI: {missing}")
    pytest.skip(missing)
