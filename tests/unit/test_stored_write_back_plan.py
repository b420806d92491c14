"""Whether a windowed session can be written back is told from its header and stored facts, as from the whole session.

Why: `compact` of a 100,000-entry pi file plans and summarizes from a window of its stored
path, then read the whole session (~1 GB) only to say whether and how it can be written
back; so did a 50,000-record Claude Code transcript (~650 MB) and a Codex rollout. Every
pi, Claude Code and Codex file of the fixtures and samples, the generated pi sessions and
files the writers refuse (no trailing newline, a last record without its uuid, lines
without `ordinal`) give the same answer both ways.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cutline.core.agents.peek import session_header
from cutline.core.session_writes import stored_write_back_plan, write_back_plan
from cutline.core.store import Store
from cutline.core.store.sessions import Sessions
from tests.support.cli import run
from tests.support.grown_sessions import grow
from tests.support.paths import ROOT
from tests.support.pi_compactions import write_pi_session
from tests.support.session_files import GENERATED_PI, SESSION_FILES, files_of
from tests.support.whole_reads import count_whole_reads

PI_FILES = [p for p in SESSION_FILES if (h := session_header(p)) is not None and h.get("version") != 4]
AGENT_FILES = files_of("claude_code", "codex")


def _both(file: Path) -> tuple[object, object]:
    with Store() as store:
        session_id = store.import_file(file).session_id
        stored = stored_write_back_plan(store, store.sessions.header(session_id))
        whole = write_back_plan(store.load_session(session_id))
    return stored, whole


@pytest.mark.parametrize("file", PI_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_pi_file_gives_the_same_plan_from_its_header(file: Path, tmp_path: Path) -> None:
    copy = tmp_path / file.name
    shutil.copyfile(file, copy)
    stored, whole = _both(copy)
    if stored is None:  # a file before version 3: its migration reads the entries
        assert (session_header(copy) or {}).get("version", 1) < 3
        return
    assert stored == whole


@pytest.mark.parametrize("kind", sorted(GENERATED_PI))
def test_generated_pi_sessions_give_the_same_plan(kind: str, tmp_path: Path) -> None:
    file = write_pi_session(tmp_path / f"{kind}.jsonl", **GENERATED_PI[kind])
    stored, whole = _both(file)
    assert stored is not None and stored == whole
    if GENERATED_PI[kind].get("current_pi"):
        assert "systemMessage" in str(whole)


def test_a_file_without_its_last_newline_is_refused_both_ways(tmp_path: Path) -> None:
    file = write_pi_session(tmp_path / "cut.jsonl", seed=11)
    file.write_bytes(file.read_bytes().rstrip(b"\n"))
    stored, whole = _both(file)
    assert stored == whole
    assert stored is not None and not stored.possible and "newline" in (stored.reason or "")


def test_compact_says_the_write_back_without_loading_the_whole_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    file = write_pi_session(tmp_path / "long.jsonl", every=0, seed=6)

    def whole(self: Sessions, ref: str) -> object:
        raise AssertionError("the whole session was loaded")

    monkeypatch.setattr(Sessions, "load", whole)
    code, out, err = run(capsys, "compact", "--keep-recent-tokens", "2000", str(file))
    assert code == 0, err
    assert "write-back: possible with `accept --write-back` (pi v3)" in out


@pytest.mark.parametrize("file", AGENT_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_claude_code_and_codex_file_gives_the_same_plan_from_stored_facts(file: Path, tmp_path: Path) -> None:
    """Claude Code: the stored path's last record; Codex: the rollout's last line (main: None, read whole)."""
    copy = tmp_path / file.name
    shutil.copyfile(file, copy)
    stored, whole = _both(copy)
    assert stored is not None
    assert stored == whole


def test_the_corpus_holds_claude_code_and_codex_files_of_both_answers() -> None:
    assert len(AGENT_FILES) >= 40, len(AGENT_FILES)


def _rewrite_last(file: Path, change: Any) -> None:
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    record = json.loads(lines[-1])
    change(record)
    lines[-1] = json.dumps(record) + "\n"
    file.write_text("".join(lines), encoding="utf-8")


def test_a_claude_code_transcript_without_uuids_is_refused_both_ways(tmp_path: Path) -> None:
    """No record has a uuid: the path's last record is the file's last, with an id cutline made."""
    file = grow("claude-code", 40, tmp_path / "cc.jsonl")
    records = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines()]
    for record in records:
        record.pop("uuid", None)
    file.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    stored, whole = _both(file)
    assert stored == whole
    assert stored is not None and not stored.possible and "uuid" in (stored.reason or "")


@pytest.mark.parametrize(("ordinal", "possible"), [(None, False), ("7", False), (7.0, False), (True, None), (12, True)])
def test_a_codex_last_line_s_ordinal_gives_the_same_plan(
    ordinal: object, possible: bool | None, tmp_path: Path
) -> None:
    """No ordinal, a string, a float: refused; a boolean passes the last line's test but is no number (read whole)."""
    file = grow("codex", 40, tmp_path / "codex.jsonl")

    def change(record: dict[str, Any]) -> None:
        record.pop("ordinal", None)
        if ordinal is not None:
            record["ordinal"] = ordinal

    _rewrite_last(file, change)
    stored, whole = _both(file)
    if possible is None:  # told only by the header's own ordinal, which a Codex 0.16x rollout has
        assert stored is None or stored == whole
        return
    assert stored == whole
    assert stored is not None and stored.possible is possible


def test_has_last_ordinal_reads_the_other_lines_only_for_a_boolean_one() -> None:
    from cutline.core.agents.codex.compaction import has_last_ordinal
    from cutline.core.models import Entry

    def last(ordinal: object) -> Entry:
        return Entry.model_construct(id="x", type="other", raw_line=json.dumps({"ordinal": ordinal}))

    assert has_last_ordinal('{"ordinal": 1}', last(True)) is True
    assert has_last_ordinal('{"type": "session_meta"}', last(True)) is None
    assert has_last_ordinal('{"type": "session_meta"}', last(3)) is True
    assert has_last_ordinal('{"ordinal": 1}', last(None)) is False
    assert has_last_ordinal('{"ordinal": 1}', None) is True


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_compact_of_claude_code_and_codex_says_the_write_back_without_loading_the_whole_session(
    agent: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The text `compact` (the write-back line; `--json` has none): no `Sessions.load`, no whole-file read."""
    file = grow(agent, 300, tmp_path / f"{agent}.jsonl")
    whole = count_whole_reads(monkeypatch)
    code, out, err = run(capsys, "compact", "--keep-recent-tokens", "2000", str(file))
    assert code == 0, err
    assert "write-back: possible with `accept --write-back`" in out
    assert whole == [], whole
