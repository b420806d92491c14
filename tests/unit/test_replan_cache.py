"""A re-plan of an indexed path reuses what no setting changes, and plans exactly what a cold plan does (issue 24).

The desk re-plans one `PathIndex` on every settings change. What the planners read that no
setting moves (current pi's projection and its estimate, every entry's projected weight, the
previous compaction, each item's path index and where their runs break, the file operations'
first places) is made by the first plan and kept on the index; a re-plan is then binary
searches plus the plan's assembly. Checked two ways: every plan of one warm index, over many
settings in an order that moves the cut back and forth, equals a cold plan (a fresh index) of
the same settings, on every fixture and sample session and the generated pi sessions, whole
and planned from stored facts; and a re-plan's work does not grow with the path.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cutline.core.agents import read_session
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.path_index import PathIndex, index_path
from cutline.core.engine.plan import plan
from cutline.core.store import Store
from cutline.core.tokens import chars4_tokens
from cutline.core.workbench.planning import open_for_plan
from tests.support.pi_compactions import write_pi_session
from tests.support.session_files import GENERATED_PI, SESSION_FILES
from tests.support.work_count import count_lines

# keepRecentTokens in an order that moves the cut both ways, and a few other figures a settings change moves
KEEPS = [20_000, 1, 3_000, 800, 8_000, 0, 150, 1_500, 400, 100_000, 2_500, 50]
OTHERS: list[dict[str, Any]] = [
    {"reserveTokens": 1_000},
    {"reserveTokens": 120_000, "keepRecentTokens": 900},
    {"contextWindow": 50_000, "keepRecentTokens": 1_200},
    {"contextWindow": 16_000, "reserveTokens": 2_000, "keepRecentTokens": 5_000},
    {"enabled": False, "keepRecentTokens": 700},
]
RULES = [None, "pi", "pi-0.73", "openclaw-2026.9"]


def _settings() -> list[CompactionSettings]:
    base = CompactionSettings()
    return [base.with_overrides(keepRecentTokens=k) for k in KEEPS] + [base.with_overrides(**o) for o in OTHERS]


def _dump(index: PathIndex, settings: CompactionSettings, rules: str | None, entry_tokens: bool) -> dict[str, Any]:
    return plan(index, settings, index.counter, entry_tokens=entry_tokens, rules=rules).model_dump(mode="json")


def _whole_index(file: Path) -> Callable[[], PathIndex]:
    path = read_session(file).active_path()
    tokens = [chars4_tokens(e.message) if e.message is not None else 0 for e in path]
    return lambda: index_path(path, tokens, "chars4")


def _generated(tmp_path: Path) -> list[Path]:
    return [write_pi_session(tmp_path / f"{name}.jsonl", **kwargs) for name, kwargs in GENERATED_PI.items()]


def _assert_warm_is_cold(make: Callable[[], PathIndex], label: str) -> int:
    """Every plan of one warm index (many settings, each rule set) equals a cold plan; how many were compared."""
    compared = 0
    for rules in RULES:
        warm = make()
        for at, settings in enumerate(_settings()):
            entry_tokens = at % 3 == 0  # the CLI's --entry-tokens: every entry's count, a copy each plan
            got = _dump(warm, settings, rules, entry_tokens)
            want = _dump(make(), settings, rules, entry_tokens)
            assert got == want, f"{label} rules={rules} {settings.keepRecentTokens=} {settings.reserveTokens=}"
            compared += 1
    return compared


@pytest.mark.parametrize("file", SESSION_FILES, ids=lambda p: p.name)
def test_a_warm_re_plan_is_the_cold_plan_of_every_session_file(file: Path) -> None:
    try:
        make = _whole_index(file)
    except Exception as exc:  # a fixture no reader takes as a session (the corpus's tool folders)
        pytest.skip(f"not a session: {exc}")
    assert _assert_warm_is_cold(make, file.name) == len(RULES) * len(_settings())


def test_a_warm_re_plan_is_the_cold_plan_of_the_generated_pi_sessions(tmp_path: Path) -> None:
    for file in _generated(tmp_path):
        _assert_warm_is_cold(_whole_index(file), file.name)


def test_a_warm_re_plan_from_stored_facts_is_the_cold_plan(tmp_path: Path) -> None:
    """The same through `open_for_plan` on a store: a window of the stored path, its plain entries taken from facts."""
    files = _generated(tmp_path) + [f for f in SESSION_FILES if f.name.startswith("pi") or "pi-0.87" in f.parts]
    windowed = 0
    with Store(tmp_path / "store.db") as store:
        first = CompactionSettings()
        for file in files:
            target = open_for_plan(store, str(file), first, "chars4", lazy=True)
            windowed += target.window is not None

            def cold(file: Path = file) -> PathIndex:
                return open_for_plan(store, str(file), first, "chars4", lazy=True).index

            warm = target.index
            for settings in _settings():
                got = plan(warm, settings, "chars4", entry_tokens=False, rules=target.rules)
                want = plan(cold(), settings, "chars4", entry_tokens=False, rules=target.rules)
                assert got.model_dump(mode="json") == want.model_dump(mode="json"), (
                    f"{file.name} {settings.keepRecentTokens=}"
                )
    assert windowed >= len(GENERATED_PI), "the generated pi files were planned from stored facts"


def _replan_lines(tmp: Path, turns: int, every: int, rules: str) -> int:
    """Lines of cutline's code one re-plan of a warm index runs (a path of `turns` turns, the keep moved)."""
    file = write_pi_session(tmp / f"s-{turns}.jsonl", turns=turns, every=every, seed=3)
    index = _whole_index(file)()
    settings = CompactionSettings(keepRecentTokens=2_000)
    plan(index, settings, "chars4", entry_tokens=False, rules=rules)  # the first plan makes what is kept
    plan(index, settings.with_overrides(keepRecentTokens=1_000), "chars4", entry_tokens=False, rules=rules)
    moved = settings.with_overrides(keepRecentTokens=3_000)
    return count_lines(lambda: plan(index, moved, "chars4", entry_tokens=False, rules=rules))


@pytest.mark.parametrize("every", [0, 6], ids=["uncompacted", "compacted"])
@pytest.mark.parametrize("rules", ["pi", "openclaw-2026.9"])
def test_a_re_plan_does_not_walk_the_window(every: int, rules: str, tmp_path: Path) -> None:
    """A re-plan's work is the same at n and 16n turns: no pass over the window's items (a pass is ~16x)."""
    small, large = _replan_lines(tmp_path, 24, every, rules), _replan_lines(tmp_path, 24 * 16, every, rules)
    assert large <= small * 1.5 + 50, f"a re-plan ran {small} lines at n turns, {large} at 16n"


def test_the_walk_s_sorted_file_lists_are_the_sets_sorted_as_javascript_does() -> None:
    """Random operations, ASCII and not (an astral character against U+E000..U+FFFF, where code-point order and
    JavaScript's differ), random starts, stops and paths named outside: every list is the set's `js_sorted`."""
    import random

    from cutline.core.engine.path_index import js_sorted
    from cutline.core.engine.rules.walk import Item, Walk

    rng = random.Random(24)
    names = ["a.py", "b/c.ts", "Z.md", "é.txt", "\U0001f600.log", "\ue000.cfg", "a", "b/c", "ß/x", "~"]
    for _ in range(60):
        ascii_only = rng.random() < 0.5
        pool = [n for n in names if n.isascii()] if ascii_only else names
        items = [
            Item(i, "message", [], 1, fileops=[(rng.randrange(3), rng.choice(pool)) for _ in range(rng.randrange(3))])
            for i in range(rng.randrange(1, 40))
        ]
        walk = Walk(items)
        for _ in range(8):
            start = rng.randrange(len(items) + 1)
            stop = rng.randrange(len(items) + 1)
            extra = [[rng.choice(names) for _ in range(rng.randrange(3))] for _ in range(3)]
            sets: list[set[str]] = [set(extra[k]) for k in range(3)]
            for i in range(start, stop):
                for kind, target in items[i].fileops:
                    sets[kind].add(target)
            want = [js_sorted(s) for s in (*sets, sets[1] | sets[2])]
            assert walk.sorted_file_ops(start, stop, [*extra, extra[1] + extra[2]]) == want
