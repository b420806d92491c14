"""A cold `cutline plan FILE` of a pi file is planned from the stored facts of a streamed import, and prints what the whole-session plan prints.

Every session file under tests/fixtures and sample_sessions (all four agents) and
generated pi sessions with compactions are planned twice, each time in a fresh store:
once as the CLI runs (a new pi file imported streaming and planned from a window of the
stored path), once with every window refused (the file read once and kept as models,
as before). Whether the window was taken is checked too, so the comparison is not vacuous.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cutline.core.agents.path_window import PathWindow
from cutline.core.store import Store
from cutline.core.store.sessions import Sessions
from tests.support.cli import run
from tests.support.paths import ROOT
from tests.support.pi_compactions import append_turns, write_pi_session
from tests.support.session_files import GENERATED_PI, SESSION_FILES

FILES = SESSION_FILES
GENERATED = GENERATED_PI
VARIANTS: list[list[str]] = [
    ["--json"],
    ["--json", "--keep-recent-tokens", "1500", "--entry-tokens"],
    ["--json", "--keep-recent-tokens", "400", "--rules", "pi-0.73"],
    ["--json", "--keep-recent-tokens", "3000", "--rules", "pi"],
    ["--json", "--keep-recent-tokens", "1500", "--rules", "openclaw-2026.9"],
    ["--json", "--mode", "safeguard"],
    ["--json", "--counter", "tiktoken"],
    ["--keep-recent-tokens", "1500"],
]


@pytest.fixture
def windows_made(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[PathWindow]]:
    """Every window `Sessions.path_window` hands out during the test."""
    made: list[PathWindow] = []
    original = Sessions.path_window

    def recording(self: Sessions, session_id: str, *args: Any, **kwargs: Any) -> PathWindow | None:
        window = original(self, session_id, *args, **kwargs)
        if window is not None:
            made.append(window)
        return window

    monkeypatch.setattr(Sessions, "path_window", recording)
    yield made


def _both(
    file: Path, extra: list[str], db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    """`cutline plan FILE EXTRA` in a fresh store as the CLI runs, then in another with every window refused."""
    windowed = run(capsys, "plan", *extra, "--db", str(db.with_suffix(".windowed.db")), str(file))
    with monkeypatch.context() as patched:
        patched.setattr(Sessions, "path_window", lambda self, *a, **k: None)
        full = run(capsys, "plan", *extra, "--db", str(db.with_suffix(".full.db")), str(file))
    return windowed, full


def _compare(file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for n, extra in enumerate(VARIANTS):
        windowed, full = _both(file, extra, tmp_path / f"v{n}", monkeypatch, capsys)
        assert windowed == full, (file.name, extra)


@pytest.mark.parametrize("file", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_cold_plan_prints_the_same_windowed_and_loaded_whole(
    file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / file.name
    shutil.copyfile(file, copy)
    _compare(copy, tmp_path, monkeypatch, capsys)


@pytest.mark.parametrize("kind", sorted(GENERATED))
def test_generated_pi_sessions_are_planned_from_a_window_and_print_the_same(
    kind: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    windows_made: list[PathWindow],
) -> None:
    file = write_pi_session(tmp_path / f"{kind}.jsonl", **GENERATED[kind])
    _compare(file, tmp_path, monkeypatch, capsys)
    if kind == "context-edit":
        assert not windows_made  # a context_edit on the path: planned from the whole session
        return
    if kind.startswith("uncompacted"):
        # its own window, planned from the facts: a few entries read (the last ones, images, the system prompt)
        assert windows_made and all(window.start == 0 for window in windows_made)
        assert all(window.tail_fetched() < len(window) // 2 for window in windows_made)
    else:
        assert any(window.start > 0 for window in windows_made)
    # grown: the import reads the whole file again, the plan still comes from the window
    append_turns(file, 4, seed=9, compaction=True)
    before = len(windows_made)
    _compare(file, tmp_path / "grown", monkeypatch, capsys)
    assert len(windows_made) > before


def test_a_stored_session_named_by_id_is_planned_from_its_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], windows_made: list[PathWindow]
) -> None:
    file = write_pi_session(tmp_path / "s.jsonl")
    db = tmp_path / "s.db"
    with Store(db) as store:
        session_id = store.import_file(file).session_id
    windowed = run(capsys, "plan", "--json", "--db", str(db), session_id)
    assert windows_made
    with monkeypatch.context() as patched:
        patched.setattr(Sessions, "path_window", lambda self, *a, **k: None)
        full = run(capsys, "plan", "--json", "--db", str(db), session_id)
    assert windowed == full


def test_a_cold_plan_keeps_no_session_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Planned from facts: the whole session is never read into models (neither kept by the import nor loaded)."""

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the whole session was read into models")

    file = write_pi_session(tmp_path / "s.jsonl")
    monkeypatch.setattr(Store, "load_session", refused)
    monkeypatch.setattr(Store, "import_and_read", refused)
    code, out, err = run(capsys, "plan", "--json", "--db", str(tmp_path / "s.db"), str(file))
    assert code == 0, err
    assert '"firstKeptEntryId"' in out


def test_a_record_marked_as_continuing_a_message_is_read_not_taken_from_facts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An uncompacted path whose assistant and user records carry `continuesMessage` (never a cut point): the same plan."""
    file = write_pi_session(tmp_path / "marked.jsonl", every=0, seed=11)
    lines = file.read_text(encoding="utf-8").splitlines()
    marked = 0
    for n, line in enumerate(lines):
        if '"role":"assistant"' in line or ('"role":"user"' in line and n > len(lines) // 2):
            lines[n] = line.replace('"message":{', '"message":{"continuesMessage":true,', 1)
            marked += 1
    assert marked > 10
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for extra in (["--json", "--keep-recent-tokens", "1500"], ["--json", "--keep-recent-tokens", "3000"]):
        windowed, full = _both(file, extra, tmp_path / f"m{extra[-1]}", monkeypatch, capsys)
        assert windowed == full, extra
