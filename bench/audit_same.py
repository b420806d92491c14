"""`audit --proposal` of generated uncompacted sessions: the same output as another cutline's (text and --json)?

    python bench/audit_same.py --base /path/to/main/checkout [--sizes 10k,20k,100k] [--formats text,json]

Each size's session (`bench/sessions.py --sessions uncompacted`'s file) is imported into a
temporary CUTLINE_HOME (the audit reads the stored path as a window) and a proposal made
with `compact --summarizer extractive` (this tree's cutline); then this tree's and the base tree's `audit --proposal` run on that one
store and their outputs are compared byte for byte. `/usr/bin/time -v`'s peak RSS and CPU
of each run are printed beside (one run each: for the figures, see bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sessions import parse_sizes, session_file

PY = sys.executable
HERE = Path(__file__).resolve().parent.parent
_CLI = "import sys; from cutline.app.cli import main; sys.argv[0] = 'cutline'; main()"


def run(source: Path, args: list[str], home: str) -> tuple[bytes, float, int]:
    """stdout, CPU seconds (user + sys) and peak RSS (KB) of `cutline ARGS` from `source`'s tree, run in `home`."""
    env = {**os.environ, "CUTLINE_HOME": home, "HOME": home, "PYTHONPATH": str(source)}
    with tempfile.NamedTemporaryFile(prefix="audit-same-", suffix=".time") as timing:
        # run in the home: `-c` puts the working directory first on sys.path, before PYTHONPATH (this tree's cutline/)
        done = subprocess.run(
            ["/usr/bin/time", "-v", "-o", timing.name, PY, "-c", _CLI, *args],
            env=env,
            capture_output=True,
            check=True,
            cwd=home,
        )
        text = Path(timing.name).read_text()
    cpu = sum(float(re.search(rf"{what} time \(seconds\): ([\d.]+)", text).group(1)) for what in ("User", "System"))  # type: ignore[union-attr]
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))  # type: ignore[union-attr]
    return done.stdout, cpu, rss


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, type=Path, help="the other cutline's source tree (holds cutline/)")
    parser.add_argument("--sizes", default="10k,20k")
    parser.add_argument("--formats", default="text,json")
    args = parser.parse_args()
    differ = 0
    for size in parse_sizes(args.sizes):
        file = session_file(size, compacted=False)
        home = tempfile.mkdtemp(prefix="audit-same-")
        try:
            run(HERE, ["import", str(file)], home)  # as `bench_commands.py` does: the audit reads a stored window
            made, _, _ = run(HERE, ["compact", "--summarizer", "extractive", "--json", str(file)], home)
            proposal = json.loads(made)["id"]
            for form in args.formats.split(","):
                command = ["audit", "--proposal", proposal] + (["--json"] if form == "json" else [])
                base, base_cpu, base_rss = run(args.base, command, home)
                ours, cpu, rss = run(HERE, command, home)
                same = base == ours
                differ += not same
                print(
                    f"{size} {form}: {'same' if same else 'DIFFERENT'} ({len(ours):,} bytes); "
                    f"base {base_cpu:.2f} s CPU {base_rss / 1024:.0f} MB, this tree {cpu:.2f} s CPU {rss / 1024:.0f} MB",
                    flush=True,
                )
        finally:
            shutil.rmtree(home, ignore_errors=True)
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
