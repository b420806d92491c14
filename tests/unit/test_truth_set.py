"""The truth set (bench/truth) is what its generator writes, and every hand-written judge gives its planted verdict."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRUTH = ROOT / "tests" / "fixtures" / "truth"


def test_committed_truth_set_is_the_generators_output_and_judges_agree() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "truth" / "generate.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_kind_gets_every_treatment_in_both_splits() -> None:
    key = json.loads((TRUTH / "key.json").read_text(encoding="utf-8"))
    cells: dict[tuple[str, str, str], int] = {}
    for fact in key["facts"]:
        cell = (fact["split"], fact["kind"], fact["treatment"])
        cells[cell] = cells.get(cell, 0) + 1
    assert len(cells) == 2 * 10 * 4
    assert {n for (split, _, _), n in cells.items() if split == "tune"} == {4}
    assert {n for (split, _, _), n in cells.items() if split == "heldout"} == {2}


def test_the_openings_and_implicit_parts_are_their_generators_output_and_judges_agree() -> None:
    """bench/truth/implicit.py also fails when a judge does not keep every fact of a good summary, or keeps one of a
    bad summary's (the latest request aside)."""
    for generator in (
        "openings.py",
        "implicit.py",
        "implicit2.py",
        "implicit3.py",
        "implicit4.py",
        "implicit5.py",
        "functions.py",
    ):
        done = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "truth" / generator), "--check"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, generator + ": " + done.stdout + done.stderr
