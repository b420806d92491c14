"""`tokens` and `timeline` from the store's columns print exactly what they print from the whole session.

Every session file under tests/fixtures and sample_sessions (every agent), generated
pi sessions with compactions (grown afterwards, a new compaction too) and a pi session
of the records a reading of columns could get wrong run both ways: once as the CLI runs
(pi, OpenClaw, Claude Code and Codex sessions from `Sessions.path_columns`), once with
the columns refused (the session loaded whole, as before). JSON and text, every counter, FILE and the stored id.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from cutline.core.agents import path_columns as path_columns_module
from cutline.core.agents.path_columns import PathColumns
from cutline.core.audit.timeline import _counts_as_turn, _is_point, _recorded_usage
from cutline.core.engine.context import context_weight
from cutline.core.store import Store
from cutline.core.store.sessions import Sessions
from cutline.core.tokens import StoredCalls, model_calls, stored_model_calls
from tests.support.cli import run
from tests.support.paths import ROOT
from tests.support.pi_compactions import append_turns, write_pi_session, write_quirky_pi_session
from tests.support.session_files import GENERATED_PI, SESSION_FILES

FILES = SESSION_FILES
# OpenClaw's stores: their events go through pi's reader
STORES = sorted((ROOT / "tests" / "fixtures" / "corpus" / "openclaw").glob("*/*.sqlite"))
GENERATED = GENERATED_PI
# each command's variants: every counter together (the default), one at a time, calibrated alone, text output
COMMANDS: list[list[str]] = [
    ["tokens", "--json"],
    ["tokens", "--json", "--counter", "chars4"],
    ["tokens", "--json", "--counter", "calibrated", "--counter", "tiktoken"],
    ["tokens"],
    ["timeline", "--json"],
    ["timeline", "--json", "--counter", "calibrated"],
    ["timeline", "--json", "--counter", "tiktoken", "--counter", "chars4", "--context-window", "50000"],
    ["timeline"],
]


@pytest.fixture
def columns_made(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[PathColumns]]:
    """Every `PathColumns` `Sessions.path_columns` hands out during the test."""
    made: list[PathColumns] = []
    original = Sessions.path_columns

    def recording(self: Sessions, session_id: str) -> PathColumns | None:
        columns = original(self, session_id)
        if columns is not None:
            made.append(columns)
        return columns

    monkeypatch.setattr(Sessions, "path_columns", recording)
    yield made


def _whole(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`cutline ARGS` with the columns refused: the session loaded whole, as before."""
    with monkeypatch.context() as patched:
        patched.setattr(Sessions, "path_columns", lambda self, session_id: None)
        return run(capsys, *args)


def _compare(file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Each command on `file` (the first time its columns read counts not cached yet), then on its stored id, both ways."""
    for command in COMMANDS:
        args = [*command, str(file)]
        columns = run(capsys, *args)
        assert columns == _whole(monkeypatch, capsys, *args), (file.name, command)
    with Store() as store:
        session_id = store.import_file(file).session_id  # stored already: recognized unchanged
    for command in (COMMANDS[0], COMMANDS[4]):
        args = [*command, session_id]
        assert run(capsys, *args) == _whole(monkeypatch, capsys, *args), (file.name, command)
    # the plot: the same SVG
    svg = file.with_suffix(".svg")
    args = ["timeline", "--json", "-o", str(svg), str(file)]
    columns = run(capsys, *args), svg.read_bytes()
    assert columns == (_whole(monkeypatch, capsys, *args), svg.read_bytes()), file.name


def _check_column_readings(session_id: str) -> None:
    """What the columns say of each path entry equals what the rebuilt entries say (sharper than the outputs)."""
    with Store() as store:
        columns = store.sessions.path_columns(session_id)
        assert columns is not None
        path = store.load_session(session_id).active_path()
        assert columns.ids == [e.id for e in path]
        assert columns.kinds == [e.type for e in path]
        assert columns.roles == [e.role for e in path]
        weights = columns.weights()
        assert list(weights) == [int(w) for w in context_weight(path)]
        calls = StoredCalls(weights, columns.prompts, columns.kept)
        assert stored_model_calls(columns.ids, columns.kinds, calls) == model_calls(path)
        flagged = set(columns.flagged)
        for i, entry in enumerate(path):
            if i in flagged:
                continue
            starts = columns.kinds[i] == "message" and columns.roles[i] == "user" and i not in columns.results
            assert starts == _counts_as_turn(entry), i
            assert (columns.kinds[i] == "message" and columns.roles[i] == "assistant") == _is_point(entry), i
            if _is_point(entry):
                assert (columns.usage.get(i) or None) == _recorded_usage(entry), i


@pytest.mark.parametrize("file", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_fixture_sessions_print_the_same_from_columns_and_whole(
    file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    columns_made: list[PathColumns],
) -> None:
    copy = tmp_path / file.name
    shutil.copyfile(file, copy)
    _compare(copy, monkeypatch, capsys)
    with Store() as store:
        row = store.sessions.row(store.import_file(copy).session_id)
    if row is not None and row["format"] in ("pi", "openclaw", "claude_code", "codex") and row["entry_count"]:
        assert columns_made, f"a {row['format']} session was not read from its columns"
        _check_column_readings(columns_made[-1].session_id)


@pytest.mark.parametrize("store", STORES, ids=lambda p: str(p.relative_to(ROOT)))
def test_openclaw_stores_print_the_same_from_columns_and_whole(
    store: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    columns_made: list[PathColumns],
) -> None:
    copy = tmp_path / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    copy.parent.mkdir(parents=True)
    shutil.copyfile(store, copy)
    _compare(copy, monkeypatch, capsys)
    assert columns_made
    _check_column_readings(columns_made[-1].session_id)


@pytest.mark.parametrize("kind", sorted(GENERATED))
def test_generated_pi_sessions_print_the_same_and_after_growing(
    kind: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    columns_made: list[PathColumns],
) -> None:
    file = write_pi_session(tmp_path / f"{kind}.jsonl", **GENERATED[kind])
    _compare(file, monkeypatch, capsys)
    assert columns_made
    _check_column_readings(columns_made[-1].session_id)
    # the session grows (a new compaction too): the new entries are counted, the rest read from the cache
    append_turns(file, 4, seed=9, compaction=True)
    append_turns(file, 3, seed=10)
    _compare(file, monkeypatch, capsys)
    _check_column_readings(columns_made[-1].session_id)


@pytest.mark.parametrize("spaced", [False, True], ids=["compact", "spaced"])
def test_records_the_columns_do_not_tell_are_read_as_entries(
    spaced: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    columns_made: list[PathColumns],
) -> None:
    """isMeta (also spelled with an escape), isSidechain, isCompactSummary, context_edits and their neighbours: the same output."""
    file = write_quirky_pi_session(tmp_path / "quirky.jsonl", spaced=spaced)
    _compare(file, monkeypatch, capsys)
    assert columns_made
    # the rows read as entries: the isMeta ones (true, false, escaped), the sidechain and the summary record, and
    # the line with escaped non-ASCII text (re-spaced, the file spells both the key and the text out)
    assert len(columns_made[-1].flagged) == (5 if spaced else 6)
    with Store() as store:
        columns = store.sessions.path_columns(columns_made[-1].session_id)
        assert columns is not None
        assert len(columns.omitted()) == 2  # the kept user message and the repeated id
    _check_column_readings(columns.session_id)


def test_a_reading_that_ignores_the_flagged_rows_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The comparison has teeth: taking every row's facts at their word (no entry read for isMeta and the like) differs."""
    monkeypatch.setattr(path_columns_module, "_flagged", lambda *args: [])
    file = write_quirky_pi_session(tmp_path / "quirky.jsonl")
    with pytest.raises(AssertionError):
        _compare(file, monkeypatch, capsys)


def test_a_reading_that_ignores_context_edits_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The comparison has teeth: weights taken from the facts alone, without what the context_edits omit, differ."""
    monkeypatch.setattr(PathColumns, "omitted", lambda self: set())
    file = write_quirky_pi_session(tmp_path / "quirky.jsonl")
    with pytest.raises(AssertionError):
        _compare(file, monkeypatch, capsys)


def test_facts_of_another_type_than_the_importer_writes_are_read_as_they_are(tmp_path: Path) -> None:
    """A store whose facts the typed decoder refuses (a float usage, say) still gives its columns, read with `json`."""
    import json

    file = write_pi_session(tmp_path / "s.jsonl")
    with Store(tmp_path / "s.db") as store:
        session_id = store.import_file(file).session_id
        typed = store.sessions.path_columns(session_id)
        with store.transaction() as conn:
            rows = conn.execute("SELECT rowid, facts FROM entries WHERE facts LIKE '%\"u\":%'").fetchall()
            for rowid, text in rows:
                fact = json.loads(text)
                fact["u"] = float(fact["u"])
                conn.execute("UPDATE entries SET facts = ? WHERE rowid = ?", (json.dumps(fact), rowid))
        loose = store.sessions.path_columns(session_id)
    assert rows and typed is not None and loose is not None
    for name in ("flags", "prompts", "kept", "usage", "results", "flagged"):
        assert getattr(loose, name) == getattr(typed, name), name


@pytest.mark.parametrize(
    "options", [["-o", "plot.svg"], ["--json", "-o", "plot.svg"], []], ids=["svg", "svg-json", "text"]
)
def test_a_timeline_from_columns_is_drawn_and_printed_without_models(
    options: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The columns' data is `Timeline.model_dump()`'s: the plot and the text are made from it, no `Timeline` validated
    (its ~14,000 points were ~55 ms of a Codex 50k `timeline -o`); the same SVG and text as from the whole session."""
    from cutline.core.audit.timeline import Timeline

    copy = tmp_path / "codex.jsonl"
    shutil.copyfile(ROOT / "sample_sessions" / "codex-rollout-compacted.jsonl", copy)
    args = ["timeline", *[str(tmp_path / o) if o.endswith(".svg") else o for o in options], str(copy)]
    run(capsys, *args)  # imports the file and caches its counts
    made: list[object] = []
    original = Timeline.model_validate.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Timeline], *a: object, **k: object) -> Timeline:
        made.append(cls)
        return original(cls, *a, **k)  # type: ignore[no-any-return]

    monkeypatch.setattr(Timeline, "model_validate", classmethod(counting))
    columns = run(capsys, *args), (tmp_path / "plot.svg").read_bytes() if options else b""
    assert made == []
    assert columns[0][1]  # it printed
    assert columns == (_whole(monkeypatch, capsys, *args), (tmp_path / "plot.svg").read_bytes() if options else b"")
    assert made  # the whole session's timeline is a model: the count can see
