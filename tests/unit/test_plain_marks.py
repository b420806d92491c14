"""The path window's plain marks (`PathWindow.plain`) are told by GLOB, with the answer instr gave.

Why GLOB: the marks read every message's stored line (~100 MB at 100,000 entries) and
SQLite's `instr` compares at every byte, where `GLOB '*needle*'` skips to the needle's
first character: the cold plan's window query of an uncompacted 100k pi file went from
~0.27 to ~0.17 s CPU. The two agree on every text without a NUL character (GLOB stops at
one); a stored line never holds one, since no JSON reader takes it.
"""

from __future__ import annotations

import random
import re
import sqlite3
from pathlib import Path

import pytest

from cutline.core.store import Store
from cutline.core.store.sessions import _PATH_WINDOW, _PATH_WINDOW_BY_MODEL, _PLAIN_CASE, Sessions
from tests.support.cli import run
from tests.support.pi_compactions import write_pi_session

# the marks told by instr, as before (but for a toolResult, plain whatever its line holds), which GLOB must give
_INSTR_CASE = r"""CASE WHEN type = 'message' AND role = 'toolResult' THEN 1
        WHEN type = 'message' AND role IN ('assistant', 'user')
            AND instr(raw, 'continuesMessage') = 0 AND instr(raw, '\u') = 0
            AND instr(coalesce(model_json, ''), 'continuesMessage') = 0 AND instr(coalesce(model_json, ''), '\u') = 0
            AND (role <> 'user' OR (instr(raw, 'image') = 0 AND instr(coalesce(model_json, ''), 'image') = 0))
        THEN 1 ELSE 0 END"""
_INSTR_BY_MODEL = (
    "CASE WHEN type = 'message' AND role IN ('assistant', 'toolResult') THEN 1"
    r" WHEN type = 'other' AND instr(coalesce(model_json, ''), 'context_edit') = 0"
    r" AND instr(coalesce(model_json, ''), '\u') = 0 AND coalesce(model_json, '') <> '' THEN 2 ELSE "
    + _INSTR_CASE
    + " END"
)

# pieces a line is made of: the needles whole, cut, in another case, next to GLOB's own metacharacters
_PIECES = [
    "continuesMessage",
    "continues",
    "Message",
    "continuesmessage",
    "CONTINUESMESSAGE",
    "image",
    "imag",
    "mage",
    "Image",
    "IMAGE",
    "context_edit",
    "context",
    "_edit",
    "contextXedit",
    "\\u",
    "\\",
    "u",
    "\\U",
    "\\\\u",
    "\\u0069mage",
    "*",
    "?",
    "[",
    "]",
    "[image]",
    "%",
    "_",
    "é",
    "日本",
    "😀",
    '"',
    "{",
    "}",
    " ",
    "x",
]


def _text(rng: random.Random) -> str | None:
    if rng.random() < 0.05:
        return None
    return "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 6)))


def _marks(conn: sqlite3.Connection, case: str) -> list[int]:
    return [row[0] for row in conn.execute(f"SELECT {case} FROM entries ORDER BY rowid")]


def test_the_glob_marks_are_the_instr_marks_on_any_line_and_model() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE entries (type TEXT, role TEXT, raw TEXT, model_json TEXT)")
    rng = random.Random(24)
    kinds = ["message", "message", "message", "other", "compaction", "custom"]
    roles = ["user", "assistant", "toolResult", "system", None]
    rows = [(rng.choice(kinds), rng.choice(roles), _text(rng) or "", _text(rng)) for _ in range(20_000)]
    conn.executemany("INSERT INTO entries VALUES (?, ?, ?, ?)", rows)
    by_model = _PATH_WINDOW_BY_MODEL[_PATH_WINDOW_BY_MODEL.index("CASE") : _PATH_WINDOW_BY_MODEL.rindex(" FROM")]
    glob, instr = _marks(conn, _PLAIN_CASE), _marks(conn, _INSTR_CASE)
    assert glob == instr
    assert _marks(conn, by_model) == _marks(conn, _INSTR_BY_MODEL)
    assert 0 < sum(glob) < len(glob)  # both answers met
    assert sum(1 for m in _marks(conn, by_model) if m == 2) > 0


def test_the_window_queries_read_no_line_with_instr() -> None:
    """instr over every stored line was ~0.1 s of a cold plan of 100,000 entries (main had four such tests)."""
    for query in (_PATH_WINDOW, _PATH_WINDOW_BY_MODEL):
        assert not re.search(r"instr\((coalesce\()?(raw|model_json)", query), query


def test_a_line_holding_a_nul_is_never_a_stored_line(tmp_path: Path) -> None:
    """GLOB stops at a NUL where instr reads on: no stored line may hold one (no JSON reader takes it)."""
    header = '{"type":"session","version":3,"id":"nul-session","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/x"}'
    lines = [header]
    parent = None
    for n in range(6):
        role = "user" if n % 2 == 0 else "assistant"
        text = "a\x00continuesMessage image \\u" if n == 2 else f"turn {n}"
        parent_field = "null" if parent is None else f'"{parent}"'
        lines.append(
            f'{{"type":"message","id":"e{n}","parentId":{parent_field},"timestamp":"2026-01-01T00:00:0{n}.000Z",'
            f'"message":{{"role":"{role}","content":[{{"type":"text","text":"{text}"}}],"timestamp":{n}}}}}'
        )
        parent = f"e{n}"
    file = tmp_path / "nul.jsonl"
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Store(tmp_path / "s.db") as store:
        store.import_file(file)
        stored = store.conn.execute("SELECT count(*), sum(instr(raw, char(0)) > 0) FROM entries").fetchone()
    assert stored[0] >= 5
    assert not stored[1]


def test_a_tool_result_is_plain_whatever_its_line_holds_and_plans_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """toolResult lines with `continuesMessage`, a \\u escape and an image: taken from their facts, the same plans.

    Their facts are never a cut point nor a turn start and their images count in chars4 as in
    current pi's estimate; main read each such line as an entry (its marks were 0).
    """
    file = write_pi_session(tmp_path / "results.jsonl", every=0, seed=11)
    lines = file.read_text(encoding="utf-8").splitlines()
    changed: list[str] = []
    for n, line in enumerate(lines):
        if '"role":"toolResult"' not in line:
            continue
        kind = len(changed) % 3
        if kind == 0:
            line = line.replace('"message":{', '"message":{"continuesMessage":true,', 1)
        elif kind == 1:
            line = line.replace('"text":"', '"text":"caf\\u00e9 ', 1)
        else:
            image = '{"type":"image","data":"aGk=","mimeType":"image/png"},'
            line = line.replace('"content":[', '"content":[' + image, 1)
        lines[n] = line
        changed.append(line.split('"id":"', 1)[1].split('"', 1)[0])
    assert len(changed) > 12
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Store(tmp_path / "marks.db") as store:
        session_id = str(store.import_file(file).session_id)
        window = store.sessions.path_window(session_id, lazy=True)
        assert window is not None and window.plain is not None
        marks = {window.ids[i]: window.plain[i] for i in range(len(window))}
    assert [marks[entry_id] for entry_id in changed] == [1] * len(changed)
    for extra in (
        ["--json", "--keep-recent-tokens", "1500", "--entry-tokens"],
        ["--json"],
        ["--keep-recent-tokens", "800"],
    ):
        windowed = run(capsys, "plan", *extra, "--db", str(tmp_path / f"w{len(extra)}.db"), str(file))
        with monkeypatch.context() as patched:
            patched.setattr(Sessions, "path_window", lambda self, *a, **k: None)
            whole = run(capsys, "plan", *extra, "--db", str(tmp_path / f"f{len(extra)}.db"), str(file))
        assert windowed == whole, extra
        assert windowed[0] == 0, windowed[2]
