"""`compact --summarizer extractive --json` of many session files: the same proposal as another cutline's?

    python bench/compact_same.py --base-cli /work/main/.venv/bin/cutline [FILE_OR_DIR ...]

Each file is given to this tree's cutline (the one beside this Python) and to the base
cutline, each with its own temporary CUTLINE_HOME (and HOME), as `compact --summarizer
extractive --json FILE`; where the default plan makes no proposal, both run again with
`--keep-recent-tokens 2000` (as bench_commands.py does). The proposals are compared
without the fields that differ from run to run (`id`, `created_at`, `entryId`, `timings`);
a file neither makes a proposal of must fail the same way (exit code and message).
Without files: the sample sessions and every `.jsonl` under tests/fixtures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
CLI = str(Path(sys.executable).parent / "cutline")
_VARYING = ("id", "created_at", "entryId", "timings")


def run(cli: str, home: str, args: list[str]) -> tuple[int, str, str]:
    env = {**os.environ, "CUTLINE_HOME": home, "HOME": home}
    done = subprocess.run([cli, *args], env=env, capture_output=True, text=True, cwd=home)
    return done.returncode, done.stdout, done.stderr.replace(home, "HOME")


def steady(stdout: str) -> object:
    proposal = json.loads(stdout)
    for key in _VARYING:
        proposal.pop(key, None)
    return proposal


def compare(base: str, file: Path, homes: tuple[str, str]) -> str:
    """'same', 'same (no proposal)' or what differs."""
    args = ["compact", "--summarizer", "extractive", "--json", str(file)]
    ours = run(CLI, homes[0], args)
    theirs = run(base, homes[1], args)
    if ours[0] != 0 and theirs[0] != 0 and "--keep-recent-tokens" not in args:
        args = [*args[:-1], "--keep-recent-tokens", "2000", str(file)]
        ours, theirs = run(CLI, homes[0], args), run(base, homes[1], args)
    if ours[0] != theirs[0]:
        return f"exit {ours[0]} vs {theirs[0]}: {ours[2].strip()[:200]} | {theirs[2].strip()[:200]}"
    if ours[0] != 0:
        return "same (no proposal)" if ours[2] == theirs[2] else f"errors differ: {ours[2][:200]} | {theirs[2][:200]}"
    return "same" if steady(ours[1]) == steady(theirs[1]) else "proposals differ"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--base-cli", required=True, help="the cutline to compare against (e.g. main's .venv/bin/cutline)"
    )
    parser.add_argument("paths", nargs="*", type=Path)
    args = parser.parse_args()
    paths = args.paths or [HERE / "sample_sessions", HERE / "tests" / "fixtures"]
    files: list[Path] = []
    for path in paths:
        path = path.resolve()
        files += sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]
    counts: dict[str, int] = {}
    with (
        tempfile.TemporaryDirectory(prefix="compact-same-") as ours,
        tempfile.TemporaryDirectory(prefix="compact-same-") as theirs,
    ):
        for file in files:
            verdict = compare(args.base_cli, file, (ours, theirs))
            kind = verdict if verdict.startswith("same") else "DIFFERENT"
            counts[kind] = counts.get(kind, 0) + 1
            print(
                f"{kind if kind == 'DIFFERENT' else verdict:20} {file}"
                + ("" if kind != "DIFFERENT" else f": {verdict}"),
                flush=True,
            )
    print(", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())))
    sys.exit(1 if "DIFFERENT" in counts else 0)


if __name__ == "__main__":
    main()
