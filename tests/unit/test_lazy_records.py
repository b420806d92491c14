"""Claude Code and Codex files read a line at a time give what reading every line first gave (the differential test).

The readers used to parse the whole file into dicts before building the first entry
(~350 MB of dicts for a 50,000-record Claude Code file); they now parse each line when
they come to it. The old order is run here by handing the reader every record parsed
first (`iter_records` replaced by an iterator over `parse_records`), and the sessions,
their problems in order and the store rows an import makes are compared on every
Claude Code and Codex file of the samples, fixtures and corpus, and on odd files.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cutline.core import agents
from cutline.core.agents import NotStreamable, read_session, sniff
from cutline.core.agents.claude_code import reader as claude_code_reader
from cutline.core.agents.codex import reader as codex_reader
from cutline.core.agents.jsonl import Lines, Record, parse_records
from cutline.core.models import Session
from cutline.core.store import Store
from cutline.core.store.rows import EntryRow, model_json, row_sink
from cutline.core.store.streamed import StreamedRows
from tests.support.grown_sessions import grow
from tests.support.session_files import files_of

ROOT = Path(__file__).resolve().parents[2]


FILES = files_of("claude_code", "codex")


def _parsed_first(lines: Lines, file: str, start: int = 0, index: int = 0, *, bom: bool = False) -> Iterator[Record]:
    return iter(parse_records(lines, file, start, index, bom=bom))


def _dump(session: Session) -> dict[str, Any]:
    out = session.model_dump(mode="json")
    out["entries"] = [model_json(entry) + "\n" + (entry.raw_line or "") for entry in session.entries]
    return out


def _rows(path: Path) -> list[EntryRow]:
    rows: list[EntryRow] = []
    read_session(path, sink=row_sink(rows), keep=False)
    return rows


def _both(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], dict[str, Any]]:
    lazy = _dump(read_session(path))
    with monkeypatch.context() as patch:
        patch.setattr(claude_code_reader, "iter_records", _parsed_first)
        patch.setattr(codex_reader, "iter_records", _parsed_first)
        whole = _dump(read_session(path))
    return lazy, whole


def test_there_are_claude_code_and_codex_files_to_compare() -> None:
    formats = [sniff(path) for path in FILES]
    assert formats.count("claude_code") >= 5 and formats.count("codex") >= 5


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_file_read_line_by_line_is_the_session_read_parsed_first(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lazy, whole = _both(path, monkeypatch)
    assert lazy == whole


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_an_import_makes_the_rows_of_the_session_read_whole(path: Path) -> None:
    """The rows handed over entry by entry (each entry let go once its row is made) are those of the kept session."""
    kept = read_session(path)
    assert _rows(path) == [row for entry in kept.entries for row in _one_row(entry)]


def _one_row(entry: Any) -> list[EntryRow]:
    rows: list[EntryRow] = []
    row_sink(rows)(entry, False)
    return rows


def _cc(uuid: str | None, parent: str | None, text: str, session: str | None = "s-1", **extra: Any) -> str:
    record: dict[str, Any] = {"type": "user", "parentUuid": parent, "message": {"role": "user", "content": text}}
    if uuid is not None:
        record["uuid"] = uuid
    if session is not None:
        record["sessionId"] = session
    record.update(extra)
    return json.dumps(record)


def _write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_odd_claude_code_files_read_line_by_line_as_parsed_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = [
        # the session id only on a later record, bad lines between, a repeated uuid, another session's record
        _write(
            tmp_path,
            "late-id.jsonl",
            [
                json.dumps({"type": "summary", "summary": "x"}),
                "{not json",
                _cc("u1", None, "one", session=None, cwd=""),
                "[1, 2]",
                _cc("u2", "u1", "two", cwd="/w"),
                _cc("u2", "u1", "again"),
                _cc("u3", "u2", "other", session="s-2"),
                json.dumps({"type": "mystery"}),
                _cc("u4", "u2", "four"),
                "{a bad line after the reader's own problems",
                _cc("u5", "u4", "five"),
            ],
        ),
        # no record names a session
        _write(tmp_path, "no-id.jsonl", [_cc("a", None, "one", session=None), _cc("b", "a", "two", session=None)]),
    ]
    for path in files:
        lazy, whole = _both(path, monkeypatch)
        assert lazy == whole
        if path.name == "late-id.jsonl":
            assert len(lazy["problems"]) >= 5  # the odd lines were reported, in the same order


def test_a_made_id_that_a_later_record_uses_as_its_uuid_is_made_again_as_when_parsed_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A record without a uuid gets an id that no uuid of the file has; read line by line, a later uuid is not known yet.

    The file here has a record whose uuid is the id the first record would be given:
    the reader notices and reads it again knowing every uuid (never in a real file).
    """
    session_id = "s-collide"
    # the first record (line 1) has no uuid: its id is made from the session id and its line
    clash = hashlib.sha256(f"{session_id}:1".encode()).hexdigest()[:8]
    path = _write(
        tmp_path,
        "clash.jsonl",
        [
            json.dumps({"type": "summary", "summary": "x", "sessionId": session_id}),
            "{bad",
            _cc("u1", None, "one", session=session_id),
            _cc(clash, "u1", "two", session=session_id),
        ],
    )
    lazy, whole = _both(path, monkeypatch)
    assert lazy == whole
    ids = [entry.split("\n")[0] for entry in lazy["entries"]]
    made = json.loads(ids[0])["id"]
    assert made != clash and clash in [json.loads(i)["id"] for i in ids]
    assert [p["message"] for p in lazy["problems"]].count(
        "malformed JSON (Expecting property name enclosed in double quotes at column 2); line skipped"
    ) == 1  # reported once, though the file was read twice


def test_odd_codex_files_read_line_by_line_as_parsed_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def item(ordinal: int, kind: str, payload: Any) -> str:
        return json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": kind, "payload": payload, "ordinal": ordinal})

    message = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    files = [
        # records before the header, a bad line, an ordinal gap, a second header, an unknown kind
        _write(
            tmp_path,
            "late-header.jsonl",
            [
                item(0, "response_item", message),
                "{oops",
                item(1, "session_meta", {"id": "c-1", "cwd": "/w"}),
                item(3, "response_item", message),
                item(4, "session_meta", {"id": "c-2"}),
                item(5, "mystery", {}),
                item(6, "response_item", "not an object"),
                "{a bad line after the reader's own problems",
                item(7, "response_item", message),
            ],
        ),
        # no header at all
        _write(tmp_path, "no-header.jsonl", [item(0, "response_item", message), item(2, "response_item", message)]),
    ]
    for path in files:
        assert sniff(path) == "codex"
        lazy, whole = _both(path, monkeypatch)
        assert lazy == whole
        if path.name == "late-header.jsonl":
            assert len(lazy["problems"]) >= 4


# -- the streamed import of a Claude Code file: the rows written as it is read, the end's changes rewritten ------------

CLAUDE_CODE = [path for path in FILES if sniff(path) == "claude_code"]


def _stored(db: Path, path: Path) -> dict[str, Any]:
    """Everything an import of `path` into a new store at `db` wrote (but the times it was written at)."""
    with Store(db) as store:
        report = store.import_file(path)
    conn = sqlite3.connect(db)
    try:
        sessions = [
            {k: row[k] for k in row if k not in ("imported_at", "updated_at")}
            for row in _dict_rows(conn, "SELECT * FROM sessions")
        ]
        entries = _dict_rows(conn, "SELECT * FROM entries ORDER BY seq")
        counts = _dict_rows(conn, "SELECT * FROM token_counts ORDER BY entry_id, counter")
    finally:
        conn.close()
    return {"report": report.model_dump(), "sessions": sessions, "entries": entries, "counts": counts}


def _dict_rows(conn: sqlite3.Connection, query: str) -> list[dict[str, Any]]:
    conn.row_factory = sqlite3.Row
    return [dict(row) for row in conn.execute(query).fetchall()]


def _whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """The import as it was: no Claude Code file streamed (the whole file read, every entry held, then written)."""
    monkeypatch.setattr(agents, "stream_peek", lambda path: None)


def _streamed_and_whole(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, int]:
    amended: list[int] = []
    finish = StreamedRows.finish

    def counting_finish(self: StreamedRows, *args: Any) -> int:
        amended.append(len(self._amends))
        return finish(self, *args)

    with monkeypatch.context() as patch:
        patch.setattr(StreamedRows, "finish", counting_finish)
        streamed = _stored(tmp_path / "streamed.db", path)
    with monkeypatch.context() as patch:
        _whole(patch)
        whole = _stored(tmp_path / "whole.db", path)
    assert amended, "the file was not streamed"
    return streamed, whole, amended[0]


@pytest.mark.parametrize("path", CLAUDE_CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_streamed_claude_code_import_stores_what_the_whole_file_import_stored(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every row (entries, token counts, the session's), and the report with its problems in order."""
    streamed, whole, _ = _streamed_and_whole(path, tmp_path, monkeypatch)
    assert streamed == whole


def test_the_rows_the_end_of_the_reading_changes_are_rewritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the rewrite the rows differ (parents, usage, marks, a compaction's summary): the comparison sees it."""
    path = ROOT / "sample_sessions/claude-code-compacted.jsonl"
    assert path in CLAUDE_CODE
    streamed, whole, amended = _streamed_and_whole(path, tmp_path, monkeypatch)
    assert streamed == whole and amended > 0
    monkeypatch.setattr(StreamedRows, "_rewrite", lambda self, recount: None)
    unfixed = _stored(tmp_path / "unfixed.db", path)
    assert unfixed["entries"] != whole["entries"]
    changed = [a for a, b in zip(unfixed["entries"], whole["entries"], strict=True) if a != b]
    assert len(changed) == amended


def _cc_odd(tmp_path: Path) -> list[Path]:
    def assistant(uuid: str, parent: str | None, response: str, block: dict[str, Any], **extra: Any) -> str:
        usage = {"input_tokens": 10, "output_tokens": 2}
        message = {"role": "assistant", "id": response, "content": [block], "usage": usage, "model": "m"}
        record = {"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": "s-1", "message": message}
        record.update(extra)
        return json.dumps(record)

    def result(uuid: str, parent: str, call: str) -> str:
        content = [{"type": "tool_result", "tool_use_id": call, "content": "ok"}]
        message = {"role": "user", "content": content}
        return json.dumps({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s-1", "message": message})

    call = {"type": "tool_use", "id": "c1", "name": "Read", "input": {}}
    call2 = {"type": "tool_use", "id": "c2", "name": "Read", "input": {}}
    parallel = [
        _cc("u1", None, "one"),
        "",  # a blank line: reported before every parse problem
        assistant("a1", "u1", "r1", {"type": "text", "text": "two"}),
        "{bad",
        assistant("a2", "a1", "r1", call),
        assistant("a3", "a2", "r1", call2),
        result("t1", "a2", "c1"),
        result("t2", "a3", "c2"),
        assistant("s1", "t2", "r9", {"type": "text", "text": "aside"}, isSidechain=True),
        _cc("u2", "t2", "next"),
        assistant("a4", "u2", "r2", {"type": "text", "text": "ok"}),
    ]
    no_parents = [_cc("p1", None, "one"), _cc("p2", None, "two"), _cc("p3", None, "three")]
    # the last line cut short (no newline): "truncated", not "malformed"
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\r\n".join([_cc("x1", None, "one"), _cc("x2", "x1", "two"), '{"type": "us']), encoding="utf-8")
    return [_write(tmp_path, "parallel.jsonl", parallel), _write(tmp_path, "no-parents.jsonl", no_parents), cut]


def test_odd_claude_code_files_import_streamed_as_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for path in _cc_odd(tmp_path):
        folder = tmp_path / path.stem
        folder.mkdir()
        streamed, whole, _ = _streamed_and_whole(path, folder, monkeypatch)
        assert streamed == whole, path.name
        messages = [p["message"] for p in whole["report"]["problems"]]
        if path.name == "parallel.jsonl":
            assert messages[0] == "blank line (skipped)" and messages[1].startswith("malformed JSON")
        if path.name == "cut.jsonl":
            assert messages == ["truncated last line (no newline at end and not valid JSON); line skipped"]
            assert whole["sessions"][0]["newline"] == "\r\n"


def test_a_file_the_stream_cannot_be_sure_of_is_imported_whole_and_nothing_half_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A made id a later record uses, bad UTF-8 past the first lines: the stream's rows are rolled back, the whole file read."""
    session_id = "s-collide"
    clash = hashlib.sha256(f"{session_id}:1".encode()).hexdigest()[:8]
    made_clash = _write(
        tmp_path,
        "clash.jsonl",
        [
            json.dumps({"type": "summary", "summary": "x", "sessionId": session_id}),
            _cc("u1", None, "one", session=session_id),
            _cc(clash, "u1", "two", session=session_id),
        ],
    )
    bad_utf8 = tmp_path / "bad-utf8.jsonl"
    # past the first megabyte (the first chunk read, which the stream's peek decodes)
    lines = [_cc(f"v{i}", f"v{i - 1}" if i else None, "x" * 3000).encode() for i in range(400)]
    lines[390] = lines[390].replace(b"xxx", b"x\xffx", 1)
    bad_utf8.write_bytes(b"\n".join(lines) + b"\n")
    for path in (made_clash, bad_utf8):
        folder = tmp_path / path.stem
        folder.mkdir()
        streamed, tried = _stored_trying_the_stream(folder / "streamed.db", path, monkeypatch)
        assert [type(e) for e in tried] == [NotStreamable]  # it was streamed, then rolled back and read whole
        with monkeypatch.context() as patch:
            _whole(patch)
            whole = _stored(folder / "whole.db", path)
        assert streamed == whole
        assert len(streamed["entries"]) == len(streamed["counts"]) > 0


def _stored_trying_the_stream(
    db: Path, path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[str, Any], list[BaseException]]:
    tried: list[BaseException] = []
    real = agents.read_streamed

    def reading(*args: Any, **kwargs: Any) -> Any:
        try:
            return real(*args, **kwargs)
        except BaseException as exc:
            tried.append(exc)
            raise

    with monkeypatch.context() as patch:
        patch.setattr(agents, "read_streamed", reading)
        return _stored(db, path), tried


def test_a_grown_claude_code_session_s_rows_are_written_at_their_place_on_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stream guesses each row's path_index (conversation records in file order): none is written twice for it."""
    path = grow("claude-code", 600, tmp_path / "grown.jsonl")
    writers: list[StreamedRows] = []
    finish = StreamedRows.finish

    def keeping(self: StreamedRows, *args: Any) -> int:
        writers.append(self)
        return finish(self, *args)

    monkeypatch.setattr(StreamedRows, "finish", keeping)
    streamed = _stored(tmp_path / "streamed.db", path)
    monkeypatch.setattr(StreamedRows, "finish", finish)
    _whole(monkeypatch)
    assert streamed == _stored(tmp_path / "whole.db", path)
    on_path = sum(1 for row in streamed["entries"] if row["path_index"] is not None)
    assert len(writers) == 1 and writers[0].path_fixes == 0 and 0 < on_path < len(streamed["entries"])
