"""A Claude Code or Codex import builds no pydantic entry for the records it keeps as "other" (`entries.OtherEntry`).

Why: the agents' bookkeeping records (Claude Code's request logs, queue and cost records;
Codex's events, usage records and turn settings: 29,410 and 36,110 of the grown 50k
sessions' records) were each validated into an `Entry` only to be serialized again for
its row. Counted here, at n and 4n records of sessions grown from the real programs'
files: the entries validated (`Entry.model_validate`) against the rows stored as "other"
and the rest. Main validated every record (the "other" ones included); now only the rest.
The stored rows are the same either way: `test_other_entry_writes_the_model_s_json` below,
and the row-by-row comparisons of the streamed and whole-file imports (`test_store_streamed`,
`test_grown_stream`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cutline.core.agents.entries import OtherEntry, build_entry, other_entry
from cutline.core.agents.jsonl import NotStreamable
from cutline.core.models import Entry
from cutline.core.store import Store
from cutline.core.store.rows import model_json
from tests.support.grown_sessions import grow
from tests.support.session_files import files_of


def _validated(agent: str, records: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, int]:
    """(entries validated while importing a grown session of `records`, its rows stored as "other", its other rows)."""
    path = grow(agent, records, tmp_path / f"{agent}-{records}.jsonl")
    validated = 0
    validate = Entry.model_validate.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Entry], *args: Any, **kwargs: Any) -> Entry:
        nonlocal validated
        validated += 1
        result: Entry = validate(cls, *args, **kwargs)
        return result

    with monkeypatch.context() as patch:
        patch.setattr(Entry, "model_validate", classmethod(counting))
        with Store(tmp_path / f"store-{agent}-{records}.db") as store:
            report = store.import_file(path)
            kinds = dict(
                store.conn.execute(
                    "SELECT type = 'other', count(*) FROM entries WHERE session_id = ? GROUP BY 1", (report.session_id,)
                ).fetchall()
            )
    return validated, kinds.get(1, 0), kinds.get(0, 0)


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_an_import_validates_no_entry_for_its_other_records(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    validated_n, other_n, rest_n = _validated(agent, 500, tmp_path, monkeypatch)
    validated_4n, other_4n, rest_4n = _validated(agent, 2000, tmp_path, monkeypatch)
    assert other_n > 100 and other_4n > 4 * 100  # the grown sessions hold many bookkeeping records
    # main: every record validated (500 / 2000), the "other" ones included
    assert (validated_n, validated_4n) == (rest_n, rest_4n)


_SHAPED: dict[str, Any] = {
    "id": "a1",
    "parentId": None,
    "type": "other",
    "timestamp": "2026-01-01T00:00:00.000Z",
    "sourceType": "progress",
    "isSidechain": False,
    "isMeta": True,
    "line": 3,
    "raw_line": "{}",
}
# values pydantic-core writes its own way: floats past 1e16 (`1e+16`), inf and NaN (null), big ints, escapes, non-ASCII
_DATA: list[Any] = [
    {},
    {"n": 1e16, "m": -2.5e-7, "k": 0.1, "big": 2**70, "neg": -(2**64), "inf": float("inf"), "nan": float("nan")},
    {"s": 'caf\u00e9 \u2028 \x00 \x1f \x7f "q" \\ / \U0001f600', "deep": [[[{"a": [None, True, False]}]]]},
    {"nested": {"x": [1, 2.0, "3"], "y": {"z": {}}}},
]


@pytest.mark.parametrize("data", _DATA)
def test_other_entry_writes_the_model_s_json(data: dict[str, Any]) -> None:
    shaped = {**_SHAPED, "data": data}
    light = other_entry(dict(shaped))
    assert light is not None
    assert light.stored.decode() == model_json(build_entry(dict(shaped), "f", []))


def test_other_entry_refuses_what_it_does_not_mirror() -> None:
    """A field of another type or an unknown key is left to validation (which may coerce or keep it as an extra)."""
    base = {**_SHAPED, "data": {}}
    assert other_entry({**base, "line": True}) is None
    assert other_entry({**base, "timestamp": 5}) is None
    assert other_entry({**base, "extra": 1}) is None
    assert other_entry({**base, "type": "message"}) is None
    assert other_entry({**base, "data": {1: "x"}}) is None
    deep: Any = []
    for _ in range(1000):
        deep = [deep]
    assert other_entry({**base, "data": {"deep": deep}}) is None  # past pydantic-core's nesting


def _handed(path: Path) -> tuple[list[Any], set[int]]:
    """The entries a reading for an import hands on (streamed for Claude Code), and the places of those it amends after."""
    from cutline.core.agents import read_session, read_streamed
    from cutline.core.agents.claude_code import ADAPTER
    from cutline.core.agents.formats import head_format

    handed: list[Any] = []
    amended: set[int] = set()
    if head_format(path) == "claude_code":
        try:
            read_streamed(
                path, ADAPTER, sink=lambda entry, _: handed.append(entry), amend=lambda at, _: amended.add(at)
            )
            return handed, amended
        except NotStreamable:
            handed.clear()
            amended.clear()
    read_session(path, sink=lambda entry, _: handed.append(entry), keep=False)
    return handed, amended


@pytest.mark.parametrize("path", files_of("claude_code", "codex"), ids=lambda p: f"{p.parent.name}-{p.name}")
def test_every_other_record_of_the_files_writes_the_model_s_json(path: Path) -> None:
    """Each "other" record of the samples and fixtures, handed on light, carries the bytes its validated entry serializes to."""
    from cutline.core.agents import read_session

    handed, amended = _handed(path)
    kept = read_session(path).entries
    assert [e.id for e in handed] == [e.id for e in kept]
    light = [(at, e) for at, e in enumerate(handed) if isinstance(e, OtherEntry)]
    assert len(light) == sum(e.type == "other" for e in kept)  # every record kept as "other" is handed on light
    for at, entry in light:
        if at not in amended:  # (an amended row is rewritten from its stored model: the store tests compare those)
            assert entry.stored.decode() == model_json(kept[at])
