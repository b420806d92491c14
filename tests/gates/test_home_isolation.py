"""No test can see the user's home: HOME, CUTLINE_HOME and what cutline and the agents derive from them are temp dirs.

The autouse fixture in tests/conftest.py sets them for every test; this gate checks the result from inside
a test, as cutline's code and a program a test starts would see it.
"""

from __future__ import annotations

import os
import pwd
import subprocess
import tempfile
from pathlib import Path

from cutline.core.paths import cutline_home
from tests.conftest import AGENT_FOLDERS, XDG_FOLDERS


def _real_home() -> Path:
    return Path(pwd.getpwuid(os.getuid()).pw_dir).resolve()


def _in_temp(path: Path) -> bool:
    return path.resolve().is_relative_to(Path(tempfile.gettempdir()).resolve())


def test_a_test_sees_temp_dirs_for_home_and_cutlines_data_never_the_users() -> None:
    real = _real_home()
    for seen in (Path.home(), Path(os.path.expanduser("~")), Path(os.environ["HOME"]), cutline_home()):
        assert _in_temp(seen) and seen.resolve() != real, seen
    assert Path.home().resolve() != cutline_home().resolve()
    for name in (*XDG_FOLDERS, *AGENT_FOLDERS, "ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        assert name not in os.environ, name
    # a program a test starts inherits the same home
    shell = subprocess.run(["sh", "-c", "cd ~ && pwd -P"], capture_output=True, text=True, check=True)
    assert Path(shell.stdout.strip()) == Path.home().resolve()
