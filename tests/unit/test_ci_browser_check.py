"""CI's browser: a runner with chromium but no chromedriver installs the driver, and a browser test fails under CI=true."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.browser import require_browser
from tests.support.paths import ROOT


def _packages_needed(tmp_path: Path, programs: list[str]) -> list[str]:
    """What `.ci/system-packages` says is missing on a PATH holding only these programs (and bash's basics)."""
    bin_dir = tmp_path / f"bin-{len(programs)}"
    bin_dir.mkdir()
    for program in programs:
        (bin_dir / program).write_text("#!/bin/sh\n")
        (bin_dir / program).chmod(0o755)
    bash = shutil.which("bash")
    assert bash is not None
    done = subprocess.run(
        [bash, str(ROOT / ".ci" / "system-packages")],
        env={"PATH": str(bin_dir), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return done.stdout.split()


def test_a_runner_with_chromium_but_no_driver_installs_the_driver(tmp_path: Path) -> None:
    assert _packages_needed(tmp_path, ["tmux", "chromium"]) == ["chromium-driver"]


def test_a_runner_with_everything_installs_nothing(tmp_path: Path) -> None:
    assert _packages_needed(tmp_path, ["tmux", "chromium", "chromedriver"]) == []
    assert _packages_needed(tmp_path, []) == ["tmux", "chromium", "chromium-driver"]


def test_a_missing_chromedriver_fails_a_browser_test_under_ci(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    chromium = tmp_path / "chromium"
    chromium.write_text("")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="chromedriver not installed"):
        require_browser(str(chromium), str(tmp_path / "chromedriver"))
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="chromedriver not installed"):
        require_browser(str(chromium), str(tmp_path / "chromedriver"))
    assert os.environ.get("CI") is None
