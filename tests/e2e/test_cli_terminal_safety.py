"""No command prints a session's escape sequences raw: a session full of OSC, CSI, C1 and BEL drives no terminal.

Session text is whatever an agent's tools read; `cutline show` once emitted OSC 52
clipboard writes and window-title sequences from it. Every command (and its errors)
runs here on such a session: text output must hold no control character but newline
and tab, JSON output must still parse to the exact hostile strings.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cutline.app.cli import main
from tests.support.paths import ROOT, SAMPLES

PAYLOAD = (
    "\x1b]0;PWNED-TITLE\x07"  # OSC 0: window title
    "\x1b]2;PWNED-2\x1b\\"  # OSC 2, ST-terminated
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"  # OSC 8 hyperlink
    "\x1b]52;c;cm0gLXJmIH4K\x07"  # OSC 52 clipboard write
    "\x1b[2J\x1b[31m"  # CSI clear screen, colour
    "\x9b2J\x9d0;c1-title\x9c\x85"  # C1 CSI, C1 OSC, C1 ST, NEL
    "\x07\x7f"  # BEL, DEL
)
# what must never reach the terminal: every C0 control but newline and tab, DEL and C1
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
STRUCTURAL = {"type", "role", "timestamp", "thinkingSignature", "api", "stopReason", "thinkingLevel"}


def _poison(value: Any, key: str = "") -> Any:
    """Every string of an entry with the payload appended (ids and their references alike, so links still hold)."""
    if isinstance(value, dict):
        return {k: _poison(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_poison(v, key) for v in value]
    if isinstance(value, str) and key not in STRUCTURAL:
        return value + PAYLOAD
    return value


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """pi-one-compaction.jsonl with the payload in every text, tool name, id and path, under a hostile file name."""
    lines = (SAMPLES / "pi-one-compaction.jsonl").read_text(encoding="utf-8").splitlines()
    poisoned = [json.dumps(_poison(json.loads(line)), ensure_ascii=False) for line in lines]
    path = tmp_path / "session\x1b]0;FILE-TITLE\x07\x9b2J.jsonl"
    path.write_text("\n".join(poisoned) + "\n", encoding="utf-8")
    return path


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def _holds_payload(value: Any) -> bool:
    return any(PAYLOAD in s for s in _strings(value))


def _run(capsysbinary: pytest.CaptureFixture[bytes], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsysbinary.readouterr()
    return code, out.decode("utf-8"), err.decode("utf-8")


def _clean(args: tuple[str, ...], *streams: str) -> None:
    for stream in streams:
        found = RAW.findall(stream)
        assert not found, f"cutline {' '.join(map(repr, args))} printed raw {sorted(set(found))!r}"


def test_every_command_shows_escapes_instead_of_running_them(
    hostile: Path, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], cutline_home: Path
) -> None:
    # pi 0.73's rules, pinned: current pi makes no plan for this session at keepRecentTokens 20000
    (cutline_home / "config.toml").write_text('[compaction]\nrules = "pi-0.73"\n', encoding="utf-8")
    ref = str(hostile)
    seen: list[str] = []

    def text(*args: str, ok: bool = True) -> str:
        code, out, err = _run(capsysbinary, *args)
        assert (code == 0) == ok, (args, code, err)
        _clean(args, out, err)
        seen.append(out + err)
        return out + err

    def data(*args: str) -> Any:
        code, out, err = _run(capsysbinary, *args)
        assert code == 0, (args, err)
        _clean(args, out, err)
        return json.loads(out)

    text("import", ref)
    text("ls")
    assert _holds_payload(data("ls", "--json"))
    shown = text("show", ref)
    assert "␛]52;c;" in shown and "\\x9b2J" in shown  # shown as pictures, not dropped
    assert _holds_payload(data("show", ref, "--json"))
    text("plan", ref)
    data("plan", ref, "--json", "--entry-tokens")
    text("tokens", ref)
    data("tokens", ref, "--json")
    assert _holds_payload(data("context", ref, "--json"))
    text("context", ref)
    first = data("compact", ref, "--json")
    assert PAYLOAD in first["summary"]  # the exact hostile text, only escaped for the terminal
    text("compact", ref)
    second = data("compact", ref, "--json")
    text("proposals", ref)
    data("proposals", ref, "--json")
    text("audit", ref)
    data("audit", ref, "--json")
    text("audit", ref, "--proposal", first["id"])
    text("timeline", ref, "--replay")
    data("timeline", ref, "--json", "--replay")
    text("timeline", ref, "-o", str(tmp_path / "plot\x1b]0;T\x07.svg"))
    text("compare", first["id"], second["id"])
    data("compare", first["id"], second["id"], "--json")
    text("accept", first["id"])
    text("reject", second["id"])
    text("export", ref, "-o", str(tmp_path / "out\x1b]0;T\x07\x9b2J.jsonl"))
    # errors quote what they were given
    text("accept", first["id"], ok=False)
    text("show", PAYLOAD, ok=False)
    text("reject", PAYLOAD, ok=False)
    text("audit", f"{ref}:{PAYLOAD}", ok=False)
    text("import", str(tmp_path / "missing\x1b]0;T\x07.jsonl"), ok=False)
    text("timeline", ref, "-o", str(tmp_path / "plot\x1b]0;T\x07.png"), ok=False)
    text("export", ref, "-o", str(tmp_path / "out\x1b]0;T\x07\x9b2J.jsonl"), ok=False)  # exists: needs --force
    text("show", "--tail", "x\x1b[2J", ref, ok=False)  # a usage error quoting the argument
    assert any("␛]0;FILE-TITLE␇" in out for out in seen)  # the file name, shown


def test_export_to_a_terminal_shows_the_escapes_and_to_a_pipe_stays_exact(hostile: Path, cutline_home: Path) -> None:
    import pty

    env = {**os.environ, "CUTLINE_HOME": str(cutline_home)}
    command = [sys.executable, "-m", "cutline.app.cli", "export", str(hostile), "-o", "-"]
    imported = subprocess.run(
        [*command[:3], "import", str(hostile)], cwd=ROOT, env=env, capture_output=True, check=False
    )
    assert imported.returncode == 0, imported.stderr
    piped = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=120, check=False)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == hostile.read_bytes()  # data for a program: byte for byte
    primary, secondary = pty.openpty()
    try:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=secondary, stderr=subprocess.DEVNULL)
        os.close(secondary)
        chunks = []
        while True:  # read while it writes: a pty's buffer is small
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # EIO: the writer closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        proc.wait(timeout=120)
    finally:
        os.close(primary)
    assert proc.returncode == 0
    shown = b"".join(chunks).decode("utf-8").replace("\r\n", "\n")  # the pty turns \n into \r\n
    assert not RAW.findall(shown)
    assert "\\x9b2J" in shown  # JSON leaves C1 raw: shown as an escape at a terminal
