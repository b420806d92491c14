"""The session store: schema and migrations, import/list/resolve/load, unchanged, grown and changed re-imports."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database

from cutline.core.agents import read_session
from cutline.core.errors import CutlineError, NotFoundError
from cutline.core.models import Entry, Message, Session, TextBlock
from cutline.core.store import AmbiguousSessionError, Store, entry_keys
from cutline.core.store import importer as importer_module
from cutline.core.store.importer import Importer
from cutline.core.store.migrations import migrations
from cutline.core.store.schema import MIGRATIONS
from tests.support.paths import ROOT
from tests.support.sessions import generate

SAMPLES = sorted((ROOT / "sample_sessions").glob("*.jsonl"))


def table_snapshot(store: Store) -> dict[str, tuple[int, str]]:
    """Row count and a content hash of every table, to prove that nothing changed."""
    out = {}
    for (name,) in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
        rows = store.conn.execute(f'SELECT * FROM "{name}" ORDER BY 1, 2').fetchall()
        out[name] = (len(rows), hashlib.sha256(repr(rows).encode()).hexdigest())
    return out


@pytest.fixture
def store() -> Store:
    with Store() as opened:
        yield opened


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    return generate(tmp_path / "work.jsonl", 400)


# -- opening and migrations ---------------------------------------------------


def test_opens_default_db_in_cutline_home_with_wal_and_all_migrations(cutline_home: Path) -> None:
    with Store() as store:
        assert store.path == cutline_home / "cutline.db"
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
        assert store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        tables = set(store.db.table_names())
        assert {"sessions", "entries", "token_counts", "proposals", "summary_versions", "decisions"} <= tables
        applied = [m.name for m in migrations.applied(store.db)]
        assert applied == list(MIGRATIONS)  # every one (a test below holds the list to the registered migrations)
        assert "write_backs" in tables
        assert migrations.pending(store.db) == []
    # opening again applies nothing twice
    with Store() as again:
        assert [m.name for m in migrations.applied(again.db)] == applied


def test_entries_table_has_the_agreed_keys_and_indexes(store: Store) -> None:
    entries = store.db["entries"]
    assert entries.pks == ["session_id", "id"]
    indexed = {tuple(index.columns) for index in entries.indexes}
    assert ("session_id", "seq") in indexed and ("session_id", "path_index") in indexed
    assert store.db["token_counts"].pks == ["session_id", "counter", "entry_id"]
    assert set(store.db["proposals"].columns_dict) == {
        "id",
        "session_id",
        "created_at",
        "status",
        "summarizer",
        "model",
        "prompt_name",
        "settings_json",
        "plan_json",
        "proposal_json",
        "tokens_before",
        "tokens_after",
        "first_kept_entry_id",
        "valid",
        "source_sha256",
    }
    assert set(store.db["decisions"].columns_dict) == {
        "id",
        "proposal_id",
        "session_id",
        "decision",
        "decided_at",
        "written_to",
        "entry_id",
        "note",
    }
    assert set(store.db["summary_versions"].columns_dict) == {
        "id",
        "proposal_id",
        "n",
        "created_at",
        "origin",
        "text",
        "tokens",
    }


def test_old_schema_is_upgraded_on_open_and_keeps_its_rows(tmp_path: Path, session_file: Path) -> None:
    db_path = tmp_path / "old.db"
    old = Database(db_path)
    migrations.apply(old, stop_before="m002_header_json_and_lookup_indexes")
    assert [m.name for m in migrations.applied(old)] == ["m001_initial"]
    assert "header_json" not in old["sessions"].columns_dict
    old["sessions"].insert(
        {
            "id": "old-1",
            "name": "before",
            "format": "pi",
            "imported_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
        }
    )
    old.close()

    with Store(db_path) as store:
        assert [m.name for m in migrations.applied(store.db)][-6:] == [
            "m004_session_path_tokens",
            "m005_entry_index_facts",
            "m006_token_counts_without_rowid",
            "m007_compaction_entries_index",
            "m008_probe_runs",
            "m009_session_source_stat",
        ]
        assert migrations.pending(store.db) == []  # upgraded to the latest schema
        assert store.db["sessions"].get("old-1")["header_json"] == "{}"
        assert [info.id for info in store.list_sessions()] == ["old-1"]
        # and the upgraded store works as a new one does
        report = store.import_file(session_file)
        assert store.load_session(report.session_id) == _read_as_stored(session_file, report.session_id)


def test_cached_counts_survive_the_move_to_a_clustered_table(tmp_path: Path, session_file: Path) -> None:
    db_path = tmp_path / "m005.db"
    with Store(db_path) as store:
        report = store.import_file(session_file)
        counts = {"a": 3, "b": 5}
        store.save_token_counts(report.session_id, "tiktoken", counts)
        before = sorted(store.conn.execute("SELECT * FROM token_counts").fetchall())
    # back to the m005 layout: a rowid table, as stores made before m006 have it
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm006_token_counts_without_rowid'")
        conn.execute(
            "CREATE TABLE old_counts (session_id TEXT NOT NULL, entry_id TEXT NOT NULL, counter TEXT NOT NULL,"
            " tokens INTEGER NOT NULL, PRIMARY KEY (session_id, counter, entry_id))"
        )
        conn.execute("INSERT INTO old_counts SELECT session_id, entry_id, counter, tokens FROM token_counts")
        conn.execute("DROP TABLE token_counts")
        conn.execute("ALTER TABLE old_counts RENAME TO token_counts")
    conn.close()

    with Store(db_path) as store:
        sql = store.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'token_counts'").fetchone()[0]
        assert "WITHOUT ROWID" in sql
        assert sorted(store.conn.execute("SELECT * FROM token_counts").fetchall()) == before
        assert store.token_counts(report.session_id, "tiktoken") == counts


def test_compaction_lookups_read_the_compaction_entries_index_and_no_entry_is_indexed_by_type(
    tmp_path: Path, session_file: Path
) -> None:
    """m007: one small index of compaction entries serves every query by type (the (session, type) index is gone)."""
    with Store(tmp_path / "s.db") as store:
        indexes = {row[0] for row in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "idx_entries_compactions" in indexes and "idx_entries_session_type" not in indexes
        queries = [
            "SELECT count(*) FROM entries e WHERE e.session_id = 's' AND e.type = 'compaction'",
            "SELECT id FROM entries WHERE session_id = 's' AND path_index IS NOT NULL AND type = 'compaction'"
            " ORDER BY path_index DESC LIMIT 1",
            "SELECT session_id, id, seq FROM entries WHERE type = 'compaction' AND id LIKE 'a%' ESCAPE '\\'",
        ]
        for query in queries:
            plan = " ".join(row[3] for row in store.conn.execute("EXPLAIN QUERY PLAN " + query))
            assert "idx_entries_compactions" in plan, (query, plan)


def test_compactions_by_prefix_come_in_session_and_file_order(tmp_path: Path) -> None:
    """Sorted by session then by their order in the file, as the lookup promised when SQLite sorted them."""
    lines = [json.dumps({"type": "session", "version": 3, "id": "sess", "timestamp": "t", "cwd": "/w"})]
    parent = None
    for i, entry_id in enumerate(["ab2", "m1", "ab1", "m2", "ab3"]):
        if entry_id.startswith("ab"):
            record = {"type": "compaction", "summary": "s", "firstKeptEntryId": parent, "tokensBefore": 1}
        else:
            record = {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "x"}]}}
        lines.append(json.dumps({**record, "id": entry_id, "parentId": parent, "timestamp": f"2026-01-0{i + 1}"}))
        parent = entry_id
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with Store(tmp_path / "s.db") as store:
        report = store.import_file(path)
        assert store.sessions.compaction_entries("ab") == [(report.session_id, e) for e in ("ab2", "ab1", "ab3")]


def test_a_file_that_is_not_a_database_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(CutlineError, match=r"cutline's store is damaged \(file is not a database\); move it aside"):
        Store(bad)


# -- import, list, resolve, load ---------------------------------------------------


def _read_as_stored(path: Path, session_id: str) -> Session:
    session = read_session(path.resolve())
    session.id = session_id
    return session


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_every_sample_round_trips(store: Store, sample: Path) -> None:
    report = store.import_file(sample)
    expected = _read_as_stored(sample, report.session_id)
    assert report.total == len(expected.entries) and report.added == report.total
    loaded = store.load_session(report.session_id)
    assert loaded == expected
    assert [e.raw_line for e in loaded.entries] == [e.raw_line for e in expected.entries]
    assert store.path_entry_ids(report.session_id) == [e.id for e in expected.active_path()]


def test_generated_session_round_trips_with_stored_columns(store: Store, session_file: Path) -> None:
    report = store.import_file(session_file)
    assert (report.unchanged, report.grown, report.replaced) == (False, False, False)
    expected = _read_as_stored(session_file, report.session_id)
    assert store.load_session(report.session_id) == expected
    rows = store.conn.execute(
        "SELECT id, seq, line, parent_id, type, role, timestamp, raw FROM entries WHERE session_id = ? ORDER BY seq",
        (report.session_id,),
    ).fetchall()
    lines = session_file.read_text(encoding="utf-8").splitlines()
    assert len(rows) == len(lines) - 1 == 400
    for (entry_id, seq, line, parent, kind, role, timestamp, raw), text in zip(rows, lines[1:]):
        record = json.loads(text)
        assert raw == text
        assert (entry_id, parent, kind, timestamp) == (
            record["id"],
            record["parentId"],
            record["type"],
            record["timestamp"],
        )
        assert role == record.get("message", {}).get("role")
        assert line == seq + 2  # the header is line 1
    header = store.db["sessions"].get(report.session_id)
    assert header["header_line"] == lines[0]
    assert header["source_sha256"] == hashlib.sha256(session_file.read_bytes()).hexdigest()
    assert header["source_size"] == session_file.stat().st_size


def test_list_sessions_reports_counts_tokens_compactions_and_decisions(
    store: Store, session_file: Path, tmp_path: Path
) -> None:
    big = store.import_file(generate(tmp_path / "big.jsonl", 9000, seed=5), count_tokens=False)
    small = store.import_file(session_file, count_tokens=False)
    infos = {info.id: info for info in store.list_sessions()}
    assert set(infos) == {big.session_id, small.session_id}
    big_info = infos[big.session_id]
    compactions = sum(
        1 for line in (tmp_path / "big.jsonl").read_text().splitlines() if '"type":"compaction"' in line[:30]
    )
    assert compactions >= 1 and big_info.compactions == compactions
    assert big_info.entries == 9000 and big_info.name == "big" and big_info.format == "pi" and big_info.version == 3
    assert big_info.tokens is None  # nothing counted yet

    path_ids = store.path_entry_ids(small.session_id)
    off_path = store.conn.execute(
        "SELECT id FROM entries WHERE session_id = ? AND path_index IS NULL", (small.session_id,)
    ).fetchall()
    counts = dict.fromkeys(path_ids, 10)
    counts.update({entry_id: 1000 for (entry_id,) in off_path})
    store.save_token_counts(small.session_id, "chars4", counts)
    store.save_token_counts(small.session_id, "tiktoken", dict.fromkeys(path_ids, 7))
    store.db["decisions"].insert_all(
        [
            {
                "proposal_id": "p1",
                "session_id": small.session_id,
                "decision": "rejected",
                "decided_at": "2026-01-01T00:00:00Z",
            },
            {
                "proposal_id": "p2",
                "session_id": small.session_id,
                "decision": "accepted",
                "decided_at": "2026-01-02T00:00:00Z",
            },
        ]
    )
    info = {i.id: i for i in store.list_sessions()}[small.session_id]
    assert info.tokens == 10 * len(path_ids)
    assert (info.last_decision, info.last_decision_at) == ("accepted", "2026-01-02T00:00:00Z")


def test_token_counts_are_saved_per_counter_and_replaced(store: Store, session_file: Path) -> None:
    sid = store.import_file(session_file, count_tokens=False).session_id
    assert store.token_counts(sid, "chars4") == {}
    store.save_token_counts(sid, "chars4", {"a": 1, "b": 2})
    store.save_token_counts(sid, "tiktoken", {"a": 5})
    store.save_token_counts(sid, "chars4", {"b": 3, "c": 4})
    assert store.token_counts(sid, "chars4") == {"a": 1, "b": 3, "c": 4}
    assert store.token_counts(sid, "tiktoken") == {"a": 5}


def test_resolve_by_id_prefix_name_and_path(store: Store, tmp_path: Path) -> None:
    first = store.import_file(generate(tmp_path / "alpha-run.jsonl", 50, seed=11))
    second = store.import_file(generate(tmp_path / "beta-run.jsonl", 50, seed=12))
    assert first.session_id != second.session_id
    assert store.resolve_session(first.session_id) == first.session_id
    assert store.resolve_session(first.session_id[:6]) == first.session_id
    assert store.resolve_session("alpha-run") == first.session_id
    assert store.resolve_session("beta") == second.session_id
    assert store.resolve_session(str(tmp_path / "beta-run.jsonl")) == second.session_id
    named = _tiny_session("named-1", name="rate limiting spike")
    named.source_path = str(tmp_path / "pi-branched.jsonl")
    store.import_session(named)
    assert store.resolve_session("rate limiting spike") == "named-1"
    assert store.resolve_session("pi-branched") == "named-1"  # the file's stem works too
    assert store.resolve_session("pi-bra") == "named-1"
    with pytest.raises(NotFoundError, match="no stored session matches 'gamma'"):
        store.resolve_session("gamma")
    with pytest.raises(NotFoundError):
        store.load_session("")


def test_ambiguous_references_name_the_candidates(store: Store) -> None:
    for suffix in ("1", "2"):
        store.import_session(_tiny_session(f"abc{suffix}", name="same"))
    with pytest.raises(
        AmbiguousSessionError, match=r"id prefix 'abc' matches 2 sessions: abc1 \(same\), abc2 \(same\)"
    ):
        store.resolve_session("abc")
    with pytest.raises(AmbiguousSessionError, match="name 'same' matches 2 sessions"):
        store.resolve_session("same")
    assert store.resolve_session("abc2") == "abc2"


def test_an_exact_name_wins_over_an_id_prefix_and_ambiguity_lists_every_candidate(store: Store) -> None:
    store.import_session(_tiny_session("session_b", name="claude code run"))
    store.import_session(_tiny_session("a1", name="session"))
    assert store.resolve_session("session") == "a1"  # not session_b, whose id merely starts with it
    store.import_session(_tiny_session("a2", name="session"))
    with pytest.raises(AmbiguousSessionError) as refused:
        store.resolve_session("session")
    message = str(refused.value)
    assert message.startswith("name 'session' matches 3 sessions: a1 (session), a2 (session), session_b")
    assert "name one by its full id or its file path" in message
    assert store.resolve_session("session_") == "session_b"
    store.import_session(_tiny_session("clx-1", name="other"))
    with pytest.raises(AmbiguousSessionError, match=r"id or name prefix 'c' matches 2 sessions: clx-1 .*session_b"):
        store.resolve_session("c")  # an id prefix of one, a name prefix of the other


def test_the_same_session_id_from_two_files_is_stored_twice(store: Store, session_file: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.jsonl"
    shutil.copy(session_file, copy)
    original = store.import_file(session_file)
    copied = store.import_file(copy)
    assert copied.session_id != original.session_id and copied.session_id.startswith(original.session_id)
    assert not copied.unchanged
    assert store.resolve_session(str(copy)) == copied.session_id
    assert store.resolve_session(str(session_file)) == original.session_id
    assert store.import_file(copy).unchanged
    assert store.load_session(copied.session_id).source_path == str(copy.resolve())


def test_import_of_a_missing_file_is_not_found(store: Store, tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="no such file"):
        store.import_file(tmp_path / "nope.jsonl")


def test_repeated_ids_are_all_kept_and_the_later_one_owns_the_id(store: Store, tmp_path: Path) -> None:
    path = generate(tmp_path / "dups.jsonl", 30)
    lines = path.read_text().splitlines()
    duplicate = json.loads(lines[10])
    duplicate["parentId"] = json.loads(lines[-1])["id"]
    duplicate["message"]["content"] = [{"type": "text", "text": "the same id again"}]
    lines.append(json.dumps(duplicate, separators=(",", ":")))
    path.write_text("\n".join(lines) + "\n")
    report = store.import_file(path)
    expected = _read_as_stored(path, report.session_id)
    assert len(expected.entries) == 31
    assert entry_keys(expected.entries)[9] == f"{duplicate['id']}~9"
    loaded = store.load_session(report.session_id)
    assert loaded == expected
    assert store.path_entry_ids(report.session_id) == [e.id for e in expected.active_path()]


# -- re-imports --------------------------------------------------------------------


def test_unchanged_reimport_changes_nothing(store: Store, session_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importer_module, "SETTLED_NS", 10**18)  # the file's status is never recorded (tested below)
    first = store.import_file(session_file)
    store.save_token_counts(first.session_id, "chars4", {"x": 1})
    before = table_snapshot(store)
    again = store.import_file(session_file)
    assert again.unchanged and again.added == 0 and again.total == first.total
    # the same through import_session (the file read again, not recognized by its fingerprint first)
    assert store.import_session(read_session(session_file.resolve())).unchanged
    assert table_snapshot(store) == before


def test_grown_file_adds_only_the_new_entries(store: Store, tmp_path: Path) -> None:
    full = generate(tmp_path / "full.jsonl", 900)
    lines = full.read_text(encoding="utf-8").splitlines(keepends=True)
    growing = tmp_path / "growing.jsonl"
    growing.write_text("".join(lines[:601]), encoding="utf-8")  # header + 600 entries
    first = store.import_file(growing, count_tokens=False)
    assert first.total == 600
    old_rowids = store.conn.execute(
        "SELECT id, rowid FROM entries WHERE session_id = ?", (first.session_id,)
    ).fetchall()
    store.save_token_counts(first.session_id, "chars4", {entry_id: 1 for entry_id, _ in old_rowids})

    with open(growing, "a", encoding="utf-8") as handle:
        handle.write("".join(lines[601:]))
    grown = store.import_file(growing, count_tokens=False)
    assert (grown.grown, grown.replaced, grown.unchanged) == (True, False, False)
    assert (grown.added, grown.total) == (300, 900)
    # the old rows were not rewritten, and their cached counts survive
    kept = dict(
        store.conn.execute("SELECT id, rowid FROM entries WHERE session_id = ?", (first.session_id,)).fetchall()
    )
    assert all(kept[entry_id] == rowid for entry_id, rowid in old_rowids)
    assert len(store.token_counts(first.session_id, "chars4")) == 600
    expected = _read_as_stored(growing, first.session_id)
    assert store.load_session(first.session_id) == expected
    assert store.path_entry_ids(first.session_id) == [e.id for e in expected.active_path()]
    row = store.db["sessions"].get(first.session_id)
    assert row["entry_count"] == 900 and row["source_size"] == growing.stat().st_size


def test_grown_file_with_a_new_branch_moves_the_active_path(store: Store, tmp_path: Path) -> None:
    path = generate(tmp_path / "branching.jsonl", 200)
    lines = path.read_text(encoding="utf-8").splitlines()
    report = store.import_file(path)
    assert len(store.path_entry_ids(report.session_id)) == 200
    # a rewind: a new user message whose parent is entry 50, so entries 51..199 leave the path
    branch_parent = json.loads(lines[50])["id"]
    record = {
        "type": "message",
        "id": "feedbeef",
        "parentId": branch_parent,
        "timestamp": "2026-04-01T00:00:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "let us try again"}], "timestamp": 1},
    }
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, separators=(",", ":")) + "\n")
    grown = store.import_file(path)
    assert grown.grown and grown.added == 1
    expected = _read_as_stored(path, report.session_id)
    path_ids = [e.id for e in expected.active_path()]
    assert len(path_ids) == 51 and path_ids[-1] == "feedbeef"
    assert store.path_entry_ids(report.session_id) == path_ids
    off_path = store.conn.execute(
        "SELECT count(*) FROM entries WHERE session_id = ? AND path_index IS NULL", (report.session_id,)
    ).fetchone()[0]
    assert off_path == 201 - 51
    assert store.load_session(report.session_id).active_path()[-1].id == "feedbeef"


def test_a_file_changed_in_the_middle_is_reimported_fully(store: Store, session_file: Path) -> None:
    first = store.import_file(session_file)
    store.save_token_counts(first.session_id, "chars4", {"x": 1})
    store.db["proposals"].insert({"id": "p1", "session_id": first.session_id, "created_at": "2026-01-01T00:00:00Z"})
    lines = session_file.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[5])
    record["message"]["content"] = [{"type": "text", "text": "edited by hand"}]
    lines[5] = json.dumps(record, separators=(",", ":"))
    lines.append(lines.pop(7))  # and reordered, so the file is not just longer
    session_file.write_text("\n".join(lines) + "\n", encoding="utf-8")

    report = store.import_file(session_file)
    assert (report.replaced, report.grown, report.unchanged) == (True, False, False)
    assert report.added == report.total == 400
    expected = _read_as_stored(session_file, first.session_id)
    assert store.load_session(first.session_id) == expected
    # the stale counts are dropped; the re-import counted the entries afresh
    from cutline.core.tokens import entry_tokens, get_counter

    chars4 = get_counter("chars4")
    assert store.token_counts(first.session_id, "chars4") == {e.id: entry_tokens(e, chars4) for e in expected.entries}
    assert store.db["proposals"].count == 1
    assert store.conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 400


def test_a_longer_file_whose_old_bytes_changed_is_not_treated_as_grown(store: Store, session_file: Path) -> None:
    first = store.import_file(session_file)
    text = session_file.read_text(encoding="utf-8")
    session_file.write_text(
        text.replace('"cwd":"/home/dev/project"', '"cwd":"/home/dev/other"') + text.splitlines(True)[-1]
    )
    report = store.import_file(session_file)
    assert report.replaced and not report.grown
    assert store.load_session(first.session_id).cwd == "/home/dev/other"


def test_sessions_without_a_file_are_replaced_on_reimport(store: Store) -> None:
    store.import_session(_tiny_session("mem-1", texts=["one", "two"]))
    report = store.import_session(_tiny_session("mem-1", texts=["one", "two", "three"]))
    assert report.replaced and report.total == 3
    assert [e.message.text() for e in store.load_session("mem-1").entries] == ["one", "two", "three"]


# -- transactions ------------------------------------------------------------------


def test_a_failed_import_leaves_nothing_behind(
    store: Store, session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []

    def failing(self: Importer, conn: sqlite3.Connection, batch: list[tuple]) -> None:
        calls.append(len(batch))
        if len(calls) == 1:
            conn.executemany(
                "INSERT INTO entries"
                " (session_id, id, seq, line, parent_id, type, role, path_index, timestamp, raw, model_json, facts)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                batch,
            )
            raise OSError("disk full")

    monkeypatch.setattr("cutline.core.store.importer._ENTRY_BATCH", 100)
    monkeypatch.setattr(Importer, "_insert_entry_rows", failing)
    with pytest.raises(OSError):
        store.import_file(session_file)
    assert store.conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 0
    assert store.conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 0


def test_a_file_hashed_once_its_change_settled_is_known_by_its_status(
    store: Store, session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unchanged file is hashed once after its last change has settled; from then on its status (device, inode,
    size, modified and changed times) stands for its bytes and it is not hashed again."""
    first = store.import_file(session_file)
    assert store.db["sessions"].get(first.session_id)["source_stat"] is None  # a new file's status is not recorded
    monkeypatch.setattr(importer_module, "SETTLED_NS", -(10**18))  # every change counts as settled
    assert store.import_file(session_file).unchanged  # hashed, and its status recorded
    assert store.db["sessions"].get(first.session_id)["source_stat"] == importer_module.stat_key(session_file.stat())

    def refuse(path: Path, limit: int | None = None) -> str:
        raise AssertionError(f"{path} was hashed")

    monkeypatch.setattr(importer_module, "file_sha256", refuse)
    again = store.import_file(session_file)
    assert again.unchanged and again.session_id == first.session_id and again.total == first.total


def test_a_file_rewritten_with_its_size_and_modified_time_is_read_again(
    store: Store, session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bytes changed in place, the size kept and the modified time set back (as `touch -r` or a restore would): the
    changed time, which no program sets, differs from the recorded status, so the file is hashed and read again."""
    monkeypatch.setattr(importer_module, "SETTLED_NS", -(10**18))
    first = store.import_file(session_file)
    assert store.import_file(session_file).unchanged
    recorded = store.db["sessions"].get(first.session_id)["source_stat"]
    assert recorded is not None
    status = session_file.stat()
    lines = session_file.read_text(encoding="utf-8").splitlines(keepends=True)
    at = lines[5].index('"text":"') + len('"text":"')  # a message's first letter, changed to another one
    lines[5] = lines[5][:at] + ("X" if lines[5][at] != "X" else "Y") + lines[5][at + 1 :]
    session_file.write_text("".join(lines), encoding="utf-8")
    os.utime(session_file, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert session_file.stat().st_size == status.st_size and session_file.stat().st_mtime_ns == status.st_mtime_ns
    report = store.import_file(session_file)
    assert (report.grown, report.replaced, report.unchanged) == (False, True, False), report
    assert store.db["sessions"].get(first.session_id)["source_stat"] is None  # the new bytes are not known by status
    assert store.load_session(first.session_id) == _read_as_stored(session_file, first.session_id)


def test_a_file_status_is_recorded_only_where_the_store_is_free_and_the_bytes_still_the_rows(
    store: Store, session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recording a status is a read's by-product: with another process writing, the read goes on at once without it;
    and a row whose bytes another import replaced meanwhile gets none."""
    monkeypatch.setattr(importer_module, "SETTLED_NS", -(10**18))
    first = store.import_file(session_file)
    other = sqlite3.connect(store.path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        assert store.import_file(session_file).unchanged
        assert store.db["sessions"].get(first.session_id)["source_stat"] is None
    finally:
        other.execute("ROLLBACK")
        other.close()
    store.sessions.record_source_stat(first.session_id, "not the stored bytes", "1:2:3:4:5")
    assert store.db["sessions"].get(first.session_id)["source_stat"] is None
    assert store.import_file(session_file).unchanged  # free again: recorded
    assert store.db["sessions"].get(first.session_id)["source_stat"] is not None


def test_a_failed_replace_keeps_the_previous_version(
    store: Store, session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = store.import_file(session_file)
    before = table_snapshot(store)
    session_file.write_text(session_file.read_text().replace("a", "A", 1))

    def failing(self: Importer, conn: sqlite3.Connection, batch: list[tuple]) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Importer, "_insert_entry_rows", failing)
    with pytest.raises(sqlite3.OperationalError):
        store.import_file(session_file)
    assert table_snapshot(store) == before
    assert store.db["sessions"].get(first.session_id)["entry_count"] == 400


# -- helpers -----------------------------------------------------------------------


def _tiny_session(session_id: str, *, name: str | None = None, texts: list[str] | None = None) -> Session:
    entries = []
    parent = None
    for number, text in enumerate(texts or ["hello"], start=1):
        entry_id = f"{number:08x}"
        record = {"type": "message", "id": entry_id, "parentId": parent, "message": {"role": "user", "content": text}}
        entries.append(
            Entry(
                id=entry_id,
                parentId=parent,
                type="message",
                message=Message(role="user", content=[TextBlock(text=text)], contentWasString=True),
                line=number + 1,
                raw_line=json.dumps(record),
            )
        )
        parent = entry_id
    return Session(id=session_id, format="pi", version=3, name=name, entries=entries)


def test_path_entries_reads_a_range_of_the_active_path_alone(store: Store, session_file: Path) -> None:
    report = store.import_file(session_file)
    path = store.load_session(report.session_id).active_path()
    assert len(path) > 20
    middle = store.sessions.path_entries(report.session_id, 5, 12)
    assert [e.id for e in middle] == [e.id for e in path[5:12]]
    assert [e.raw_line for e in middle] == [e.raw_line for e in path[5:12]]
    assert [e.id for e in store.sessions.path_entries(report.session_id, len(path) - 3)] == [e.id for e in path[-3:]]
    assert store.sessions.path_entries(report.session_id, len(path), len(path) + 5) == []


def test_compaction_entries_match_an_id_prefix_literally(store: Store, tmp_path: Path) -> None:
    header = {"type": "session", "version": 3, "id": "s-like", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
    lines = [header]
    for i, entry_id in enumerate(["c_1", "cx1", "c%2"]):
        lines.append(
            {
                "type": "compaction",
                "id": entry_id,
                "parentId": lines[-1].get("id") if i else None,
                "timestamp": "2026-01-01T00:00:01Z",
                "summary": "s",
                "firstKeptEntryId": entry_id,
                "tokensBefore": 1,
            }
        )
    path = tmp_path / "like.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    session_id = store.import_file(path).session_id
    assert store.sessions.compaction_entries("c_") == [(session_id, "c_1")]
    assert store.sessions.compaction_entries("c%") == [(session_id, "c%2")]
    assert store.sessions.compaction_entries("C") == []
    assert [entry_id for _, entry_id in store.sessions.compaction_entries("c")] == ["c_1", "cx1", "c%2"]


def test_a_store_another_process_holds_is_one_line_and_changes_nothing(
    tmp_path: Path, session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cutline.core.store import db as store_db

    monkeypatch.setattr(store_db, "BUSY_TIMEOUT_MS", 200)
    db_path = tmp_path / "held.db"
    Store(db_path).close()
    holder = sqlite3.connect(db_path)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with Store(db_path) as store, pytest.raises(CutlineError) as caught:
            store.import_file(session_file)
        message = str(caught.value)
        assert "\n" not in message and "busy" in message and str(db_path) in message
    finally:
        holder.rollback()
        holder.close()
    with Store(db_path) as store:
        assert store.list_sessions() == []


def test_closing_the_store_while_a_worker_runs_a_statement_interrupts_it(tmp_path: Path) -> None:
    import threading

    store = Store(tmp_path / "busy.db")
    outcome: list[str] = []
    started = threading.Event()

    def slow() -> None:
        started.set()
        try:
            store.database.rows(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50000000) SELECT count(*) FROM n"
            )
            outcome.append("finished")
        except sqlite3.Error as exc:
            outcome.append(str(exc))

    worker = threading.Thread(target=slow)
    worker.start()
    started.wait()
    worker.join(timeout=0.3)  # the statement is running
    store.close()
    worker.join(timeout=60)
    assert outcome == ["interrupted"]
    with pytest.raises(sqlite3.ProgrammingError):
        store.conn.execute("SELECT 1")


def test_the_schema_names_every_migration_in_order() -> None:
    """`core.store.schema` tells an up-to-date store without sqlite-utils: its list must be the migrations'."""
    assert [m.name for m in migrations.pending(Database(memory=True))] == list(MIGRATIONS)


def test_opening_an_up_to_date_store_does_not_import_sqlite_utils(tmp_path: Path) -> None:
    """Every command opens the store: sqlite-utils (~50 ms to import) is needed only to migrate."""
    import subprocess
    import sys

    db = tmp_path / "s.db"
    probe = (
        "import sys; from cutline.core.store import Store; Store(sys.argv[1]).close(); "
        "print('sqlite_utils' in sys.modules)"
    )
    runs = [
        subprocess.run([sys.executable, "-c", probe, str(db)], capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    ]
    assert runs == ["True\n", "False\n"]  # the first open migrates a new database, the second finds nothing pending
