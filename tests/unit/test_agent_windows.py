"""Claude Code and Codex sessions are planned, compacted and audited from a window of the stored path.

`plan`, `compact` and `audit --proposal` of such a session used to load it whole (every
record a pydantic entry holding its raw line: ~650 MB at 50,000 records). They now read
its stored facts and a lazy `PathWindow` (`Sessions.path_window`), as pi's files are read.
Tested here: nothing loads the session whole, what a compaction holds at n and 4n records
(entries read for the plan, not every record; no raw line), the models built grow
linearly, and every Claude Code and Codex file of the fixtures and samples gives the same
plans, proposals and audits both ways (the whole way forced by windowing pi files only).
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

import cutline.core.store.sessions as sessions_module
import cutline.core.summarizers.extractive as extractive
from cutline.core.agents.light import LightEntry, LightMessage
from cutline.core.agents.path_window import PathWindow
from cutline.core.models import Entry, Message
from cutline.core.store import Store
from cutline.core.store.sessions import Sessions
from cutline.core.summarizers.session_state import SpanState
from tests.support.cli import run
from tests.support.grown_sessions import grow
from tests.support.paths import ROOT
from tests.support.session_files import files_of
from tests.support.whole_reads import count_whole_reads

AGENTS = ["claude-code", "codex"]
RECORDS = 600  # n records of a grown session; 4n: 2,400
KEEP = ["--keep-recent-tokens", "2000"]  # the default keep would grow a grown Claude Code session's context


def _grown(tmp_path: Path, agent: str, records: int) -> Path:
    return grow(agent, records, tmp_path / f"{agent}-{records}.jsonl")


def _compact(capsys: pytest.CaptureFixture[str], file: Path, *extra: str) -> dict[str, Any]:
    code, out, err = run(capsys, "compact", "--summarizer", "extractive", "--json", *KEEP, *extra, str(file))
    assert code == 0, err
    found: dict[str, Any] = json.loads(out)
    return found


@pytest.mark.parametrize("agent", AGENTS)
def test_plan_compact_and_audit_do_not_load_the_session_whole(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Neither `Sessions.load` nor a whole-file read: the file is imported and its stored path windowed.

    Before: `open_for_plan` read the file whole (`import_and_read`, or the rows rebuilt by
    `Sessions.load` for an unchanged file) and kept every entry for the plan and the summary.
    """
    file = _grown(tmp_path, agent, RECORDS)
    whole = count_whole_reads(monkeypatch)
    code, _, err = run(capsys, "plan", "--json", *KEEP, str(file))
    assert code == 0, err
    proposal = _compact(capsys, file)
    code, _, err = run(capsys, "audit", "--json", "--proposal", proposal["id"])
    assert code == 0, err
    assert whole == [], whole


def _with_untracked() -> Iterator[object]:
    """Every object the collector tracks, and the items of its lists (light entries are not tracked: gc=False)."""
    for o in gc.get_objects():
        yield o
        if type(o) is list:
            yield from o


def _holding(
    tmp_path: Path, agent: str, records: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> dict[str, int]:
    """What `compact` of a grown session holds half-way through its summary: entries alive, their raw lines, path length."""
    file = _grown(tmp_path, agent, records)
    found: dict[str, int] = {}
    windows: list[PathWindow] = []
    read_span = extractive.read_span
    path_window = Sessions.path_window

    def sampled(messages: Iterable[Message]) -> SpanState:
        length = len(messages) if isinstance(messages, list) or hasattr(messages, "__len__") else 0  # type: ignore[arg-type]

        # the summary's own walk: light where the span reads light (`MessageSpan.read_light`)
        read_light = getattr(messages, "read_light", None)
        walked = read_light() if callable(read_light) else messages

        def walk() -> Iterator[Message | LightMessage]:
            for k, message in enumerate(walked):
                if k == length // 2 and length > found.get("messages", 0):
                    found["messages"] = length
                    alive = list(
                        {
                            id(o): o
                            for o in _with_untracked()
                            if isinstance(o, Entry | LightEntry) and id(o) not in earlier
                        }.values()
                    )
                    found["entries"] = len(alive)
                    found["raw"] = sum(len(e.raw_line) for e in alive)
                yield message

        return read_span(walk())

    def recording(self: Sessions, *args: Any, **kwargs: Any) -> PathWindow | None:
        window = path_window(self, *args, **kwargs)
        if window is not None:
            windows.append(window)
        return window

    # entries an earlier command of this process holds to its end (`hold_until_exit`) are not this one's
    # (light entries too: they are not tracked by the collector, so they are found in lists)
    earlier = {id(o) for o in _with_untracked() if isinstance(o, Entry | LightEntry)}
    with monkeypatch.context() as patched:
        patched.setattr(extractive, "read_span", sampled)
        patched.setattr(extractive, "_walk_once", lambda messages: messages)  # `sampled` walks it
        patched.setattr(Sessions, "path_window", recording)
        _compact(capsys, file)
    with Store() as store:
        found["path"] = store.sessions.path_length(store.resolve_session(str(file)))
    found["kept"] = max((w.entries_kept() for w in windows), default=found["path"])  # no window: the whole session
    found["bytes"] = file.stat().st_size
    return found


@pytest.mark.parametrize("agent", AGENTS)
def test_a_compaction_holds_neither_every_record_nor_raw_lines(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mid-summary, at n and 4n records: fewer entries alive than half the path, and no raw line held.

    Before: every record of the session was alive as an entry (n, then 4n) with its raw line
    (the whole file's text again, ~112 MB at 50,000 Claude Code records).
    """
    gc.collect()
    small = _holding(tmp_path, agent, RECORDS, monkeypatch, capsys)
    large = _holding(tmp_path, agent, 4 * RECORDS, monkeypatch, capsys)
    assert large["path"] > 3.5 * small["path"], (small, large)
    for held in (small, large):
        assert held["messages"] > 0, held
        assert held["entries"] < held["path"] // 2, held
        assert held["kept"] < held["path"] // 2, held
        assert held["raw"] < held["bytes"] // 100, held


@pytest.mark.parametrize("agent", AGENTS)
def test_the_models_built_for_a_compaction_grow_linearly(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The entries rebuilt from the store during `compact`, counted at n and 4n records: at most ~4x (no quadratic re-read)."""
    from cutline.core.store import rows

    built: list[int] = []
    rebuild = rows.entry_from_row

    def counting(*args: Any) -> Entry:
        built[-1] += 1
        return rebuild(*args)

    monkeypatch.setattr(sessions_module, "entry_from_row", counting)
    counts = []
    for records in (RECORDS, 4 * RECORDS):
        file = _grown(tmp_path, agent, records)
        run(capsys, "import", str(file))
        built.append(0)
        _compact(capsys, file)
        counts.append(built[-1])
    assert counts[0] > 0 and counts[1] <= 5 * counts[0], counts


# -- the same answers as the whole session gives ----------------------------------------------------

_VOLATILE = {"id", "created_at", "entryId", "timings", "session_id", "proposal_id", "target_id"}
_PROPOSAL_ID = re.compile(r"\b01[0-9a-f]{18}\b")
_VARIANTS = {"default": [], "keep-1500": ["--keep-recent-tokens", "1500"], "pi-0.73": ["--rules", "pi-0.73", *KEEP]}


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if k not in _VOLATILE}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, str):
        return _PROPOSAL_ID.sub("<proposal>", value)
    return value


def _answers(capsys: pytest.CaptureFixture[str], files: list[Path]) -> dict[str, Any]:
    """Each file's plan, proposal and its audit under each variant, without ids and times (a refusal as its message)."""

    def outcome(code: int, out: str, err: str) -> Any:
        return _clean(json.loads(out)) if code == 0 else f"exit {code}: {err.strip()}"

    found: dict[str, Any] = {}
    for file in files:
        key = str(file.relative_to(ROOT))
        for name, extra in _VARIANTS.items():
            found[f"{key}::plan::{name}"] = outcome(*run(capsys, "plan", "--json", *extra, str(file)))
            code, out, err = run(capsys, "compact", "--summarizer", "extractive", "--json", *extra, str(file))
            found[f"{key}::compact::{name}"] = outcome(code, out, err)
            if code == 0:
                audit = run(capsys, "audit", "--json", "--proposal", json.loads(out)["id"])
                found[f"{key}::audit::{name}"] = outcome(*audit)
    return found


@pytest.mark.timeout(900)
def test_every_claude_code_and_codex_file_gives_the_whole_session_s_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Windowed (now) and whole (windows for pi files only, as before): the same plans, proposals and audits.

    Each way in its own store, so neither reads what the other stored.
    """
    files = files_of("claude_code", "codex")
    assert len(files) >= 40, len(files)  # the corpus, the samples and the golden files
    windowed = _answers(capsys, files)
    monkeypatch.setenv("CUTLINE_HOME", str(tmp_path / "whole"))
    with monkeypatch.context() as patched:
        patched.setattr(sessions_module, "_WINDOWED", frozenset({"pi"}))
        whole = _answers(capsys, files)
    assert sorted(windowed) == sorted(whole)
    assert sum(1 for k in whole if "::audit::" in k) >= 20  # proposals made and audited, not only refusals
    differ = [k for k in whole if json.dumps(windowed[k], sort_keys=True) != json.dumps(whole[k], sort_keys=True)]
    assert not differ, f"{len(differ)} of {len(whole)} differ: {differ[:5]}"
