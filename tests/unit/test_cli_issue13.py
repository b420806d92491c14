"""The CLI text defects of issue 13, driven through `cutline.app.cli.main` as a person types them."""

from __future__ import annotations

import json
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cutline.app.cli import main
from tests.support.paths import SAMPLES
from tests.support.tui_app import write_session


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run `cutline ARGS` as the console script does; the exit code, stdout and stderr."""
    code = 0
    try:
        main(list(args))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return code, out, err


def _pi_session(path: Path, turns: list[tuple[str, str]], usage: list[int] | None = None) -> Path:
    """A pi v3 session of the given (role, text) messages; assistant messages carry `usage` in order."""
    records: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s-13", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
    ]
    parent: str | None = None
    sizes = iter(usage or [])
    for i, (role, text) in enumerate(turns):
        message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1 + i}
        if role == "assistant":
            total = next(sizes, 15)
            message.update(
                model="claude-sonnet-4-5",
                provider="anthropic",
                stopReason="stop",
                usage={"input": total, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total},
            )
        entry_id = f"e{i:03d}"
        records.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": message,
            }
        )
        parent = entry_id
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


# -- compact that summarizes nothing or grows the context ------------------------------


def test_compact_that_would_grow_the_context_says_so_and_stores_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    session = _pi_session(
        tmp_path / "tiny.jsonl",
        [
            ("user", "hi"),
            ("assistant", "ok"),
            ("user", "go"),
            ("assistant", "done"),
            ("user", "more"),
            ("assistant", "yes"),
        ],
    )
    db = str(tmp_path / "s.db")
    code, _out, err = run(capsys, "compact", str(session), "--keep-recent-tokens", "1", "--db", db)
    assert code == 1
    assert "would grow the context" in err and "no proposal stored" in err
    assert len(err.strip().splitlines()) == 1
    assert run(capsys, "proposals", str(session), "--db", db)[1].strip() == "no proposals"


def test_compact_and_proposals_print_tokens_with_thousands_separators(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    session = write_session(tmp_path / "ledger.jsonl")
    db = str(tmp_path / "s.db")
    code, out, _ = run(capsys, "compact", str(session), "--keep-recent-tokens", "2000", "--db", db)
    assert code == 0
    line = next(line for line in out.splitlines() if line.startswith("tokens "))
    before, after = line.split()[1], line.split()[3]
    assert "," in before, line
    listed = run(capsys, "proposals", str(session), "--db", db)[1]
    assert f"{before}->{after}" in listed


# -- timeline --replay honours --counter; calibrated fires where the agent fired ----------


def _agent_compacted_session(path: Path) -> Path:
    """A pi session whose agent compacted at the threshold: usage = an 8,000-token system prompt + the transcript."""
    records: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s-agent", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
    ]
    parent: str | None = None
    transcript = 0
    overhead = 8000
    count = 0

    def add(record: dict[str, Any]) -> None:
        nonlocal parent, count
        count += 1
        record.update(id=f"e{count:03d}", parentId=parent, timestamp="2026-01-01T00:00:00.000Z")
        records.append(record)
        parent = record["id"]

    compacted = False
    for turn in range(30):
        text = f"turn {turn} " + "x" * 3990  # about 1,000 chars4 tokens each
        add(
            {
                "type": "message",
                "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1},
            }
        )
        transcript += 1000
        real = overhead + transcript
        add(
            {
                "type": "message",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "y" * 3996}],
                    "model": "claude-sonnet-4-5",
                    "provider": "anthropic",
                    "stopReason": "stop",
                    "usage": {"input": real, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": real},
                    "timestamp": 2,
                },
            }
        )
        transcript += 1000
        if not compacted and overhead + transcript > 30000 - 5000:
            kept = records[-4]["id"]
            add({"type": "compaction", "summary": "s" * 8000, "firstKeptEntryId": kept, "tokensBefore": real})
            compacted = True
            break
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_timeline_replay_runs_on_the_counter_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    session = _agent_compacted_session(tmp_path / "agent.jsonl")
    db = str(tmp_path / "s.db")
    args = ["timeline", str(session), "--replay", "--context-window", "30000", "--reserve-tokens", "5000"]
    args += ["--keep-recent-tokens", "3000", "--json", "--db", db]
    for counter in ("tiktoken", "calibrated"):
        code, out, _ = run(capsys, *args, "--counter", counter)
        assert code == 0
        assert json.loads(out)["replay"]["counter"] == counter


def test_the_calibrated_replay_fires_where_the_agent_did(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    session = _agent_compacted_session(tmp_path / "agent.jsonl")
    db = str(tmp_path / "s.db")
    args = ["timeline", str(session), "--replay", "--context-window", "30000", "--reserve-tokens", "5000"]
    args += ["--keep-recent-tokens", "3000", "--json", "--db", db, "--counter", "calibrated"]
    code, out, _ = run(capsys, *args)
    assert code == 0
    data = json.loads(out)
    real = [c for c in data["timeline"]["compactions"] if not c["replayed"]]
    replayed = data["replay"]["compactions"]
    assert real and replayed
    assert replayed[0]["turn"] == real[0]["turn"]


# -- export FILE imports the file; a converted export says what it wrote -----------------


def test_export_takes_a_session_file_like_every_other_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    session = write_session(tmp_path / "ledger.jsonl")
    out_file = tmp_path / "out.jsonl"
    code, _, err = run(capsys, "export", str(session), "-o", str(out_file), "--db", str(tmp_path / "s.db"))
    assert code == 0, err
    assert out_file.read_bytes() == session.read_bytes()


@pytest.mark.parametrize(
    ("sample", "fmt"), [("claude-code-compacted.jsonl", "claude_code"), ("codex-rollout-compacted.jsonl", "codex")]
)
def test_exporting_claude_code_or_codex_says_what_was_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sample: str, fmt: str
) -> None:
    out_file = tmp_path / "out.jsonl"
    code, _, err = run(capsys, "export", str(SAMPLES / sample), "-o", str(out_file), "--db", str(tmp_path / "s.db"))
    assert code == 0
    written = len(out_file.read_text(encoding="utf-8").splitlines()) - 1
    assert f"converted from {fmt}" in err
    assert f"{written:,} pi v3 entries" in err


# -- tokens offline with a key set -----------------------------------------------------


@pytest.fixture
def refusing_port() -> int:
    """A local port nothing listens on: connecting is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def hanging_port() -> Iterator[int]:
    """A local server that takes each connection, says nothing for a moment, and hangs up."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.1)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            time.sleep(0.2)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield int(server.getsockname()[1])
    finally:
        stop.set()
        thread.join()
        server.close()


@pytest.mark.parametrize("which", ["refusing_port", "hanging_port"])
def test_tokens_works_offline_with_a_key_set(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    which: str,
) -> None:
    port = request.getfixturevalue(which)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    session = write_session(tmp_path / "ledger.jsonl", turns=3, body_lines=5)
    code, out, err = run(capsys, "tokens", str(session), "--db", str(tmp_path / "s.db"))
    assert code == 0, err
    assert "chars4" in out and "tiktoken" in out
    assert "anthropic: not counted (" in out
    assert "sk-test-not-a-key" not in out + err


# -- CUTLINE_HOME a file; plan with a reserve over the window; ls totals; tiktoken's cache --


def test_a_cutline_home_that_is_a_file_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home-file"
    home.write_text("", encoding="utf-8")
    monkeypatch.setenv("CUTLINE_HOME", str(home))
    code, _, err = run(capsys, "ls")
    assert code == 1
    assert (
        err.strip() == f"cutline: cannot write {home}: CUTLINE_HOME is a file, not a directory "
        "(point it at a directory, or move the file away)"
    )


@pytest.mark.parametrize("reserve", ["200000", "250000"])
def test_plan_refuses_a_reserve_at_or_above_the_window(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, reserve: str
) -> None:
    session = write_session(tmp_path / "ledger.jsonl")
    args = [
        "plan",
        str(session),
        "--context-window",
        "200000",
        "--reserve-tokens",
        reserve,
        "--db",
        str(tmp_path / "s.db"),
    ]
    code, out, err = run(capsys, *args)
    assert code == 1 and out == ""
    assert "at or above the context window 200,000" in err and len(err.strip().splitlines()) == 1


def test_ls_shows_token_totals_right_after_import(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    session = write_session(tmp_path / "ledger.jsonl")
    db = str(tmp_path / "s.db")
    assert run(capsys, "import", str(session), "--db", db)[0] == 0
    listed = json.loads(run(capsys, "ls", "--json", "--db", db)[1])
    assert listed[0]["tokens"] and listed[0]["tokens"] > 0
    plan = json.loads(run(capsys, "plan", str(session), "--json", "--db", db)[1])
    assert listed[0]["tokens"] == plan["tokensBefore"] or listed[0]["tokens"] > 0


def test_tiktoken_writes_no_cache_outside_cutline_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cutline.core import tokens

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    tokens.cl100k_encoding.cache_clear()
    try:
        assert tokens.cl100k_encoding().encode("hello world") == [15339, 1917]
    finally:
        tokens.cl100k_encoding.cache_clear()
    assert list(temp.iterdir()) == []


def test_an_assistant_message_is_described_with_an(tmp_path: Path) -> None:
    from cutline.core.agents import read_session
    from cutline.core.engine.path_index import index_path
    from cutline.core.releases.pi_0_73.explain import _describe_entry

    session = read_session(_pi_session(tmp_path / "s.jsonl", [("user", "hi"), ("assistant", "ok")]))
    index = index_path(session.active_path())
    assert [_describe_entry(index, i) for i in range(2)] == ["a user message", "an assistant message"]


def test_list_labels_are_never_silently_cut() -> None:
    from cutline.app.widgets.rows import LABEL_CELLS, message_row
    from cutline.core.models import Entry, Message

    def label(**fields: Any) -> str:
        message = Message.model_validate({"content": [], **fields})
        return message_row(Entry(id="x", type="message", message=message), message, None).label

    assert label(role="bashExecution", command="ls", output="") == "bash"
    long_tool = label(role="toolResult", toolName="read_many_files_at_once", toolCallId="t")
    assert len(long_tool) == LABEL_CELLS and long_tool.endswith("…")
    assert label(role="toolResult", toolName="read", toolCallId="t") == "read"
