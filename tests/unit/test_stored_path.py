"""The review desk's long-path model: the plan's index, pairs, call paths and calibration from stored facts equal those of the rebuilt path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.plan import index_path, plan
from cutline.core.engine.rules.choice import choose_for_index, evidence
from cutline.core.session_writes import write_back_plan
from cutline.core.store import Store
from cutline.core.store.token_counts import count_entries
from cutline.core.tokens import calibrate
from cutline.core.workbench.entries import StoredEntries, call_paths, outside_end, pair_numbers
from cutline.core.workbench.stored_path import stored_path, telling_session

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(
    [
        *(ROOT / "sample_sessions").glob("*.jsonl"),
        *(ROOT / "tests/fixtures/corpus").glob("*/*/session.jsonl"),
        *(ROOT / "tests/fixtures/corpus").glob("*/*/*.jsonl"),
    ]
)
INDEX_FIELDS = (
    "n",
    "messages",
    "cut_points",
    "turn_starts",
    "barriers",
    "producers",
    "compactions",
    "fileop_index",
    "fileop_kind",
    "fileop_path",
    "prefix",
    "producer_prefix",
    "context_prefix",
    "context_count",
)


@pytest.mark.parametrize("file", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_stored_path_plans_as_the_rebuilt_one(file: Path, cutline_home: Path) -> None:
    with Store() as store:
        try:
            report = store.import_file(file)
        except Exception as error:  # files the store refuses are not this test's concern
            pytest.skip(f"not importable: {error}")
        session = store.load_session(report.session_id)
        path = session.active_path()
        if not path:
            pytest.skip("empty path")
        chars4 = count_entries(store, session, "chars4")
        tokens = [chars4.get(e.id, 0) for e in path]
        found = stored_path(store, report.session_id)
        assert found is not None
        stored, stored_tokens = found
        assert stored_tokens == tokens
        assert stored.ids == [e.id for e in path]
        whole = index_path(path, tokens, "chars4")
        facts = stored.index(tokens, "chars4")
        for name in INDEX_FIELDS:
            assert getattr(facts, name) == getattr(whole, name), name
        assert facts.context_estimate() == whole.context_estimate()
        assert choose_for_index(facts) == choose_for_index(whole)
        assert facts.evidence_flags is not None
        assert choose_for_index(facts) == choose_for_index(index_path(path, tokens, "chars4"), None, evidence(path))
        assert stored.pairs() == pair_numbers(path)
        assert stored.call_paths() == call_paths(path)
        assert stored.outside_end() == outside_end(path, {e.id: i for i, e in enumerate(path)})
        calibration = stored.calibration(tokens)
        if calibration is not None:
            assert calibration == calibrate(session, chars4)
        assert stored.calibration_ratio(tokens) == (calibration.ratio if calibration is not None else None)
        for keep in (0, 2_000, 20_000):
            settings = CompactionSettings(keepRecentTokens=keep)
            assert (
                plan(facts, settings, entry_tokens=False).model_dump()
                == plan(whole, settings, entry_tokens=False).model_dump()
            )
        if session.format != "openclaw" and not (session.format == "pi" and (session.version or 1) < 3):
            told = telling_session(store.sessions.header(report.session_id), stored)
            assert write_back_plan(told, look_for_agent=False) == write_back_plan(session, look_for_agent=False)
        # another counter's index comes from the first one, after the facts are let go
        stored.keep_less()
        assert stored.calibration(tokens) == calibration
        assert stored.calibration_ratio(tokens) == (calibration.ratio if calibration is not None else None)
        other = [(t * 7 + i) % 997 for i, t in enumerate(tokens)]
        again, rebuilt = stored.index(other, "tiktoken"), index_path(path, other, "tiktoken")
        for name in INDEX_FIELDS:
            assert getattr(again, name) == getattr(rebuilt, name), name
        assert again.context_estimate() == rebuilt.context_estimate()
        settings = CompactionSettings(keepRecentTokens=3_000)
        assert (
            plan(again, settings, "tiktoken", entry_tokens=False).model_dump()
            == plan(rebuilt, settings, "tiktoken", entry_tokens=False).model_dump()
        )


def test_facts_are_back_filled_by_the_migration(cutline_home: Path) -> None:
    """A store written before m005 gets every entry's facts when it is opened."""
    with Store() as store:
        report = store.import_file(ROOT / "sample_sessions" / "pi-one-compaction.jsonl")
        with store.transaction() as conn:
            conn.execute("UPDATE entries SET facts = NULL")
            conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm005_entry_index_facts'")
            conn.execute("ALTER TABLE entries DROP COLUMN facts")
    with Store() as store:
        assert stored_path(store, report.session_id) is not None


def test_a_stored_path_is_counted_a_window_at_a_time_as_the_whole_session_is(cutline_home: Path) -> None:
    from cutline.core.store.token_counts import stored_path_counts

    with Store() as store:
        report = store.import_file(ROOT / "sample_sessions" / "pi-two-compactions.jsonl")
        session = store.load_session(report.session_id)
        expected = count_entries(store, session, "chars4")
        with store.transaction() as conn:
            conn.execute("DELETE FROM token_counts")
        ids = [e.id for e in session.active_path()]
        assert stored_path_counts(store, report.session_id, ids, "chars4", window=7) == [expected[i] for i in ids]
        assert store.counts.get(report.session_id, "chars4") == {i: expected[i] for i in ids}, "cached as counted"


def test_a_session_let_go_drops_its_entries_and_remembered_path(cutline_home: Path) -> None:
    import gc
    import weakref

    with Store() as store:
        report = store.import_file(ROOT / "sample_sessions" / "pi-two-compactions.jsonl")
        session = store.load_session(report.session_id)
    path = session.active_path()
    first = weakref.ref(path[0])
    del path
    session.let_go(slice_size=3)
    gc.collect()
    assert session.entries == [] and session.active_path() == []
    assert first() is None, "no remembered path keeps the entries alive"


@pytest.mark.parametrize("current_pi", [False, True], ids=["pi-0.73", "current-pi"])
def test_a_long_uncompacted_path_is_planned_reading_a_few_entries_not_every_one(
    tmp_path: Path, cutline_home: Path, current_pi: bool
) -> None:
    """The desk's plan of a path with no compaction (its whole length in the context) takes plain entries from
    their facts, as the CLI's cold plan does: reading all of them cost ~20 s CPU at 100,000 entries (issue 24)."""
    from tests.support.pi_compactions import write_pi_session

    file = write_pi_session(tmp_path / "long.jsonl", turns=200, every=0, current_pi=current_pi)
    with Store() as store:
        report = store.import_file(file)
        session = store.load_session(report.session_id)
        path = session.active_path()
        counts = count_entries(store, session, "chars4")
        tokens = [counts[e.id] for e in path]
        reads: list[int] = []

        def fetch(start: int, stop: int) -> list[Any]:
            reads.append(stop - start)
            return list(store.sessions.path_entries(report.session_id, start, stop))

        found = stored_path(store, report.session_id, StoredEntries(len(path), fetch, windows=64))
        assert found is not None
        stored, _ = found
        index = stored.index(tokens, "chars4")
        whole = index_path(path, tokens, "chars4")
        rules = "pi" if current_pi else None
        for keep in (0, 2_000, 20_000):
            settings = CompactionSettings(keepRecentTokens=keep, contextWindow=4_000)
            assert (
                plan(index, settings, entry_tokens=False, rules=rules).model_dump()
                == plan(whole, settings, entry_tokens=False, rules=rules).model_dump()
            )
        assert len(path) > 1_000
        assert sum(reads) <= 3 * StoredEntries.WINDOW, f"{sum(reads)} of {len(path)} entries read to plan"
        stored.keep_less()  # another counter's plan after the facts are slimmed: still from the facts
        other = [t * 2 for t in tokens]
        settings = CompactionSettings(keepRecentTokens=2_000, contextWindow=4_000)
        assert (
            plan(stored.index(other, "tiktoken"), settings, "tiktoken", entry_tokens=False, rules=rules).model_dump()
            == plan(
                index_path(path, other, "tiktoken"), settings, "tiktoken", entry_tokens=False, rules=rules
            ).model_dump()
        )
        assert sum(reads) <= 3 * StoredEntries.WINDOW


def test_a_long_read_of_the_path_lets_other_readers_in_while_it_rebuilds_entries(
    tmp_path: Path, cutline_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27 item 3: a run's read of a 100,000-entry path held the store's lock while it rebuilt every entry,
    and the desk's list, reading the rows coming into view, waited for all of it (PageUp 19.7 s)."""
    import threading

    import cutline.core.store.sessions as sessions_module
    from tests.support.pi_compactions import write_pi_session

    file = write_pi_session(tmp_path / "long.jsonl", turns=200, every=0)
    with Store() as store:
        report = store.import_file(file)
        length = store.sessions.path_length(report.session_id)
        rebuilt = [0]
        started, other_done = threading.Event(), threading.Event()
        rebuild = sessions_module.entry_from_row

        def slow_rebuild(*row: Any) -> Any:
            rebuilt[0] += 1
            started.set()
            if rebuilt[0] == length // 2:
                other_done.wait(10)  # half-way through the read: the other reader must get in meanwhile
            return rebuild(*row)

        monkeypatch.setattr(sessions_module, "entry_from_row", slow_rebuild)
        result: list[int] = []
        reader = threading.Thread(
            target=lambda: result.append(len(store.sessions.path_entries(report.session_id, 0, length)))
        )
        reader.start()
        assert started.wait(10)
        assert store.sessions.path_length(report.session_id) == length  # blocked until the read ends before
        seen = rebuilt[0]
        other_done.set()
        reader.join(30)
        assert result == [length]
        assert seen < length, "the other read waited for every entry to be rebuilt"
