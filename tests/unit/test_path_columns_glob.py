"""The tokens / timeline path query tells a maybe-isMeta user line by GLOB as it did by instr: the same marks.

`Sessions.path_columns` reads every user message's line for `isMeta` or a `\\u` escape
(Claude Code and Codex: the stored model for `"isMeta":true`). `GLOB '*needle*'` answers as
`instr(...) > 0` does (no needle holds GLOB's `*?[`, both match case by case, a stored line
holds no NUL) and skips ahead to the needle's first character. Checked against instr on
every fixture and sample session and on lines made to tempt a difference (the needle's case
changed, GLOB's own characters around it, a bare backslash).
"""

from __future__ import annotations

import json
from pathlib import Path

from cutline.core.errors import CutlineError
from cutline.core.store import Store
from cutline.core.store.sessions import _PATH_COLUMNS, _PATH_COLUMNS_BY_MODEL
from tests.support.session_files import SESSION_FILES

_INSTR = r"""
    SELECT id, type, role, facts,
        CASE WHEN type = 'message' AND role = 'user' THEN instr(raw, 'isMeta') > 0 OR instr(raw, '\u') > 0 ELSE 0 END
    FROM entries WHERE session_id = ? AND path_index IS NOT NULL ORDER BY path_index
"""
_INSTR_BY_MODEL = r"""
    SELECT id, type, role, facts,
        CASE WHEN type = 'message' AND role = 'user' THEN instr(model_json, '"isMeta":true') > 0 ELSE 0 END
    FROM entries WHERE session_id = ? AND path_index IS NOT NULL ORDER BY path_index
"""


def _tempting(path: Path) -> Path:
    """A pi session whose user lines hold the needles in other cases and among GLOB's own characters."""
    header = {"type": "session", "version": 3, "id": "glob-test", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/"}
    texts = [
        "ISMETA",
        "ismeta",
        "is*Meta",
        "[isMeta]",
        "isMet?a",
        "a \\ b",
        "\\\\u",
        "\u00e9",
        "plain",
        "*?[",
        "isMeta",
    ]
    lines = [json.dumps(header)]
    parent = None
    for n, text in enumerate(texts):
        entry = {
            "type": "message",
            "id": f"e{n}",
            "parentId": parent,
            "timestamp": "2026-01-01T00:00:01Z",
            "message": {"role": "user", "content": text, "timestamp": 1},
        }
        lines.append(json.dumps(entry, ensure_ascii=n % 2 == 0))
        parent = f"e{n}"
    lines.append(
        '{"type":"message","id":"m","parentId":"e10","timestamp":"x","isMeta":true,"message":{"role":"user","content":"x"}}'
    )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_glob_marks_what_instr_marks(tmp_path: Path) -> None:
    marked = 0
    with Store(tmp_path / "db") as store:
        for file in [*SESSION_FILES, _tempting(tmp_path / "tempting.jsonl")]:
            try:
                session_id = store.import_file(file).session_id
            except CutlineError:  # a fixture that is no session is nothing to compare
                continue
            for glob, instr in ((_PATH_COLUMNS, _INSTR), (_PATH_COLUMNS_BY_MODEL, _INSTR_BY_MODEL)):
                got = [tuple(row) for row in store.conn.execute(glob, (session_id,))]
                want = [tuple(row) for row in store.conn.execute(instr, (session_id,))]
                assert got == want, file
                marked += sum(1 for row in got if row[4])
    assert marked > 10
