"""Running `cutline` in-process as its console script does."""

from __future__ import annotations

import pytest

from cutline.app.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run `cutline ARGS` as the console script does; the exit code, stdout and stderr (never a traceback)."""
    code = 0
    try:
        main(list(args))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return code, out, err
