"""Streaming import: entries rebuilt from their stored line, counts made while importing, the reader's sink."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cutline.core.agents import read_session
from cutline.core.store import Store
from cutline.core.store.token_counts import count_entries
from cutline.core.tokens import entry_tokens, get_counter
from tests.support.paths import SAMPLES
from tests.support.sessions import generate

SAMPLE_FILES = sorted(SAMPLES.glob("*.jsonl"))


@pytest.fixture
def store() -> Store:
    with Store() as opened:
        yield opened


def _chars4(entry) -> int:
    return entry_tokens(entry, get_counter("chars4"))


@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=lambda p: p.stem)
def test_a_streamed_import_loads_back_equal_to_the_file_as_read(store: Store, sample: Path) -> None:
    report = store.import_file(sample)
    expected = read_session(sample)
    expected.id = report.session_id
    assert store.load_session(report.session_id) == expected


def test_pi_message_lines_are_stored_without_a_model_and_the_rest_with_one(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    header = {"type": "session", "version": 3, "id": "odd-1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/w"}
    plain = {
        "type": "message",
        "id": "m1",
        "parentId": None,
        "timestamp": "2025-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "hello"}], "timestamp": 1},
    }
    # string content: pydantic rejects it as written, so the general path shapes it
    shaped = {
        "type": "message",
        "id": "m2",
        "parentId": "m1",
        "timestamp": "2025-01-01T00:00:02.000Z",
        "message": {"role": "user", "content": "as a string", "timestamp": 2},
    }
    label = {"type": "label", "id": "l1", "parentId": "m2", "timestamp": "2025-01-01T00:00:03.000Z", "label": "x"}
    path.write_text("".join(json.dumps(v, separators=(",", ":")) + "\n" for v in (header, plain, shaped, label)))
    report = store.import_file(path)
    stored = dict(store.conn.execute("SELECT id, model_json FROM entries WHERE session_id = ?", (report.session_id,)))
    assert stored["m1"] == ""
    assert json.loads(stored["m2"])["message"]["contentWasString"] is True
    assert json.loads(stored["l1"])["type"] == "label"
    loaded = store.load_session(report.session_id)
    assert [e.message.text() for e in loaded.entries[:2]] == ["hello", "as a string"]
    expected = read_session(path)
    assert loaded.entries == expected.entries


def test_import_and_read_counts_while_importing_and_caches_the_counts(store: Store, tmp_path: Path) -> None:
    path = generate(tmp_path / "big.jsonl", 300)
    opened = store.import_and_read(path, _chars4)
    assert opened.report.status == "imported"
    assert opened.session.id == opened.report.session_id
    expected = {e.id: _chars4(e) for e in read_session(path).entries}
    assert opened.counts == expected
    assert store.token_counts(opened.report.session_id, "chars4") == expected
    # the cache now answers: count_entries counts nothing (a counter that would fail is never called)
    assert count_entries(store, opened.session, "chars4") == expected
    again = store.import_and_read(path, _chars4)
    assert again.report.unchanged and again.counts is None
    assert again.session.entries == opened.session.entries


def test_a_failing_count_still_imports_and_caches_nothing(store: Store, tmp_path: Path) -> None:
    path = generate(tmp_path / "big.jsonl", 120)

    def failing(entry) -> int:
        raise RuntimeError("counter broke")

    with pytest.raises(RuntimeError, match="counter broke"):
        store.import_and_read(path, failing)
    (info,) = store.list_sessions()
    assert info.entries == 120
    assert store.token_counts(info.id, "chars4") == {}


def test_the_reader_streams_every_entry_to_its_sink_even_when_it_keeps_none(tmp_path: Path) -> None:
    path = generate(tmp_path / "big.jsonl", 200)
    seen: list[tuple[str, bool]] = []
    session = read_session(path, sink=lambda entry, from_line: seen.append((entry.id, from_line)), keep=False)
    full = read_session(path)
    assert session.entries == []
    assert [entry_id for entry_id, _ in seen] == [e.id for e in full.entries]
    assert (session.leaf_id, session.name, session.problems) == (full.leaf_id, full.name, full.problems)
    # only pi's own message lines come from the fast path
    assert {from_line for _, from_line in seen} == {True, False}
    assert all(e.type == "message" for (_, fast), e in zip(seen, full.entries) if fast)


def test_a_spaced_file_takes_the_fast_path_and_reads_as_its_compact_twin(store: Store, tmp_path: Path) -> None:
    """`json.dumps` spacing (`{"type": "message", ...}`) must not send every line down the general path."""
    compact = generate(tmp_path / "compact.jsonl", 40)
    spaced = tmp_path / "spaced.jsonl"
    spaced.write_text(
        "".join(json.dumps(json.loads(line), ensure_ascii=False) + "\n" for line in compact.read_text().splitlines()),
        encoding="utf-8",
    )
    report = store.import_file(spaced)
    models = [m for (m,) in store.conn.execute("SELECT model_json FROM entries WHERE type = 'message'")]
    assert models and all(m == "" for m in models)  # rebuilt from the line: the fast path made them
    loaded = store.load_session(report.session_id)
    twin = read_session(compact)
    assert [e.model_dump(exclude={"raw_line"}) for e in loaded.entries] == [
        e.model_dump(exclude={"raw_line"}) for e in twin.entries
    ]
    assert [e.raw_line for e in loaded.entries] == spaced.read_text().splitlines()[1:]


def test_the_session_row_keeps_its_path_total_so_listing_reads_no_entries(store: Store, tmp_path: Path) -> None:
    """`ls` shows each session's chars4 path total from its row; it follows cached counts and a grown file."""
    path = generate(tmp_path / "s.jsonl", 30)
    report = store.import_file(path, count_tokens=False)
    (stored,) = store.conn.execute("SELECT path_tokens FROM sessions WHERE id = ?", (report.session_id,)).fetchone()
    assert stored is None and store.list_sessions()[0].tokens is None  # nothing counted yet
    session = store.load_session(report.session_id)
    counts = count_entries(store, session, "chars4")
    expected = sum(counts[e.id] for e in session.active_path())
    assert store.conn.execute("SELECT path_tokens FROM sessions").fetchone()[0] == expected
    assert store.list_sessions()[0].tokens == expected
    lines = path.read_text().splitlines()
    extra = json.loads(lines[-1])
    extra.update(id="grown-1", parentId=extra["id"])
    path.write_text("\n".join([*lines, json.dumps(extra)]) + "\n")
    grown = store.import_and_read(path, _chars4)
    assert grown.report.grown
    total = sum(_chars4(e) for e in grown.session.active_path())
    assert store.list_sessions()[0].tokens == total


@pytest.mark.parametrize(
    "text",
    ["", "\n", "a", "a\n", "a\nb", "a\nb\n", "\n\n", "ab\ncd\nef\n\ngh", "abcdef", "abc\n" * 7, "a" * 9 + "\n"],
)
@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 100])
def test_split_text_in_chunks_is_str_split(text: str, chunk: int) -> None:
    from cutline.core.agents.jsonl import split_text

    assert split_text(text, chunk) == text.split("\n")
