"""`cutline --help` (and so every command's start-up) imports only click and the commands' declarations."""

from __future__ import annotations

import subprocess
import sys

from cutline.app.commands import serve
from cutline.app.web import guard

# modules a start-up does not need: the web guard's (hmac, secrets), pkgutil's walk, tempfile, json,
# and the heavy ones (models, the store, the TUI)
NOT_AT_START = ("cutline.app.web.guard", "hmac", "secrets", "pkgutil", "tempfile", "json", "pydantic", "textual")


def test_help_imports_nothing_it_does_not_need() -> None:
    code = (
        "import sys\n"
        "from cutline.app.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in {NOT_AT_START!r} if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_serve_declares_the_guards_token_variable() -> None:
    assert serve.TOKEN_ENV == guard.TOKEN_ENV
    assert serve.is_loopback("127.0.0.1") and serve.is_loopback("::1") and not serve.is_loopback("0.0.0.0")
