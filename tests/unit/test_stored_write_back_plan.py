"""Whether a windowed pi session can be written back is told from its header and stored facts, as from the whole session.

Why: `compact` of a 100,000-entry pi file plans and summarizes from a window of its stored
path, then read the whole session (~1 GB) only to say whether and how it can be written
back. Every pi file of the fixtures and samples, the generated pi sessions and files the
reading refuses to write (no trailing newline, no header) give the same answer both ways.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cutline.core.agents.peek import session_header
from cutline.core.session_writes import stored_write_back_plan, write_back_plan
from cutline.core.store import Store
from cutline.core.store.sessions import Sessions
from tests.support.cli import run
from tests.support.paths import ROOT
from tests.support.pi_compactions import write_pi_session
from tests.support.session_files import GENERATED_PI, SESSION_FILES

PI_FILES = [p for p in SESSION_FILES if (h := session_header(p)) is not None and h.get("version") != 4]


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
