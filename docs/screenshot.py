"""Regenerate docs/review-screen.svg: the review screen on the sample coding session, with the plan drawn.

    python docs/screenshot.py

Runs headless with a fixed clock in a throwaway CUTLINE_HOME, so it never touches your store.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


async def main() -> None:
    from cutline.app.config import TuiConfig
    from cutline.app.tui import create_app

    with tempfile.TemporaryDirectory(prefix="cutline-shot-") as tmp:
        os.environ["CUTLINE_HOME"] = tmp
        session = Path(tmp) / "pi-coding-session.jsonl"
        shutil.copyfile(ROOT / "sample_sessions" / "pi-coding-session.jsonl", session)
        os.chdir(tmp)
        app = create_app(
            Path(tmp) / "cutline.db",
            str(session),
            clock=lambda: datetime(2026, 1, 6, 9, 30, tzinfo=UTC),
            cursor_blink=False,
            config=TuiConfig(),
        )
        async with app.run_test(size=(160, 44)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("period", "k", "k")
            await app.workers.wait_for_complete()
            await pilot.pause()
            svg = app.export_screenshot(title="cutline pi-coding-session.jsonl")
    (ROOT / "docs" / "review-screen.svg").write_text(svg, encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
