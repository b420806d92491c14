"""`compact` and `audit` (of proposals and of compactions) on a window of the stored path print exactly what the whole-session load prints.

Every session file under tests/fixtures and sample_sessions (all four agents) and
generated pi sessions with several compactions run both ways: once as the CLI runs
(pi sessions windowed, `Sessions.path_window`), once with the window refused (the full
load of every session). The window's own readings of the whole path (ids, context,
usage samples, entries before it) are compared with the full path's too.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cutline.core.agents import path_window as path_window_module
from cutline.core.agents.path_window import PathWindow
from cutline.core.audit.report import _window_samples
from cutline.core.engine.context import context_indices
from cutline.core.models import Entry
from cutline.core.store import Store
from cutline.core.store.sessions import Sessions
from cutline.core.store.token_counts import count_entries
from cutline.core.tokens import UsageSample, usage_samples
from tests.support.cli import run
from tests.support.paths import ROOT
from tests.support.pi_compactions import append_turns, write_pi_session
from tests.support.session_files import GENERATED_PI, SESSION_FILES

FILES = SESSION_FILES
GENERATED = GENERATED_PI
# each: the CLI's extra arguments for `compact` (default keepRecentTokens, then small ones, each rule set)
VARIANTS: list[list[str]] = [
    [],
    ["--keep-recent-tokens", "1500"],
    ["--keep-recent-tokens", "400", "--rules", "pi-0.73"],
    ["--keep-recent-tokens", "3000", "--rules", "pi"],
    ["--keep-recent-tokens", "1500", "--rules", "openclaw-2026.9"],
]
_VOLATILE = ("id", "created_at", "entryId", "timings")


@pytest.fixture
def windows_made(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, PathWindow, bool, bool]]]:
    """Every window `Sessions.path_window` hands out during the test, with its session's id, `before` and `lazy`."""
    made: list[tuple[str, PathWindow, bool, bool]] = []
    original = Sessions.path_window

    def recording(self: Sessions, session_id: str, *args: Any, **kwargs: Any) -> PathWindow | None:
        window = original(self, session_id, *args, **kwargs)
        if window is not None:
            made.append((session_id, window, bool(kwargs.get("before")), bool(kwargs.get("lazy"))))
        return window

    monkeypatch.setattr(Sessions, "path_window", recording)
    yield made


def _full(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`cutline ARGS` with every window refused: the whole session loaded, as before windows."""
    with monkeypatch.context() as patched:
        patched.setattr(Sessions, "path_window", lambda self, *a, **k: None)
        return run(capsys, *args)


def _proposal(out: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(out)
    return {k: v for k, v in data.items() if k not in _VOLATILE}


def _plan_json(proposal_id: str) -> str:
    with Store() as store:
        return str(store.proposals.row(proposal_id)["plan_json"])


def _compare_session(
    file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], variants: list[list[str]]
) -> list[str]:
    """Compact and audit `file` both ways under each variant; the proposal ids the windowed runs made."""
    made: list[str] = []
    for extra in variants:
        args = ["compact", "--summarizer", "extractive", "--json", *extra, str(file)]
        windowed = run(capsys, *args)
        full = _full(monkeypatch, capsys, *args)
        assert (windowed[0], windowed[2]) == (full[0], full[2]), (file, extra)
        if windowed[0] != 0:
            continue
        assert _proposal(windowed[1]) == _proposal(full[1]), (file, extra)
        ours, theirs = json.loads(windowed[1])["id"], json.loads(full[1])["id"]
        assert _plan_json(ours) == _plan_json(theirs)
        made.append(ours)
        for proposal in (ours, theirs):
            for style in (["--json"], []):
                audit = ["audit", *style, "--proposal", proposal, str(file)]
                assert run(capsys, *audit) == _full(monkeypatch, capsys, *audit), (file, extra, style)
    text = ["compact", "--summarizer", "extractive", "--keep-recent-tokens", "1500", str(file)]
    windowed, full = run(capsys, *text), _full(monkeypatch, capsys, *text)
    masked = [re.sub(r"proposal [0-9a-f]{20}", "proposal P", out) for out in (windowed[1], full[1])]
    assert (windowed[0], masked[0], windowed[2]) == (full[0], masked[1], full[2]), file
    _compare_compaction_audits(file, monkeypatch, capsys)
    return made


def _compare_compaction_audits(file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`audit FILE` (the latest compaction) and `audit --compaction ID FILE` of each stored compaction, both ways."""
    with Store() as store:
        compactions = [entry_id for _, entry_id in store.sessions.compaction_entries("")]
    audits = [["audit", "--json", str(file)], ["audit", str(file)]]
    audits += [["audit", "--json", "--compaction", c, str(file)] for c in compactions]
    audits += [["audit", "--json", "--keep-recent-tokens", "1500", "--rules", r, str(file)] for r in ("pi", "pi-0.73")]
    if compactions:
        audits.append(["audit", "--compaction", compactions[0], "--rules", "openclaw-2026.9", str(file)])
    for audit in audits:
        assert run(capsys, *audit) == _full(monkeypatch, capsys, *audit), (file, audit)


def _check_window_readings(session_id: str, window: PathWindow, before: bool, lazy: bool) -> None:
    """What a window reads of its whole path from stored facts equals what the full path gives.

    A lazy window (`compact`'s) reads its entries from the store while the command runs; the
    store is closed once it ends, so its entries are read here through the same window made again.
    """
    with Store() as store:
        session = store.load_session(session_id)
        counts = count_entries(store, session, "chars4")
        again = store.sessions.path_window(session_id, "chars4", through=window.ids[-1], before=before, lazy=lazy)
        assert again is not None and again.ids == window.ids and again.start == window.start
        path = session.active_path()[: len(window)]
        assert [e.id for e in path] == window.ids
        assert window.counts == [counts[e.id] for e in path]
        assert (window if not lazy else again).context_indices() == context_indices(path)
        expected = [(s.estimate, s.real, s.entryId) for s in usage_samples(path, window.counts) if s.estimate > 0]
        assert _window_samples(window, window.counts) == expected
        # a Claude Code or Codex window's message and other entries come without their raw lines (no reader of a
        # window needs them: `Sessions.path_window`'s by_model); everything else as loaded whole
        lines = session.format not in ("claude_code", "codex")

        def dump(entry: Entry) -> dict[str, Any]:
            kept = lines or entry.type not in ("message", "other")
            return entry.model_dump(exclude=None if kept else {"raw_line"})

        if window.start:
            assert dump(again[window.start - 1]) == dump(path[window.start - 1])
        assert [dump(e) for e in again] == [dump(e) for e in path]
        assert lines or all(not e.raw_line for e in again if e.type in ("message", "other"))
        assert [e.id for e in reversed(again)] == [e.id for e in reversed(path)]
        if before:
            head = again.head(len(again) - 1)
            assert head.context_indices() == context_indices(path[:-1])


@pytest.mark.parametrize("file", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_fixture_sessions_print_the_same_windowed_and_loaded_whole(
    file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    windows_made: list[tuple[str, PathWindow, bool, bool]],
) -> None:
    copy = tmp_path / file.name
    shutil.copyfile(file, copy)
    _compare_session(copy, monkeypatch, capsys, VARIANTS[:3])
    for made in windows_made[:4]:
        _check_window_readings(*made)


# with no compaction the whole path is planned, compacted and audited under every variant: minutes, not seconds
_SLOW = pytest.mark.timeout(1200)


@pytest.mark.parametrize(
    "kind", [pytest.param(k, marks=_SLOW) if k.startswith("uncompacted") else k for k in sorted(GENERATED)]
)
def test_generated_pi_sessions_with_compactions_print_the_same(
    kind: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    windows_made: list[tuple[str, PathWindow, bool, bool]],
) -> None:
    file = write_pi_session(tmp_path / f"{kind}.jsonl", **GENERATED[kind])
    made = _compare_session(file, monkeypatch, capsys, VARIANTS)
    if kind == "context-edit":
        # a context_edit on the path: the whole session is loaded (compactions before the edit are windowed)
        assert all(before for _, _, before, _ in windows_made)
        return
    assert made
    if not kind.startswith("uncompacted"):  # (with no compaction the path is its own window: start 0)
        assert any(w.start > 0 for _, w, before, _ in windows_made if not before)
        assert any(w.start > 0 for _, w, before, _ in windows_made if before)
    for made_window in windows_made[:3] + [w for w in windows_made if w[2]][:3]:
        _check_window_readings(*made_window)
    # the session grows (a new compaction too): the proposals are audited on the path they were planned on
    append_turns(file, 4, seed=9, compaction=True)
    append_turns(file, 3, seed=10)
    before = len(windows_made)
    for proposal in made:
        for style in (["--json"], []):
            audit = ["audit", *style, "--proposal", proposal, str(file)]
            assert run(capsys, *audit) == _full(monkeypatch, capsys, *audit), (kind, proposal)
    assert len(windows_made) > before
    _check_window_readings(*windows_made[-1])


def test_a_window_started_one_entry_late_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The comparison has teeth: a window that leaves out the latest compaction's first kept entry differs."""
    start = path_window_module.window_start

    def late(ids: list[str], kinds: list[str], facts: list[dict[str, Any]]) -> int | None:
        found = start(ids, kinds, facts)
        return found + 1 if found else found

    monkeypatch.setattr("cutline.core.store.sessions.window_start", late)
    file = write_pi_session(tmp_path / "late.jsonl")
    with pytest.raises(AssertionError):
        _compare_session(file, monkeypatch, capsys, VARIANTS[1:2])


def test_a_windows_usage_samples_are_read_without_a_model_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit reads (estimate, real, id) of every model call on a window's path: ~45,000 on a 100,000-entry path,
    so none is made a `UsageSample` first (as models they were ~15 % of a compacted path's audit)."""
    file = write_pi_session(tmp_path / "s.jsonl", **GENERATED["plain"])
    with Store() as store:
        session_id = store.import_file(file).session_id
        window = store.sessions.path_window(session_id, "chars4", before=True)
        assert window is not None
        path = store.load_session(session_id).active_path()[: len(window)]
    expected = [(s.estimate, s.real, s.entryId) for s in usage_samples(path, window.counts) if s.estimate > 0]
    assert len(expected) > 3  # the check can see

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a UsageSample was made")

    monkeypatch.setattr(UsageSample, "model_construct", refuse)
    monkeypatch.setattr(UsageSample, "__init__", refuse)
    assert _window_samples(window, window.counts) == expected
