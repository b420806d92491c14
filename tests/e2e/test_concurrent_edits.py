"""Two app processes (two browser tabs in web mode) editing one proposal on one store lose no version."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from cutline.core import review
from cutline.core.store import Store
from tests.support.paths import ROOT, SAMPLES

EDITS_PER_APP = 6

# One app process: open the session's review screen headless, edit the summary
# EDITS_PER_APP times, waiting each time until the autosave worker stored the text.
EDITOR_SCRIPT = r"""
import asyncio, json, sys
from pathlib import Path
from textual.widgets import TextArea
from tests.support.tui_app import test_app

store, session, tag, edits = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

async def main() -> None:
    app = test_app(Path(store), session, autosave_seconds=0.01)
    async with app.run_test(size=(150, 42)) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            screen = app.screen
            if getattr(screen, "proposal", None) is not None:
                break
        screen = app.screen
        assert screen.proposal is not None, "the review screen did not load the proposal"
        await pilot.press("e")
        editor = screen.query_one("#summary-editor", TextArea)
        for i in range(edits):
            editor.move_cursor(editor.document.end)
            await pilot.press(*f" {tag}-{i}")
            for _ in range(400):
                await pilot.pause(0.02)
                if screen.pending_text is None:
                    break
            assert screen.pending_text is None, f"edit {i} of {tag} was never saved"
        saved = [[v.n, v.text] for v in screen.versions if v.origin == "edited"]
        await pilot.press("ctrl+q")
    print("SAVED " + json.dumps(saved))

asyncio.run(main())
"""


def test_two_app_processes_editing_one_proposal_lose_no_version(cutline_home: Path, tmp_path: Path) -> None:
    session_file = tmp_path / "pi-branched.jsonl"
    shutil.copyfile(SAMPLES / "pi-branched.jsonl", session_file)
    made = subprocess.run(
        [
            sys.executable,
            "-m",
            "cutline.app.cli",
            "compact",
            str(session_file),
            "--keep-recent-tokens",
            "2000",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert made.returncode == 0, made.stderr
    proposal_id = json.loads(made.stdout)["id"]
    store_path = cutline_home / "cutline.db"

    env = {**os.environ, "CUTLINE_HOME": str(cutline_home), "PYTHONPATH": str(ROOT)}
    editors = [
        subprocess.Popen(
            [sys.executable, "-c", EDITOR_SCRIPT, str(store_path), str(session_file), tag, str(EDITS_PER_APP)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("TABONE", "TABTWO")
    ]
    saved_by_apps: list[tuple[int, str]] = []
    for proc in editors:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-3000:]
        line = next(line for line in out.splitlines() if line.startswith("SAVED "))
        saved_by_apps.extend((n, text) for n, text in json.loads(line[len("SAVED ") :]))

    with Store(store_path) as store:
        stored = review.versions(store, proposal_id)
    numbers = [v.n for v in stored]
    assert numbers == list(range(1, len(stored) + 1)), "version numbers are unique and gapless"
    assert stored[0].origin == "generated"
    edited = [v for v in stored if v.origin == "edited"]
    # every version either app was told it saved is in the store, under the number it was given
    in_store = {(v.n, v.text) for v in edited}
    assert saved_by_apps and set(saved_by_apps) <= in_store
    assert len({n for n, _ in saved_by_apps}) == len(saved_by_apps), "no number was handed out twice"
    for tag in ("TABONE", "TABTWO"):
        for i in range(EDITS_PER_APP):
            # each app saved the text it had after its i-th edit: all of its marks up to i
            expected_tail = "".join(f" {tag}-{k}" for k in range(i + 1))
            assert any(v.text.endswith(expected_tail) for v in edited), f"{tag} edit {i} lost"
