"""What a new pi file's streamed import does once per entry, counted at n and 4n entries, and what it no longer does.

Why: a 100,000-entry import is ~2x a process that only parses the lines and inserts them;
what is left of cutline's own work is per entry, so each step taken out of it counts:
- the chars4 counts are cached by one statement (SQLite reads them from one JSON
  object), not one bound row each (~0.2 s -> ~0.1 s per 100,000 entries);
- the keys are the ids when no id repeats (`keys_of` built a dict of every id to tell);
- a message line's prefix is told by `str.startswith` before the pattern (~6x faster);
- a non-ASCII text's JavaScript length is told by its size in memory where no character
  can be a surrogate pair, without encoding it to UTF-16.
The rows stored are the same (tests/unit/test_store_streamed.py compares every file's
rows with the whole-file import's); here the counts, and the counts' rows either way.
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from cutline.core.agents.pi import reader
from cutline.core.store import Store, streamed
from cutline.core.store.token_counts import _UPSERT, _upsert_all
from cutline.core.tokens.jsjson import js_length
from tests.support.sessions import generate
from tests.support.sql_trace import StatementCount


def _counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """Replace `owner.name` by a wrapper that counts its calls; the list's length is the count."""
    calls: list[int] = []
    original: Callable[..., Any] = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def _import(path: Path, store_path: Path) -> tuple[int, int]:
    """Import `path` into a new store: (the entries stored, the statements that cached their counts)."""
    with Store(store_path) as store:
        statements = StatementCount(store.conn, "INSERT OR REPLACE INTO token_counts")
        report = store.import_file(path)
        cached = store.conn.execute("SELECT count(*) FROM token_counts").fetchone()[0]
        assert cached == report.total  # every entry's count is cached
        return report.total, statements.runs


@pytest.mark.parametrize("entries", [250, 1000])
def test_the_counts_are_cached_by_one_statement(entries: int, tmp_path: Path) -> None:
    total, statements = _import(generate(tmp_path / "s.jsonl", entries), tmp_path / "store.db")
    assert total >= entries
    assert statements == 1  # main: one per entry (250 -> ~250, 1000 -> ~1000)


def test_the_keys_are_the_ids_unless_one_repeats(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    keyed = _counting(monkeypatch, streamed, "keys_of")
    path = generate(tmp_path / "s.jsonl", 400)
    _import(path, tmp_path / "store.db")
    assert keyed == []  # main: one call, over every id
    lines = path.read_text(encoding="utf-8").splitlines()
    repeated = json.loads(lines[5])
    repeated["parentId"] = json.loads(lines[-1])["id"]
    (tmp_path / "r.jsonl").write_text("\n".join([*lines, json.dumps(repeated)]) + "\n", encoding="utf-8")
    with Store(tmp_path / "store2.db") as store:
        report = store.import_file(tmp_path / "r.jsonl")
        keys = [key for (key,) in store.conn.execute("SELECT id FROM entries ORDER BY seq")]
    assert keyed == [1]
    assert f"{repeated['id']}~4" in keys and keys[-1] == repeated["id"] and report.total == len(lines)


@pytest.mark.parametrize("spaced", [False, True])
def test_a_message_line_s_prefix_is_told_without_the_pattern(
    spaced: bool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    matched = _counting(monkeypatch, reader, "_FAST_PREFIX")
    path = generate(tmp_path / "s.jsonl", 400)
    if spaced:
        values = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        path.write_text("".join(json.dumps(value) + "\n" for value in values), encoding="utf-8")
    messages = sum(
        1
        for line in path.read_text(encoding="utf-8").splitlines()
        if '"type": "message"' in line or '"type":"message"' in line
    )
    total, _ = _import(path, tmp_path / "store.db")
    assert messages > 300
    assert len(matched) < total - messages + 1  # the other lines alone; main: every line the fast path saw
    assert reader._message_line('{ "type" : "message"') and not reader._message_line('{"type":"messages"x')


def _rows(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    return conn.execute(
        "SELECT session_id, counter, entry_id, tokens, typeof(tokens) FROM token_counts ORDER BY 1, 2, 3"
    ).fetchall()


@pytest.mark.parametrize(
    "counts",
    [
        {"a": 1, "b": 0, "c": 12345678},
        {"é": 3, "日本": 4, "\U0001f600": 5, "x y": 6},
        {'q"uote': 1, "back\\slash": 2, "tab\t": 3, "nul\x00": 4, "plain": 5},  # escaped: one row at a time
        {"1": 1, "01": 2, "-2": 3, "true": 4},
    ],
)
def test_counts_cached_from_json_are_the_rows_bound_one_at_a_time(counts: dict[str, int]) -> None:
    """The statement over one JSON object stores exactly the rows the row-at-a-time statement stores."""
    stored = []
    for one_statement in (True, False):
        conn = sqlite3.connect(":memory:")
        conn.execute(
            "CREATE TABLE token_counts (session_id TEXT NOT NULL, entry_id TEXT NOT NULL, counter TEXT NOT NULL,"
            " tokens INTEGER NOT NULL, PRIMARY KEY (session_id, counter, entry_id)) WITHOUT ROWID"
        )
        conn.execute("INSERT INTO token_counts VALUES ('s', 'old', 'chars4', 9)")
        if one_statement:
            _upsert_all(conn, "s", "chars4", {**counts, "old": 7})
        else:
            conn.executemany(_UPSERT, [("s", key, "chars4", value) for key, value in {**counts, "old": 7}.items()])
        stored.append(_rows(conn))
    assert stored[0] == stored[1]
    assert len(stored[0]) == len(counts) + 1


def test_a_count_sqlite_cannot_bind_fails_as_it_did() -> None:
    """A lone surrogate, which msgspec refuses to write: the rows are bound one at a time, and binding it raises, as before."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE token_counts (session_id, entry_id, counter, tokens)")
    with pytest.raises(UnicodeEncodeError):
        _upsert_all(conn, "s", "chars4", {"ok": 1, "lone\ud800": 2})


def _encodings(fn: Callable[[], Any]) -> int:
    """How many times `fn` calls `str.encode` (a C call, seen by the profile hook)."""
    seen = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal seen
        if event == "c_call" and getattr(arg, "__name__", "") == "encode":
            seen += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return seen


def test_a_text_without_astral_characters_is_measured_without_encoding_it() -> None:
    """`js_length` of a non-ASCII text whose characters are all up to U+FFFF: no UTF-16 copy (main: one per text)."""
    texts = ["caf\xe9", "\u2014 dash", "\u65e5\u672c\u8a9e", "lone \ud800 surrogate", "\xe9" * 5000]
    lengths: list[int] = []
    assert _encodings(lambda: lengths.extend(js_length(text) for text in texts * 25)) == 0
    assert lengths == [len(text.encode("utf-16-le", "surrogatepass")) // 2 for text in texts * 25]
    assert _encodings(lambda: js_length("\U0001f600 smile")) == 1 and js_length("\U0001f600 smile") == 8


class _Text(str):
    """A str subclass: CPython keeps its characters apart from the object (its size is not the compact one's)."""


def test_js_length_is_the_utf16_length_of_every_kind_of_str() -> None:
    """Random texts of 1-, 2- and 4-byte characters, each also with its UTF-8 kept on it (as SQLite's binding leaves it)
    and as a str subclass: `js_length` is the length of the UTF-16 encoding."""
    rng = random.Random(11)
    conn = sqlite3.connect(":memory:")
    for top in (0x7F, 0xFF, 0xD7FF, 0xFFFF, 0x10FFFF):
        for _ in range(400):
            text = "".join(chr(rng.randint(0, top)) for _ in range(rng.randint(0, 60)))
            expected = len(text.encode("utf-16-le", "surrogatepass")) // 2
            assert js_length(text) == expected and js_length(_Text(text)) == expected
            if not any(0xD800 <= ord(c) <= 0xDFFF for c in text):
                conn.execute("SELECT ?", (text,))  # keeps the text's UTF-8 on it
                assert js_length(text) == expected
