"""`accept --write-back` told from the store's rows writes what the session read whole writes, and says the same refusals.

Why: the write-back (`session_writes.write_back`) and its drift warning loaded the whole
session (~620 MB at 50,000 Claude Code records, ~450 MB at 50,000 Codex lines) for its leaf,
its kept records, a few ids and (Codex) the highest `ordinal`. Every pi, Claude Code, Codex
and Qwen Code file of the samples and fixtures (and grown Claude Code / Codex sessions),
proposed with two keeps: the same proposal is accepted from one store as it is (stored
facts) and from a copy of it with the stored plan withheld (read whole, as before); the
file's bytes, the write-back's record, the decision and the notes are the same, or both
refuse with the same message. Sessions whose writer needs more than a stretch of the path
(pi before version 3 or written by current pi, other agents) are still read whole.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cutline.core import session_writes
from cutline.core.agents.registry import adapter_for
from cutline.core.errors import CutlineError
from cutline.core.store import Store
from cutline.core.store.sessions import Sessions
from tests.support.grown_sessions import grow
from tests.support.paths import ROOT
from tests.support.session_files import files_of
from tests.support.writeback import propose, write_accepted

STAMP = "2026-01-02T03:04:05.678Z"
FILES = files_of("pi", "claude_code", "codex", "qwen_code")


def _accepted(db: Path, file: Path, original: bytes, proposal_id: str) -> dict[str, Any]:
    """Write back from the store at `db` on the file as it was (what `accept` calls once the summary passed); what came of it."""
    file.write_bytes(original)
    with Store(db) as store:
        try:
            decision = write_accepted(store, proposal_id, STAMP)
        except CutlineError as exc:
            return {"refused": f"{type(exc).__name__}: {exc}", "bytes": file.read_bytes()}
        found = store.write_backs.get(proposal_id)
        assert found is not None
        state, record = found
        return {
            "bytes": file.read_bytes(),
            "state": state,
            "record": record.model_dump(exclude={"backup_path"}),
            "entry_id": decision.entry_id,
            "written_to": decision.written_to,
            "notes": [n for n in decision.notes if not n.startswith("backup of the file")],
            "drift": session_writes.drift_warning(store, proposal_id),
            "whole_drift": adapter_for(store.sessions.header(record.session_id).format).drift(
                store.load_session(record.session_id), record
            ),
        }


def _both_ways(file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep: int) -> tuple[str, str]:
    """The same proposal accepted from stored facts and read whole: (format, "stored" / "whole" / "refused")."""
    original = file.read_bytes()
    db = tmp_path / f"stored-{keep}.db"
    with Store(db) as store:
        try:
            proposal = propose(store, file, keep_recent_tokens=keep)
        except CutlineError:
            return "", "no proposal"
        header = store.sessions.header(proposal.session_id)
        kind = header.format
        stretch = session_writes._written_from_stretch(store, header)
    whole_db = tmp_path / f"whole-{keep}.db"
    shutil.copyfile(db, whole_db)

    loads: Counter[str] = Counter()
    load = Sessions.load

    def counted(self: Sessions, ref: str) -> Any:
        loads["load"] += 1
        return load(self, ref)

    with monkeypatch.context() as patched:
        patched.setattr(Sessions, "load", counted)
        stored = _accepted(db, file, original, proposal.id)
    stored_loads = loads["load"] - (0 if "refused" in stored else 1)  # less the comparison's own load
    with monkeypatch.context() as patched:
        patched.setattr(session_writes, "stored_write_back_plan", lambda *args, **kwargs: None)
        whole = _accepted(whole_db, file, original, proposal.id)
    file.write_bytes(original)
    assert stored == whole
    if "refused" in stored:
        return kind, "refused"
    assert stored["drift"] == stored["whole_drift"]
    if stretch and kind in ("claude_code", "codex", "qwen_code"):
        assert stored_loads == 0, (kind, stored_loads)
    return kind, "stored" if stored_loads == 0 else "whole"


@pytest.mark.parametrize("file", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_file_is_written_back_as_the_whole_session_writes_it(
    file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / file.name
    shutil.copyfile(file, copy)
    for keep in (60, 400):
        _both_ways(copy, tmp_path, monkeypatch, keep)


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_grown_sessions_are_written_back_from_stored_facts(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = grow(agent, 300, tmp_path / f"{agent}.jsonl")
    assert _both_ways(file, tmp_path, monkeypatch, 400)[1] == "stored"


def test_the_comparison_has_teeth(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each agent's files are written back from stored facts, some read whole (pi), some refused."""
    told: Counter[tuple[str, str]] = Counter()
    for n, file in enumerate(FILES):
        where = tmp_path / str(n)
        where.mkdir()
        copy = where / file.name
        shutil.copyfile(file, copy)
        told[_both_ways(copy, where, monkeypatch, 60)] += 1
        shutil.rmtree(where)
    for kind in ("pi", "claude_code", "codex", "qwen_code"):
        assert told[(kind, "stored")] >= (1 if kind == "qwen_code" else 2), told
    assert told[("pi", "whole")] > 0 and sum(v for (_, how), v in told.items() if how == "refused") > 0, told


def test_a_codex_drift_is_told_from_the_stored_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Codex that kept writing after the written `compacted` line without resuming: the same warning both ways."""
    file = grow("codex", 120, tmp_path / "rollout-x.jsonl")
    with Store(tmp_path / "db") as store:
        proposal = propose(store, file, keep_recent_tokens=400)
        write_accepted(store, proposal.id, STAMP)
        record = store.write_backs.get(proposal.id)
        assert record is not None
        written = json.loads(file.read_bytes().splitlines()[-1])
        stale = {"timestamp": STAMP, "ordinal": written["ordinal"], "type": "event_msg", "payload": {"type": "x"}}
        with file.open("ab") as out:
            out.write(json.dumps(stale).encode() + b"\n")
        store.import_file(file)
        whole = adapter_for("codex").drift(store.load_session(record[1].session_id), record[1])
        loads: Counter[str] = Counter()
        load = Sessions.load
        monkeypatch.setattr(Sessions, "load", lambda self, ref: loads.update(["load"]) or load(self, ref))
        told = session_writes.drift_warning(store, proposal.id)
    assert whole is not None and "repeats ordinal" in whole
    assert told == whole
    assert loads["load"] == 0
