"""Downloads from the review desk: the session as pi JSONL and the timeline as SVG (a file in a terminal)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from cutline.app.screens.session_review import ReviewScreen, download_stem
from cutline.core.models import Session
from tests.support.tui_app import SIZE, sample_copy, settle, test_app


async def test_export_and_timeline_downloads_land_in_the_exports_dir(tmp_path: Path, cutline_home: Path) -> None:
    session_file = sample_copy(tmp_path, "pi-branched.jsonl")
    app = test_app(tmp_path / "store.db", str(session_file))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        stem = download_stem(screen.session)
        exported = cutline_home / "exports" / f"{stem}.jsonl"
        timeline = cutline_home / "exports" / f"{stem}-timeline.svg"
        for key, target in (("E", exported), ("T", timeline)):
            await pilot.press(key)
            # the file is written by the driver's delivery thread: wait for it to complete
            for _ in range(200):
                await settle(app, pilot)
                if target.exists() and target.stat().st_size > 0:
                    break
            assert target.exists(), f"{key} saved nothing"
    assert exported.read_bytes() == session_file.read_bytes(), "the export is byte-identical to the session file"
    root = ET.fromstring(timeline.read_text(encoding="utf-8"))
    assert root.tag.endswith("svg")


def test_download_names_are_file_safe() -> None:
    assert download_stem(Session(id="x", format="pi", name="fix: the/odd name")) == "fix--the-odd-name"
    assert download_stem(Session(id="abc", format="pi")) == "abc"
