"""The desk opens a compaction found after the fact: its list (f on the sessions screen), the agent's own cut,
the messages it summarized and kept, its summary; the person writes a better one back, or dismisses it.

Real files: pi's sample session in pi's own folder under a temporary HOME, compacted by pi's own
record appended to it, found by the real scan; a real store. Keys are typed as a terminal sends them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

import cutline.core.inbox.items
from cutline.core.inbox.items import Inbox
from cutline.core.inbox.scan import scan
from cutline.core.store import Store
from tests.support.keys import type_keys
from tests.support.paths import SAMPLES
from tests.support.tui_app import settle_pilot as settle
from tests.support.tui_app import test_app

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 45), id="160x45")]


def _found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sessions: int = 1) -> tuple[Path, list[Path], str]:
    """A store whose inbox holds `sessions` pi compactions found after the fact; the files, and pi's cut."""
    ids = iter(f"f0{n:06d}" for n in range(100))  # the inbox's ids, fixed for the pictures: only the inbox's draw
    monkeypatch.setattr(cutline.core.inbox.items, "new_item_id", lambda: next(ids))
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "PI_CODING_AGENT_DIR", "OPENCLAW_STATE_DIR", "QWEN_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    folder = home / ".pi" / "agent" / "sessions" / "--work--"
    folder.mkdir(parents=True)
    files = [folder / f"2026-12-01_{n}.jsonl" for n in range(sessions)]
    for path in files:
        shutil.copy(SAMPLES / "pi-coding-session.jsonl", path)
    store = tmp_path / "store.db"
    with Store(store) as s:
        assert scan(s).baseline
    lines = [json.loads(line) for line in files[0].read_text().splitlines()]
    middle = [v["id"] for v in lines if v.get("type") == "message"][len(lines) // 2]  # pi kept half the session
    for n, path in enumerate(files):
        last = json.loads(path.read_text().splitlines()[-1])["id"]
        record = {"type": "compaction", "id": f"f0und00{n}", "parentId": last, "timestamp": "2026-12-01T10:00:00Z"}
        record |= {"summary": f"pi's own summary {n}", "firstKeptEntryId": middle, "tokensBefore": 12345}
        with path.open("a") as handle:
            handle.write(json.dumps(record) + "\n")
            parent = record["id"]
            for k, role in enumerate(("user", "assistant")):  # pi went on after its compaction
                message = {"role": role, "content": [{"type": "text", "text": f"went on {k}"}], "timestamp": 1796000000}
                line = {"type": "message", "id": f"0a0a0a{n}{k}", "parentId": parent, "timestamp": "2026-12-01T10:01Z"}
                handle.write(json.dumps({**line, "message": message}) + "\n")
                parent = line["id"]
    with Store(store) as s:
        found = scan(s).items
    # the first items the inbox made, whatever else drew random ids (proposal ids, entry ids) on the way
    assert sorted(item.id for item in found) == [f"f0{n:06d}" for n in range(sessions)]
    return store, files, middle


async def _open_first(pilot: Pilot[None]) -> None:
    await settle(pilot)
    await type_keys(pilot, "f")  # the sessions screen's key for what was found after the fact
    await settle(pilot)
    await type_keys(pilot, "\r")
    await settle(pilot)
    await pilot.pause(0.1)  # the table's header repaints once its rows are in
    await settle(pilot)


async def test_f_lists_the_found_compaction_and_enter_opens_pis_own_cut_to_rewrite_and_accept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, [session], middle = _found(tmp_path, monkeypatch)
    before = session.read_bytes()
    app = test_app(store)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await type_keys(pilot, "f")
        await settle(pilot)
        assert type(app.screen).__name__ == "FoundItemsScreen"
        listed: DataTable[object] = app.screen.query_one(DataTable)
        assert listed.row_count == 1
        assert "pi's own summary 0" in str(listed.get_row_at(0)[3])
        await type_keys(pilot, "\r")
        await settle(pilot)
        assert type(app.screen).__name__ == "FoundItemScreen"
        title = str(app.screen.query_one("#found-item-title").render())
        assert title.startswith(f"pi compacted on its own · cut at entry {middle} · 12,345 tokens before · ")
        messages: DataTable[object] = app.screen.query_one("#found-item-messages", DataTable)
        parts = [str(messages.get_row_at(n)[0]) for n in range(messages.row_count)]
        assert parts and parts[0] == "summarized" and parts[-1] == "kept"
        assert parts == sorted(parts, key=lambda p: p != "summarized")  # what pi summarized, then what it kept
        editor = app.screen.query_one("#found-item-summary")
        assert editor.text == "pi's own summary 0"  # type: ignore[attr-defined]
        await type_keys(pilot, "a")  # pi's own summary again: nothing to write, and it says so
        await settle(pilot)
        assert "write a better one first" in [n.message for n in app._notifications][-1]
        assert session.read_bytes() == before
        await type_keys(pilot, "e")
        await type_keys(pilot, "MARK-BETTER ")
        await pilot.press("escape")  # leaves the editor, not the screen
        assert type(app.screen).__name__ == "FoundItemScreen"
        await type_keys(pilot, "c")  # compare pi's summary and the edited one
        await settle(pilot)
        assert type(app.screen).__name__ == "DiffScreen"
        diff = str(app.screen.query_one("#diff-body").render())
        assert "-pi's own summary 0" in diff and "+MARK-BETTER pi's own summary 0" in diff
        await type_keys(pilot, "q")  # closes the diff
        await settle(pilot)
        assert type(app.screen).__name__ == "FoundItemScreen"
        await type_keys(pilot, "a")
        await settle(pilot)
        told = [n.message for n in app._notifications][-1]
        assert told.startswith("accepted ") and "written back to" in told, told
        assert type(app.screen).__name__ == "FoundItemsScreen"
        assert app.screen.query_one(DataTable).row_count == 0
    written = session.read_bytes()
    assert written.startswith(before) and b"MARK-BETTER pi's own summary 0" in written[len(before) :]
    with Store(store) as s:
        [item] = Inbox(s).listing(everything=True)
        assert item.status == "accepted" and item.draft == "MARK-BETTER pi's own summary 0"


async def test_d_dismisses_a_found_compaction_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, [session], _ = _found(tmp_path, monkeypatch)
    before = session.read_bytes()
    app = test_app(store)
    async with app.run_test(size=(120, 30)) as pilot:
        await _open_first(pilot)
        await type_keys(pilot, "d")
        await settle(pilot)
        assert [n.message for n in app._notifications][-1].endswith(": nothing written")
    assert session.read_bytes() == before
    with Store(store) as s:
        assert [i.shown_status() for i in Inbox(s).listing(everything=True)] == ["dismissed"]


@pytest.mark.parametrize("size", SIZES)
def test_the_list_of_compactions_found_after_the_fact(
    snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    store, _, _ = _found(tmp_path, monkeypatch, sessions=2)
    with Store(store) as s, s.database.transaction() as conn:  # fixed times for the picture
        conn.execute("UPDATE inbox SET created_at = '2026-11-30T09:00:00.000Z'")

    async def before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await type_keys(pilot, "f")
        await settle(pilot)
        await pilot.pause(0.1)
        await settle(pilot)

    assert snap_compare(test_app(store), run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_a_found_compaction_opened_for_audit(
    snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    store, _, _ = _found(tmp_path, monkeypatch)
    assert snap_compare(test_app(store), run_before=_open_first, terminal_size=size)


async def test_the_palette_lists_the_found_compactions_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store, _, _ = _found(tmp_path, monkeypatch)
    app = test_app(store)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await type_keys(pilot, "\x10")  # ctrl+p
        await settle(pilot)
        await type_keys(pilot, "made on their own")
        await pilot.pause(0.3)
        await type_keys(pilot, "\r")
        await settle(pilot)
        assert type(app.screen).__name__ == "FoundItemsScreen"
        await pilot.pause(0.1)
        await settle(pilot)
        assert app.screen.query_one(DataTable).row_count == 1
