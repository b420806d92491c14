"""The review desk on a 100,000-entry session: first paint, settings change → moved cut line, resident memory.

Targets (issue 5): first paint ≤ 1 s, settings change to moved cut on screen ≤ 50 ms,
RSS ≤ 300 MB. Each side runs in its own child process on the same store, prepared
first (import + chars4 counts cached, as after the first `cutline FILE`):

- `baseline`: what any viewer of the session must do — `Store.load_session`, the
  active path, the cached counts, one plan; its RSS is the floor for the data alone.
- `desk`: the app headless at 160x45: start → review screen painted with the plan;
  then keepRecentTokens typed into the settings panel → the cut line moved and
  repainted (median of several changes); and its peak RSS.

    python bench/bench_tui.py [--file /tmp/cutline-100k.jsonl] [--changes 9]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def prepare(file: Path, home: Path) -> str:
    os.environ["CUTLINE_HOME"] = str(home)
    from cutline.core.store import Store
    from cutline.core.store.token_counts import count_entries

    with Store() as store:
        report = store.import_file(file)
        count_entries(store, store.load_session(report.session_id), "chars4")
        return report.session_id


def child_baseline(session_id: str) -> dict:
    from cutline.core.config.settings import CompactionSettings
    from cutline.core.engine.plan import index_path, plan
    from cutline.core.store import Store

    start = time.perf_counter()
    with Store() as store:
        session = store.load_session(session_id)
        path = session.active_path()
        counts = store.token_counts(session_id, "chars4")
        tokens = [counts.get(e.id, 0) for e in path]
    loaded = time.perf_counter()
    index = index_path(path, tokens, "chars4")
    plan(index, CompactionSettings(), "chars4", entry_tokens=False)
    planned = time.perf_counter()
    replans = []
    for keep in range(10_000, 100_000, 10_000):
        t = time.perf_counter()
        plan(index, CompactionSettings(keepRecentTokens=keep), "chars4", entry_tokens=False)
        replans.append(time.perf_counter() - t)
    return {
        "load_s": loaded - start,
        "first_plan_s": planned - start,
        "replan_s": statistics.median(replans),
        "entries": len(path),
        "rss_mb": _rss_mb(),
    }


def child_desk(session_id: str, changes: int) -> dict:
    from textual.widgets import Input

    from cutline.app.config import TuiConfig
    from cutline.app.screens.review import ReviewScreen
    from cutline.app.tui import create_app
    from cutline.app.widgets.message_list import MessageList

    result: dict = {}

    async def run() -> None:
        start = time.perf_counter()
        app = create_app(None, session_id, cursor_blink=False, config=TuiConfig())
        async with app.run_test(size=(160, 45)) as pilot:
            # wait on the workers rather than polling, so the benchmark does not compete for the GIL
            while not (isinstance(app.screen, ReviewScreen) and app.screen.plan is not None):
                await pilot.pause()
                await app.workers.wait_for_complete()
            await pilot.pause()
            result["first_paint_s"] = time.perf_counter() - start
            screen = app.screen
            message_list = screen.query_one(MessageList)
            await pilot.press("s")
            await pilot.pause()
            field = screen.query_one("#setting-keepRecentTokens", Input)
            times = []
            moved = 0
            for i in range(changes):
                # alternate so the cut moves back and forth inside the stretch after the last compaction
                keep = 3_000 if i % 2 == 0 else 8_000
                before = message_list.marks.first_kept
                rendered = message_list.lines_rendered
                t = time.perf_counter()
                field.value = str(keep)  # what typing the last digit does
                await pilot.pause()  # the Changed message, the re-plan and the repaint
                times.append(time.perf_counter() - t)
                moved += message_list.marks.first_kept != before
                assert message_list.lines_rendered > rendered, "the list was repainted"
            result["cut_moved"] = moved
            result["settings_change_s"] = statistics.median(times)
            result["settings_change_max_s"] = max(times)
            result["rss_mb"] = _rss_mb()

    asyncio.run(run())
    return result


def _child(mode: str, session_id: str, home: Path, changes: int) -> dict:
    env = {**os.environ, "CUTLINE_HOME": str(home)}
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, "--session", session_id, "--changes", str(changes)],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if out.returncode:
        sys.exit(f"{mode} child failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--file", type=Path, default=Path("/tmp/cutline-100k.jsonl"))
    parser.add_argument("--changes", type=int, default=9)
    parser.add_argument("--child")
    parser.add_argument("--session")
    parser.add_argument("--home", type=Path, help="reuse (or create) a prepared store in this directory")
    parser.add_argument("--only-desk", action="store_true")
    args = parser.parse_args()
    if args.child:
        data = child_baseline(args.session) if args.child == "baseline" else child_desk(args.session, args.changes)
        print(json.dumps(data))
        return
    if not args.file.exists():
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen_large_session.py"), "-o", str(args.file)], check=True)
    with tempfile.TemporaryDirectory(prefix="cutline-bench-tui-") as tmp:
        home = args.home or Path(tmp)
        home.mkdir(parents=True, exist_ok=True)
        t = time.perf_counter()
        session_id = prepare(args.file, home)
        print(f"prepared store (import + chars4 counts): {time.perf_counter() - t:.1f} s")
        base = (
            {"entries": 0, "load_s": 1, "first_plan_s": 1, "replan_s": 1, "rss_mb": 1}
            if args.only_desk
            else _child("baseline", session_id, home, args.changes)
        )
        desk = _child("desk", session_id, home, args.changes)
    print(f"entries on the active path: {base['entries']:,}")
    print(
        f"baseline  load {base['load_s']:.3f} s · load+plan {base['first_plan_s']:.3f} s · "
        f"re-plan {base['replan_s'] * 1000:.2f} ms · RSS {base['rss_mb']:.0f} MB"
    )
    print(
        f"desk      first paint {desk['first_paint_s']:.3f} s ({desk['first_paint_s'] / base['first_plan_s']:.2f}x load+plan; target ≤ 1 s)"
    )
    print(
        f"desk      settings change → cut moved on screen {desk['settings_change_s'] * 1000:.1f} ms median, "
        f"{desk['settings_change_max_s'] * 1000:.1f} ms max, cut moved {desk['cut_moved']}/{args.changes} ({desk['settings_change_s'] / base['replan_s']:.0f}x a bare re-plan; target ≤ 50 ms)"
    )
    print(
        f"desk      RSS {desk['rss_mb']:.0f} MB ({desk['rss_mb'] / base['rss_mb']:.2f}x the data alone; target ≤ 300 MB)"
    )


if __name__ == "__main__":
    main()
