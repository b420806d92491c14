"""`cutline context` told from the file's last lines as the store holds them prints what the whole file prints.

Why: `context --proposal` read the session file with the appended line through the agent's
whole reader (~780 MB at 50,000 Claude Code records) and `context SESSION` rebuilt the
whole session, where the context is the latest compaction's window. Every pi, Claude Code,
Codex, Qwen Code and OpenClaw file of the samples and fixtures (and grown Claude Code / Codex
sessions, and generated pi sessions) is proposed with two keeps; the context after each
proposal is told from the stored rows and from the whole file with the line appended (the
stored answer withheld), and the session's own context from the rows and from the whole
session: the same JSON both ways. The reader reads a stretch that does not grow with the file.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import cutline.core.agents.jsonl as jsonl
from cutline.app.cli import cli
from cutline.core import review, session_writes
from cutline.core.agents import session_wire_context
from cutline.core.agents.formats import head_format
from cutline.core.agents.wire import context_json
from cutline.core.errors import CutlineError
from cutline.core.store import Store
from cutline.core.store.sessions import Sessions
from tests.support.grown_sessions import grow
from tests.support.paths import ROOT
from tests.support.pi_compactions import write_pi_session
from tests.support.session_files import GENERATED_PI, files_of
from tests.support.writeback import propose, write_accepted

STAMP = "2026-01-02T03:04:05.678Z"
FILES = files_of("pi", "claude_code", "codex", "qwen_code", "openclaw")


def _json(context: Any) -> str | None:
    return None if context is None else json.dumps(context_json(context), ensure_ascii=False, sort_keys=True)


def _after_both_ways(store: Store, proposal_id: str, monkeypatch: pytest.MonkeyPatch) -> tuple[str | None, bool]:
    """(the context after the proposal, whether the stored rows told it) after checking both ways give the same."""
    told: list[bool] = []
    stored_after = session_writes.stored_context_after

    def watched(*args: Any, **kwargs: Any) -> Any:
        found = stored_after(*args, **kwargs)
        told.append(found is not None)
        return found

    with monkeypatch.context() as patched:
        patched.setattr(review, "stored_context_after", watched)
        stored = _json(review.context_after_accept(store, proposal_id, timestamp=STAMP))
    with monkeypatch.context() as patched:
        patched.setattr(review, "stored_context_after", lambda *args, **kwargs: None)
        whole = _json(review.context_after_accept(store, proposal_id, timestamp=STAMP))
    assert stored == whole
    return stored, any(told)


def _session_both_ways(store: Store, session_id: str) -> bool:
    """Whether the session's own context was told from the stored rows, after checking it is the whole session's."""
    stored = session_writes.stored_wire_context(store, session_id)
    whole = session_wire_context(store.load_session(session_id))
    if stored is not None:
        assert _json(stored) == _json(whole)
    return stored is not None


def _every_way(file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    told: Counter[str] = Counter()
    for keep in (60, 400):
        with Store(tmp_path / f"{keep}.db") as store:
            try:
                proposal = propose(store, file, keep_recent_tokens=keep)
            except CutlineError:
                session_id = store.import_file(file).session_id
                told["session stored" if _session_both_ways(store, session_id) else "session whole"] += 1
                continue
            context, stored = _after_both_ways(store, proposal.id, monkeypatch)
            told["after stored" if stored else "after whole" if context is not None else "after none"] += 1
            stored_session = _session_both_ways(store, proposal.session_id)
            told["session stored" if stored_session else "session whole"] += 1
    return told


@pytest.mark.parametrize("file", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_file_gives_the_whole_files_context(file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / file.name
    shutil.copyfile(file, copy)
    _every_way(copy, tmp_path, monkeypatch)


@pytest.mark.parametrize("name", sorted(GENERATED_PI))
def test_generated_pi_sessions_give_the_whole_files_context(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = write_pi_session(tmp_path / f"{name}.jsonl", **GENERATED_PI[name])
    _every_way(file, tmp_path, monkeypatch)


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_grown_sessions_give_the_whole_files_context(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = grow(agent, 300, tmp_path / f"{agent}.jsonl")
    told = _every_way(file, tmp_path, monkeypatch)
    assert told["after stored"] == 2, told


def test_the_comparison_has_teeth(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each agent's contexts are told from the stored rows for some files; some are read whole, some have none."""
    told: dict[str, Counter[str]] = {}
    for n, file in enumerate(FILES):
        where = tmp_path / str(n)
        where.mkdir()
        copy = where / file.name
        shutil.copyfile(file, copy)
        told.setdefault(str(head_format(file)), Counter()).update(_every_way(copy, where, monkeypatch))
        shutil.rmtree(where)
    for kind in ("pi", "claude_code", "codex", "qwen_code"):
        assert told[kind]["after stored"] >= 1 and told[kind]["session stored"] >= 2, told
    assert told["pi"]["after whole"] > 0 and told["pi"]["session whole"] > 0, told
    assert told["openclaw"]["after stored"] == told["openclaw"]["session stored"] == 0, told


def _count_reads(patched: pytest.MonkeyPatch, read: Counter[str]) -> None:
    """Count into `read` the bytes the agents' readers read, and the sessions `Sessions.load` rebuilt ("loads") and
    their entries ("entries")."""
    read_file_text = jsonl.read_file_text
    load = Sessions.load

    def reading(path: Path) -> Any:
        found = read_file_text(path)
        read["bytes"] += found.size
        return found

    def loading(self: Sessions, ref: str) -> Any:
        session = load(self, ref)
        read["loads"] += 1
        read["entries"] += len(session.entries)
        return session

    patched.setattr(jsonl, "read_file_text", reading)  # `read_session` imports it from there
    patched.setattr(Sessions, "load", loading)


def _work(records: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """(bytes an agent's reader read, entries `Sessions.load` rebuilt) for `context --proposal`, then for `context
    SESSION` once the proposal is written back, on a grown Claude Code session of `records` records."""
    file = grow("claude-code", records, tmp_path / f"claude-code-{records}.jsonl")
    db = tmp_path / f"{records}.db"
    read = Counter[str]()
    work: list[tuple[int, int]] = []
    with Store(db) as store:
        proposal = propose(store, file, keep_recent_tokens=400)
        with monkeypatch.context() as patched:
            _count_reads(patched, read)
            assert review.context_after_accept(store, proposal.id, timestamp=STAMP) is not None
        work.append((read["bytes"], read["entries"]))
        write_accepted(store, proposal.id, STAMP)
    read.clear()
    with monkeypatch.context() as patched:
        _count_reads(patched, read)
        printed = CliRunner().invoke(cli, ["context", "--db", str(db), "--json", proposal.session_id])
    assert printed.exit_code == 0, printed.output
    assert "cutline's summary of the work so far" in printed.output
    work.append((read["bytes"], read["entries"]))
    return work


def test_the_context_reads_a_stretch_that_does_not_grow_with_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code at 300 and 1,200 records, the same keep: the bytes read do not grow, no session is rebuilt whole
    (main: the whole file read with the line appended, the whole session rebuilt for `context SESSION`)."""
    small = _work(300, tmp_path, monkeypatch)
    large = _work(1_200, tmp_path, monkeypatch)
    for (small_bytes, small_entries), (large_bytes, large_entries) in zip(small, large, strict=True):
        assert small_entries == large_entries == 0, (small, large)
        assert 0 < large_bytes <= small_bytes * 1.5, (small, large)


@pytest.mark.parametrize(
    "name", ["claude-code-compacted.jsonl", "codex-rollout-compacted.jsonl", "pi-two-compactions.jsonl"]
)
def test_the_command_tells_a_stored_or_unchanged_file_from_its_last_lines(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`context FILE` (new: read whole and imported; unchanged: its last lines) and `context SESSION`: one output."""
    file = tmp_path / name
    shutil.copyfile(ROOT / "sample_sessions" / name, file)
    db = str(tmp_path / "db")
    read = Counter[str]()
    _count_reads(monkeypatch, read)
    outputs = []
    for ref in (str(file), str(file), "last"):
        if ref == "last":
            with Store(db) as store:
                ref = store.resolve_session(str(file))
        read.clear()
        printed = CliRunner().invoke(cli, ["context", "--db", db, "--json", ref])
        assert printed.exit_code == 0, printed.output
        outputs.append((printed.output, dict(read)))
    (first, whole), (second, unchanged), (third, stored) = outputs
    assert first == second == third
    assert whole == {"bytes": file.stat().st_size}
    assert unchanged == stored and stored.get("loads", 0) == 0 and 0 < stored["bytes"] < file.stat().st_size / 2


@pytest.mark.parametrize("ending", ["no final newline", "crlf"])
@pytest.mark.parametrize(
    "name", ["claude-code-compacted.jsonl", "codex-rollout-compacted.jsonl", "pi-two-compactions.jsonl"]
)
def test_a_file_without_a_final_newline_or_with_crlf_gives_the_whole_files_context(
    name: str, ending: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The appended line joins a last line without its newline (read whole); CRLF lines read as LF ones."""
    data = (ROOT / "sample_sessions" / name).read_bytes()
    file = tmp_path / name
    file.write_bytes(data.rstrip(b"\n") if ending == "no final newline" else data.replace(b"\n", b"\r\n"))
    _every_way(file, tmp_path, monkeypatch)
