"""The scan of the agents' session folders: new compactions reach the inbox after the fact, cheaply.

Real files (the sample sessions of pi, Claude Code and Codex, Qwen Code's recorded corpus) in
the agents' own folders under a temporary HOME; a real store. The cost is counted in files
opened and bytes read: an unchanged folder costs nothing past the stat, a grown file costs
what was appended.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from cutline.core.agents.entries import StableIds
from cutline.core.inbox.items import Inbox
from cutline.core.inbox.scan import UNREADABLE, scan
from cutline.core.store import Store
from tests.support.cli import run

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_sessions"
QWEN = REPO / "tests" / "fixtures" / "corpus" / "qwen-code" / "main" / "after-manual-compact.jsonl"


def _pi_dir(home: Path) -> Path:
    folder = home / ".pi" / "agent" / "sessions" / "--work--"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _codex_dir(home: Path) -> Path:
    folder = home / ".codex" / "sessions" / "2026" / "11" / "22"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _pi_compaction(entry_id: str, parent: str, summary: str, first_kept: str | None = None) -> str:
    return json.dumps(
        {
            "type": "compaction",
            "id": entry_id,
            "parentId": parent,
            "timestamp": "2026-12-01T10:00:00.000Z",
            "summary": summary,
            "firstKeptEntryId": first_kept or parent,
            "tokensBefore": 12345,
        }
    )


def _last_id(path: Path) -> str:
    return str(json.loads(path.read_text().splitlines()[-1])["id"])


def test_first_scan_is_a_baseline_then_each_new_compaction_is_listed_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pi_file = _pi_dir(home) / "2026-12-01_a.jsonl"
    shutil.copy(SAMPLES / "pi-one-compaction.jsonl", pi_file)
    with Store(tmp_path / "store.db") as store:
        first = scan(store, env={"HOME": str(home)})
        assert first.baseline and first.known == 1 and first.items == []
        assert Inbox(store).listing() == []

        with pi_file.open("a") as handle:
            handle.write(_pi_compaction("feedc0de", _last_id(pi_file), "pi's own summary MARK-FOUND") + "\n")
        second = scan(store, env={"HOME": str(home)})
        assert [(i.agent, i.found, i.live, i.reason) for i in second.items] == [("pi", True, False, "after the fact")]
        item = second.items[0]
        assert item.session_file == str(pi_file) and item.tokens_before == 12345
        assert Inbox(store).request(item.id)["found"]["summary"] == "pi's own summary MARK-FOUND"

        third = scan(store, env={"HOME": str(home)})
        assert third.items == [] and third.files_read == 0  # unchanged: stat'ed, not opened
        inbox = Inbox(store)
        assert inbox.found_count() == 1 and inbox.waiting_count() == 0  # shown apart from what agents hold


def test_a_session_that_appears_after_the_baseline_is_listed_whole(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude" / "projects" / "-work").mkdir(parents=True)
    with Store(tmp_path / "store.db") as store:
        assert scan(store, env={"HOME": str(home)}).baseline
        shutil.copy(SAMPLES / "claude-code-compacted.jsonl", home / ".claude" / "projects" / "-work" / "s.jsonl")
        shutil.copy(SAMPLES / "codex-rollout-compacted.jsonl", _codex_dir(home) / "rollout-2026-11-22-x.jsonl")
        qwen = home / ".qwen" / "projects" / "-work" / "chats"
        qwen.mkdir(parents=True)
        shutil.copy(QWEN, qwen / "q.jsonl")
        report = scan(store, env={"HOME": str(home)})
        by_agent = {i.agent: i for i in report.items}
        assert sorted(by_agent) == ["claude-code", "codex", "qwen-code"], [i.agent for i in report.items]
        request = Inbox(store).request(by_agent["claude-code"].id)["found"]
        assert request["summary"].startswith(  # the text of the isCompactSummary message after the boundary
            "This session is being continued from a previous conversation that ran out of context."
        )
        assert "add a CSV export of a user's links" in request["summary"]
        codex = Inbox(store).request(by_agent["codex"].id)["found"]
        assert codex["summary"].startswith("Goal: make `GET /v1/links` pagination cursors opaque")
        assert Inbox(store).request(by_agent["qwen-code"].id)["found"]["summary"]


def test_an_encrypted_remote_codex_compaction_is_listed_as_unreadable(tmp_path: Path) -> None:
    home = tmp_path / "home"
    rollout = _codex_dir(home) / "rollout-2026-12-01-e.jsonl"
    meta = {"timestamp": "2026-12-01T10:00:00Z", "type": "session_meta", "payload": {"id": "s-enc", "cwd": "/w"}}
    rollout.write_text(json.dumps(meta) + "\n")
    with Store(tmp_path / "store.db") as store:
        scan(store, env={"HOME": str(home)})
        remote = {
            "timestamp": "2026-12-01T10:05:00Z",
            "type": "compacted",
            "payload": {
                "message": "",
                "replacement_history": [
                    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the bug"}]},
                    {"type": "compaction", "encrypted_content": "gAAAAABopaque"},
                ],
            },
        }
        with rollout.open("a") as handle:
            handle.write(json.dumps(remote) + "\n")
        [item] = scan(store, env={"HOME": str(home)}).items
        assert item.agent == "codex" and item.agent_session_id == "s-enc"
        found = Inbox(store).request(item.id)["found"]
        assert (found["summary"], found["unreadable"]) == (None, UNREADABLE)
        assert found["compaction"] == StableIds("s-enc").make(2)  # the id cutline's Codex reader gives line 2
        assert any(note.startswith("unreadable: an encrypted remote compaction") for note in item.notes)


def test_a_compaction_cutline_wrote_back_itself_is_not_listed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pi_file = _pi_dir(home) / "2026-12-01_b.jsonl"
    shutil.copy(SAMPLES / "pi-one-compaction.jsonl", pi_file)
    with Store(tmp_path / "store.db") as store:
        scan(store, env={"HOME": str(home)})
        with store.database.transaction() as conn:
            conn.execute(
                "INSERT INTO decisions (proposal_id, session_id, decision, decided_at, written_to, entry_id)"
                " VALUES ('p1', 's1', 'accepted', '2026-12-01T10:00:00Z', ?, 'c0ffee00')",
                (str(pi_file),),
            )
        with pi_file.open("a") as handle:
            handle.write(_pi_compaction("c0ffee00", _last_id(pi_file), "cutline's summary") + "\n")
        assert scan(store, env={"HOME": str(home)}).items == []


def test_a_half_written_line_waits_for_the_next_scan(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pi_file = _pi_dir(home) / "2026-12-01_c.jsonl"
    shutil.copy(SAMPLES / "pi-one-compaction.jsonl", pi_file)
    with Store(tmp_path / "store.db") as store:
        scan(store, env={"HOME": str(home)})
        line = _pi_compaction("0dd0dd00", _last_id(pi_file), "written in two goes")
        with pi_file.open("a") as handle:
            handle.write(line[:40])
        assert scan(store, env={"HOME": str(home)}).items == []
        with pi_file.open("a") as handle:
            handle.write(line[40:] + "\n")
        [item] = scan(store, env={"HOME": str(home)}).items
        assert Inbox(store).request(item.id)["found"]["compaction"] == "0dd0dd00"


def _folder(home: Path, n: int) -> list[Path]:
    folder = _pi_dir(home)
    files = []
    for i in range(n):
        path = folder / f"2026-12-01_{i:04d}.jsonl"
        shutil.copy(SAMPLES / "pi-two-compactions.jsonl", path)
        files.append(path)
    return files


def test_the_scan_reads_each_byte_once_and_a_quiet_folder_costs_no_reads(tmp_path: Path) -> None:
    """Work at n and 4n sessions: the first scan reads every byte once, the next reads nothing, one append costs itself."""
    costs = {}
    for n in (5, 20):
        home = tmp_path / f"home{n}"
        files = _folder(home, n)
        total = sum(p.stat().st_size for p in files)
        with Store(tmp_path / f"store{n}.db") as store:
            first = scan(store, env={"HOME": str(home)})
            assert (first.files, first.files_read, first.bytes_read) == (n, n, total)
            quiet = scan(store, env={"HOME": str(home)})
            assert (quiet.files, quiet.files_read, quiet.bytes_read) == (n, 0, 0)
            line = _pi_compaction(f"a{n:07d}", _last_id(files[0]), "one more") + "\n"
            with files[0].open("a") as handle:
                handle.write(line)
            grown = scan(store, env={"HOME": str(home)})
            assert (grown.files_read, grown.bytes_read, len(grown.items)) == (1, len(line.encode()), 1)
            costs[n] = first.bytes_read
    assert costs[20] == 4 * costs[5]


def test_a_replaced_file_is_read_again_and_lists_nothing_twice(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pi_file = _pi_dir(home) / "2026-12-01_d.jsonl"
    shutil.copy(SAMPLES / "pi-one-compaction.jsonl", pi_file)
    with Store(tmp_path / "store.db") as store:
        scan(store, env={"HOME": str(home)})
        with pi_file.open("a") as handle:
            handle.write(_pi_compaction("beefbeef", _last_id(pi_file), "first") + "\n")
        assert len(scan(store, env={"HOME": str(home)}).items) == 1
        replacement = pi_file.with_suffix(".tmp")  # an atomic rewrite: a new inode with the same lines
        shutil.copy(pi_file, replacement)
        replacement.replace(pi_file)
        again = scan(store, env={"HOME": str(home)})
        assert again.files_read == 1 and again.bytes_read == pi_file.stat().st_size and again.items == []


def test_the_inbox_commands_scan_show_write_back_and_dismiss_what_was_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "PI_CODING_AGENT_DIR", "OPENCLAW_STATE_DIR", "QWEN_HOME"):
        monkeypatch.delenv(name, raising=False)
    one, two = _pi_dir(home) / "2026-12-01_e.jsonl", _pi_dir(home) / "2026-12-01_f.jsonl"
    for path in (one, two):
        shutil.copy(SAMPLES / "pi-coding-session.jsonl", path)
    code, out, _ = run(capsys, "inbox", "scan")
    assert code == 0 and out.startswith("inbox scan: 2 session files, 2 read (") and " 0 new compactions" in out
    lines = [json.loads(line) for line in one.read_text().splitlines()]
    middle = [v["id"] for v in lines if v.get("type") == "message"][len(lines) // 2]  # pi kept half the session
    for path, entry in ((one, "f0und001"), (two, "f0und002")):
        with path.open("a") as handle:
            handle.write(_pi_compaction(entry, _last_id(path), f"pi's summary {entry}", middle) + "\n")
    code, out, _ = run(capsys, "inbox", "scan")
    assert "2 session files, 2 read" in out and "2 new compactions found after the fact" in out
    items = json.loads(run(capsys, "inbox", "--json")[1])
    assert [(i["agent"], i["shown_status"], i["found"]) for i in items] == [("pi", "found", True)] * 2
    first, second = sorted(items, key=lambda i: str(i["session_file"]))
    code, out, _ = run(capsys, "inbox", "show", first["id"])
    assert "found after the fact" in out and out.rstrip().endswith("pi's summary f0und001")
    code, _, err = run(capsys, "accept", first["id"])
    assert code == 1 and "write a better one first" in err  # the agent's own summary again writes nothing
    with one.open("a") as handle:  # the agent went on after its compaction (pi compacts nothing right after one)
        parent = "f0und001"
        for n, role in enumerate(("user", "assistant")):
            message = {"role": role, "content": [{"type": "text", "text": f"went on {n}"}], "timestamp": 1796000000000}
            line = {"type": "message", "id": f"0a0a0a0{n}", "parentId": parent, "timestamp": "2026-12-01T10:01:00Z"}
            handle.write(json.dumps({**line, "message": message}) + "\n")
            parent = line["id"]
    before, untouched = one.read_bytes(), two.read_bytes()
    summary = tmp_path / "better.md"
    summary.write_text("## Goal\nThe person's better summary. MARK-BETTER\n")
    run(capsys, "inbox", "edit", first["id"], str(summary))
    code, out, err = run(capsys, "accept", first["id"])
    assert code == 0, err
    assert out.startswith(f"accepted {first['id']}: the summary is written back to ")
    written = one.read_bytes()
    assert written.startswith(before) and b"MARK-BETTER" in written[len(before) :]
    code, out, _ = run(capsys, "inbox", "dismiss", second["id"])
    assert out == f"dismissed {second['id']}: nothing written\n" and two.read_bytes() == untouched
    code, out, _ = run(capsys, "inbox", "scan")  # cutline's own write-back is not found after the fact
    assert "1 read" in out and " 0 new compactions" in out
    assert json.loads(run(capsys, "inbox", "--json")[1]) == []


def test_an_openclaw_stores_new_compaction_is_listed_unless_cutline_wrote_it(tmp_path: Path) -> None:
    """A store the real OpenClaw 2026.9 wrote (the corpus), before and after its manual compaction."""
    import sqlite3

    from cutline.core.agents.openclaw.store import event_texts
    from tests.support.openclaw_store import without_last_event

    corpus = REPO / "tests" / "fixtures" / "corpus" / "openclaw" / "main"
    for written_by_cutline in (False, True):
        home = tmp_path / f"home{int(written_by_cutline)}"
        store_file = home / ".openclaw" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
        store_file.parent.mkdir(parents=True)
        # OpenClaw's store just before its manual compaction: the same store without its last event
        without_last_event(corpus / "after-manual-compact.sqlite", store_file, "cde7b62f-b5d2-453a-a896-24ee78fd4b51")
        with Store(tmp_path / f"store{int(written_by_cutline)}.db") as store:
            assert scan(store, env={"HOME": str(home)}).baseline
            after = tmp_path / "after.sqlite"
            shutil.copy(corpus / "after-manual-compact.sqlite", after)
            conn = sqlite3.connect(after)  # its events read by cutline's OpenClaw reader (the last one is zstd)
            [sid] = [str(row[0]) for row in conn.execute("SELECT DISTINCT session_id FROM transcript_events")]
            events = [json.loads(text) for _, text in event_texts(conn, sid, str(after), [])]
            conn.close()
            compactions = [(sid, e["id"]) for e in events if e.get("type") == "compaction"]
            [(sid, compaction_id)] = compactions
            if written_by_cutline:
                with store.database.transaction() as db:
                    db.execute(
                        "INSERT INTO decisions (proposal_id, session_id, decision, decided_at, written_to, entry_id)"
                        " VALUES ('p1', 's1', 'accepted', '2026-12-01T10:00:00Z', ?, ?)",
                        (f"{store_file}#{sid}", compaction_id),
                    )
            after.replace(store_file)  # OpenClaw went on and compacted (a new file here: read from its start)
            report = scan(store, env={"HOME": str(home)})
            if written_by_cutline:
                assert report.items == []
                continue
            [item] = report.items
            assert (item.agent, item.session_file) == ("openclaw", f"{store_file}#{sid}")
            assert Inbox(store).request(item.id)["found"]["compaction"] == compaction_id


def test_an_opencode_stores_compaction_is_found_once_and_a_quiet_store_is_not_opened(tmp_path: Path) -> None:
    """The store the real opencode wrote (the corpus): before its automatic compaction, after it, and after it went on."""
    from cutline.core.agents.opencode import read_store

    corpus = REPO / "tests" / "fixtures" / "corpus" / "opencode" / "main"
    home = tmp_path / "home"
    store_file = home / ".local" / "share" / "opencode" / "opencode.db"
    store_file.parent.mkdir(parents=True)
    shutil.copy(corpus / "before-compact.sqlite", store_file)
    env = {"HOME": str(home)}
    compacted = read_store(corpus / "after-auto-compact.sqlite")
    [entry] = [e for e in compacted.active_path() if e.type == "compaction"]
    assert entry.compaction is not None
    with Store(tmp_path / "store.db") as store:
        first = scan(store, env=env)
        assert first.baseline and (first.files, first.known, first.items) == (1, 0, [])
        shutil.copy(corpus / "after-auto-compact.sqlite", store_file)  # opencode compacted on its own
        report = scan(store, env=env)
        [item] = report.items
        sid = compacted.source_path.split("#")[-1] if compacted.source_path else ""
        assert (item.agent, item.session_file, item.agent_session_id) == ("opencode", f"{store_file}#{sid}", sid)
        found = Inbox(store).request(item.id)["found"]
        assert found["compaction"] == entry.id  # the compaction's user message, as cutline's reader names it
        assert found["summary"] == entry.compaction.summary and len(found["summary"]) > 20
        quiet = scan(store, env=env)
        assert (quiet.files, quiet.files_read, quiet.bytes_read, quiet.items) == (1, 0, 0, [])
        shutil.copy(corpus / "session.sqlite", store_file)  # opencode went on after it: nothing new
        later = scan(store, env=env)
        assert later.files_read == 1 and later.items == []
        assert [i.id for i in Inbox(store).listing()] == [item.id]
        with store.database.transaction() as conn:
            remembered = conn.execute("SELECT path, compaction, item_id FROM inbox_found").fetchall()
        assert [tuple(r) for r in remembered] == [(f"{store_file}#{sid}", entry.id, item.id)]


def test_a_better_summary_of_an_opencode_compaction_is_written_into_its_store_and_not_found_again(
    tmp_path: Path,
) -> None:
    """A found item names `STORE#SESSION`: accepting writes the person's summary into the real store, once."""
    import sqlite3

    from cutline.core.inbox.answers import accept_item, edit_item

    corpus = REPO / "tests" / "fixtures" / "corpus" / "opencode" / "main"
    home = tmp_path / "home"
    store_file = home / ".local" / "share" / "opencode" / "opencode.db"
    store_file.parent.mkdir(parents=True)
    shutil.copy(corpus / "before-compact.sqlite", store_file)
    env = {"HOME": str(home)}
    with Store(tmp_path / "store.db") as store:
        scan(store, env=env)
        shutil.copy(corpus / "session.sqlite", store_file)  # compacted, then went on
        [item] = scan(store, env=env).items
        edit_item(store, item.id, "The person's better summary. MARK-OPENCODE")
        accepted = accept_item(store, item.id)
        assert accepted is not None and accepted.status == "accepted"
        assert (accepted.answer or {})["writtenTo"] == item.session_file
        conn = sqlite3.connect(store_file)
        [(count,)] = conn.execute("SELECT count(*) FROM part WHERE data LIKE '%MARK-OPENCODE%'").fetchall()
        conn.close()
        assert count == 1
        assert scan(store, env=env).items == []  # cutline's own write-back is not found after the fact


def _opencode_store(target: Path, copies: int) -> None:
    """The corpus's real opencode store after its automatic compaction, its session's rows copied `copies` times.

    Each copy is its own session (ids suffixed alike), later in time, so each holds one finished compaction.
    """
    import sqlite3

    shutil.copy(REPO / "tests" / "fixtures" / "corpus" / "opencode" / "main" / "after-auto-compact.sqlite", target)
    conn = sqlite3.connect(target)
    messages = conn.execute("SELECT id, session_id, time_created, time_updated, data FROM message").fetchall()
    parts = conn.execute("SELECT id, message_id, session_id, time_created, time_updated, data FROM part").fetchall()
    for k in range(1, copies + 1):
        shift = k * 10_000_000

        def new(value: str, k: int = k) -> str:
            return f"{value}_{k:03d}"  # the same length for every copy

        for mid, sid, created, updated, data in messages:
            data = re.sub(r'"parentID":"([^"]+)"', lambda m: f'"parentID":"{new(m.group(1))}"', data)
            conn.execute(
                "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                (new(mid), new(sid), created + shift, updated + shift, data),
            )
        for pid, mid, sid, created, updated, data in parts:
            conn.execute(
                "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                (new(pid), new(mid), new(sid), created + shift, updated + shift, data),
            )
    conn.executemany("DELETE FROM part WHERE id = ?", [(row[0],) for row in parts])  # only the copies stay
    conn.executemany("DELETE FROM message WHERE id = ?", [(row[0],) for row in messages])
    conn.commit()
    conn.close()


def test_an_opencode_store_costs_its_rows_once_and_then_only_what_changed(tmp_path: Path) -> None:
    """Work at n and 4n sessions in one store: the first scan reads each row once; a new row costs itself only."""
    import sqlite3

    costs, grown_costs = {}, {}
    for n in (3, 12):
        home = tmp_path / f"home{n}"
        store_file = home / ".local" / "share" / "opencode" / "opencode.db"
        store_file.parent.mkdir(parents=True)
        _opencode_store(store_file, n)
        with Store(tmp_path / f"store{n}.db") as store:
            first = scan(store, env={"HOME": str(home)}, include_existing=True)
            assert (first.files_read, len(first.items)) == (1, n)
            quiet = scan(store, env={"HOME": str(home)})
            assert (quiet.files_read, quiet.bytes_read) == (0, 0)
            conn = sqlite3.connect(store_file)
            [(latest,)] = conn.execute("SELECT max(time_updated) FROM message").fetchall()
            row = '{"role":"user","time":{"created":1}}'
            conn.execute("INSERT INTO message VALUES ('msg_new', 'ses_new', ?, ?, ?)", (latest + 5, latest + 5, row))
            conn.commit()
            conn.close()
            grown = scan(store, env={"HOME": str(home)})
            assert (grown.files_read, grown.items) == (1, [])
            # the new row, and the row(s) of the last millisecond seen before (read again: an update may share it)
            assert len(row) <= grown.bytes_read < first.bytes_read / n
            costs[n] = first.bytes_read
            grown_costs[n] = grown.bytes_read
    assert costs[12] == 4 * costs[3]
    assert grown_costs[12] == grown_costs[3]  # what changed costs the same whatever the store holds
