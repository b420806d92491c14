"""Whole-process timings of cutline's commands on 1k / 10k / 100k-entry pi sessions, each against a baseline run beside it.

Every figure is one command as a person runs it (interpreter start included), timed
with `/usr/bin/time` in a child process (wall, user + sys CPU, peak RSS), next to its
baseline run in the same round (paired, alternating), median of `--repeat` rounds:

- `plan`: cold `cutline plan --json --keep-recent-tokens 20000 FILE` (fresh store:
  read, import, count, plan) against pi's own process planning the same file (the
  oracle: node start, parse, migrate, prepareCompaction). Target ≤ 1.0x, and the
  10k → 100k growth no worse than linear.
- `import`: `cutline import FILE` into a fresh store against `json.loads` of every line
  plus one `executemany` of the raw lines into a WAL SQLite table. Target ≤ 2x,
  peak ≤ 300 MB.
- `audit --proposal` (of the proposal a first untimed `compact` stored), `compact` (extractive), `timeline --json`, `tokens --json`: given FILE on a
  store that imported it already (the store knows the file), against a whole process
  doing `json.loads` of every line of the file. Target ≤ 2x.
- `load` (only with `--only load,...`): a process that opens the store, recognizes the
  unchanged FILE and loads the whole session: the floor under the four commands above.
- `ls` on a store of 20+ sessions (370k entries), target ≤ 0.3 s; `cutline --help`,
  target ≤ 60 ms; both shown next to a bare `python -c pass`.

The load average is printed before and after each group: the machine is shared.

    python bench/bench_commands.py [--sizes 1k,10k,100k] [--spellings compact,spaced]
        [--sessions compacted,uncompacted] [--pi-version 0.87.1]
        [--only plan,import,audit,compact,timeline,tokens,ls,help] [--repeat 3] [--cutline PATH --source DIR]

`--sessions uncompacted` runs the same generator with no compaction ever inserted (one
long stretch: auto-compaction off, a 1M-token window): every command then reads the
whole path as its window. `--pi-version` is the pi the oracle runs (PI_VERSION; default
0.87.1, current pi, whose planner `cutline plan` follows by default).

Bytecode of cutline's sources is compiled first (a person's install has it; with
PYTHONDONTWRITEBYTECODE set, as on the dev box, every start compiled ~80 modules).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from grow_sessions import grown_file  # noqa: E402
from sessions import SIZES, SPELLINGS, parse_sizes, session_file  # noqa: E402

ORACLE = HERE.parent.parent / "shared" / "tools" / "pi-oracle" / "run"
if not ORACLE.exists():
    ORACLE = Path("/work/shared/tools/pi-oracle/run")
PY = sys.executable
CUTLINE = shutil.which("cutline", path=str(Path(PY).parent)) or "cutline"
TIME = "/usr/bin/time"
CUTLINE_SRC = HERE.parent

_LOADS = (
    "import json,sys\nwith open(sys.argv[1],encoding='utf-8') as f:\n    for line in f:\n        json.loads(line)\n"
)
_IMPORT_BASELINE = """
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[2], isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("CREATE TABLE IF NOT EXISTS e (seq INTEGER PRIMARY KEY, id TEXT, raw TEXT)")
rows = []
with open(sys.argv[1], encoding="utf-8") as f:
    for seq, line in enumerate(f):
        line = line.rstrip("\\n")
        rows.append((seq, json.loads(line).get("id"), line))
db.execute("BEGIN")
db.executemany("INSERT INTO e VALUES (?, ?, ?)", rows)
db.execute("COMMIT")
"""


@dataclass
class Run:
    wall: float
    cpu: float
    rss_mb: float


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def timed(args: list[str], env: dict[str, str] | None = None) -> Run:
    """One child process under /usr/bin/time: wall, user+sys, peak RSS."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
        proc = subprocess.run(
            [TIME, "-o", out.name, "-f", "%e %U %S %M", *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if proc.returncode != 0:
            raise SystemExit(f"failed ({proc.returncode}): {' '.join(args)}\n{proc.stderr[-2000:]}")
        wall, user, system, rss = out.read().split()[-4:]
    return Run(float(wall), float(user) + float(system), int(rss) / 1024)


def home_env(home: str) -> dict[str, str]:
    return {**os.environ, "CUTLINE_HOME": home, "HOME": home}


@dataclass
class Row:
    what: str
    size: str
    ours: list[Run]
    base: list[Run]
    target: float | None

    def report(self) -> str:
        ow, oc = statistics.median(r.wall for r in self.ours), statistics.median(r.cpu for r in self.ours)
        bw, bc = statistics.median(r.wall for r in self.base), statistics.median(r.cpu for r in self.base)
        rss = max(r.rss_mb for r in self.ours)
        pairs = statistics.median(o.wall / max(b.wall, 0.01) for o, b in zip(self.ours, self.base))
        mark = ""
        if self.target is not None:
            mark = "ok" if min(oc / max(bc, 0.01), pairs) <= self.target else "OVER"
            mark = f"target {self.target:g}x {mark}"
        return (
            f"  {self.what:<9} {self.size:<13} ours {ow:7.2f} s wall {oc:7.2f} s cpu {rss:6.0f} MB | "
            f"base {bw:7.2f} s wall {bc:7.2f} s cpu | ratio wall {ow / max(bw, 0.01):5.2f} (pairs {pairs:5.2f}) cpu {oc / max(bc, 0.01):5.2f}  {mark}"
        )


PI_VERSION = "0.87.1"


def bench_plan(file: Path, label: str, repeat: int) -> Row:
    ours, base = [], []
    oracle_env = {**os.environ, "PI_VERSION": PI_VERSION}
    timed([str(ORACLE), str(file), "20000"], oracle_env)  # installs that pi on first use: not timed
    for _ in range(repeat):
        home = tempfile.mkdtemp(prefix="cutline-bench-")
        try:
            base.append(timed([str(ORACLE), str(file), "20000"], oracle_env))
            ours.append(timed([CUTLINE, "plan", "--json", "--keep-recent-tokens", "20000", str(file)], home_env(home)))
        finally:
            shutil.rmtree(home, ignore_errors=True)
    return Row("plan", label, ours, base, 1.0)


def bench_import(file: Path, label: str, repeat: int) -> Row:
    ours, base = [], []
    for _ in range(repeat):
        home = tempfile.mkdtemp(prefix="cutline-bench-")
        try:
            base.append(timed([PY, "-c", _IMPORT_BASELINE, str(file), os.path.join(home, "base.db")]))
            ours.append(timed([CUTLINE, "import", str(file)], home_env(home)))
        finally:
            shutil.rmtree(home, ignore_errors=True)
    return Row("import", label, ours, base, 2.0)


_ARGS = {
    "audit": ["audit", "--json", "--proposal"],  # + the proposal id a first untimed compact stored
    "compact": ["compact", "--summarizer", "extractive", "--json"],
    "timeline": ["timeline", "--json"],
    "tokens": ["tokens", "--json"],
}


_SMALL_KEEP = 2_000  # tokens kept when the default keep gives no proposal


def bench_stored(names: list[str], file: Path, label: str, repeat: int) -> list[Row]:
    home = tempfile.mkdtemp(prefix="cutline-bench-")
    env = home_env(home)
    try:
        timed([CUTLINE, "import", str(file)], env)
        proposal = None
        compact_args = list(_ARGS["compact"])
        if "audit" in names or "compact" in names:
            made = subprocess.run([CUTLINE, *compact_args, str(file)], env=env, capture_output=True, text=True)
            if made.returncode != 0 and "would grow the context" in made.stderr:
                # e.g. a grown Claude Code session: its last usage is one short turn's, so the default
                # keep plus a summary is more than the context; keeping less gives a proposal to time
                compact_args += ["--keep-recent-tokens", str(_SMALL_KEEP)]
                print(f"  ({label}: the default plan would grow the context; --keep-recent-tokens {_SMALL_KEEP})")
                made = subprocess.run([CUTLINE, *compact_args, str(file)], env=env, capture_output=True, text=True)
            proposal = json.loads(made.stdout)["id"] if made.returncode == 0 else None
        if proposal is None and (
            "audit" in names or "compact" in names
        ):  # e.g. the 10k session's default plan has nothing to summarize
            print(f"  (no proposal at {label}: {made.stderr.strip()[:120]}; audit and compact skipped)", flush=True)
            names = [n for n in names if n not in ("audit", "compact")]
        rows = []
        if "load" in names:  # the floor of every command that builds the whole stored session
            load_script = (
                "import sys\nfrom cutline.core.store import Store\nwith Store() as s:\n"
                "    s.load_session(s.import_file(sys.argv[1]).session_id)\n"
            )
            ours, base = [], []
            for _ in range(repeat):
                base.append(timed([PY, "-c", _LOADS, str(file)]))
                ours.append(timed([PY, "-c", load_script, str(file)], env))
            rows.append(Row("load", label, ours, base, None))
        for name in [n for n in names if n != "load"]:
            ours, base = [], []
            args = compact_args if name == "compact" else _ARGS[name]
            command = [CUTLINE, *args, *([proposal] if name == "audit" else []), str(file)]
            for _ in range(repeat):
                base.append(timed([PY, "-c", _LOADS, str(file)]))
                ours.append(timed(command, env))
            rows.append(Row(name, label, ours, base, 2.0))
        return rows
    finally:
        shutil.rmtree(home, ignore_errors=True)


def ls_store(directory: Path) -> Path:
    """A store of 21 sessions (the six generated files and fifteen copies of the 10k one), made once per schema.

    Why per schema: the directory is shared by everyone benching on the machine, and a
    store another branch migrated further cannot be opened by this one.
    """
    schema = hashlib.sha256((CUTLINE_SRC / "core" / "store" / "migrations.py").read_bytes()).hexdigest()[:12]
    home = directory / f"ls-home-{schema}"
    if (home / "ready").exists():
        return home
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    files = [session_file(size, spelling) for size in SIZES for spelling in SPELLINGS]
    copies = home / "copies"
    copies.mkdir()
    for i in range(15):
        copy = copies / f"copy-{i}.jsonl"
        shutil.copyfile(session_file(10_000), copy)
        files.append(copy)
    subprocess.run([CUTLINE, "import", *map(str, files)], env=home_env(str(home)), check=True, capture_output=True)
    (home / "ready").write_text("")
    return home


def bench_ls(repeat: int) -> Row:
    home = ls_store(Path(tempfile.gettempdir()) / "cutline-bench-sessions")
    ours, base = [], []
    for _ in range(repeat):
        base.append(timed([PY, "-c", "pass"]))
        ours.append(timed([CUTLINE, "ls"], home_env(str(home))))
    return Row("ls", "21 sessions", ours, base, None)


def bench_help(repeat: int) -> Row:
    ours, base = [], []
    home = tempfile.mkdtemp(prefix="cutline-bench-")
    try:
        for _ in range(repeat):
            base.append(timed([PY, "-c", "pass"]))
            ours.append(timed([CUTLINE, "--help"], home_env(home)))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return Row("--help", "-", ours, base, None)


def run_group(file: Path, label: str, only: list[str], stored: list[str], repeat: int) -> None:
    """Every asked-for row of one session file, printed as it is measured."""
    if "plan" in only:
        print(bench_plan(file, label, repeat).report(), flush=True)
    if "import" in only:
        print(bench_import(file, label, repeat).report(), flush=True)
    if stored:
        for row in bench_stored(stored, file, label, repeat):
            print(row.report(), flush=True)
    print(f"  load average: {load()}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1k,10k,100k")
    parser.add_argument("--spellings", default="compact,spaced")
    parser.add_argument("--sessions", default="compacted", help="compacted, uncompacted or both (comma-separated)")
    parser.add_argument(
        "--grown",
        default="",
        help="also Claude Code and Codex sessions grown from the corpus to these record counts (e.g. 10000,50000)",
    )
    parser.add_argument("--pi-version", default="0.87.1", help="the pi the cold plan is timed against")
    parser.add_argument("--only", default="plan,import,audit,compact,timeline,tokens,ls,help")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cutline", default=None, help="the cutline to time (default: the one beside this Python)")
    parser.add_argument("--source", default=str(CUTLINE_SRC), help="that cutline's source tree (compiled first)")
    args = parser.parse_args()
    global CUTLINE, PI_VERSION
    PI_VERSION = args.pi_version
    if args.cutline:
        CUTLINE = args.cutline
    # a person's install has bytecode; without it (PYTHONDONTWRITEBYTECODE) every start compiles ~80 modules
    source = Path(args.source)
    subprocess.run(
        [PY, "-m", "compileall", "-q", str(source / "core"), str(source / "app")], check=True, stdout=subprocess.DEVNULL
    )
    only = args.only.split(",")
    stored = [name for name in ("load", *_ARGS) if name in only]
    print(f"load average at start: {load()}  ({CUTLINE}; pi {PI_VERSION})")
    kinds = [kind == "compacted" for kind in args.sessions.split(",")]
    for size in parse_sizes(args.sizes):
        for compacted in kinds:
            for spelling in args.spellings.split(","):
                file = session_file(size, spelling, compacted=compacted)
                label = f"{size // 1000}k {spelling}" + ("" if compacted else " nocomp")
                run_group(file, label, only, stored, args.repeat)
    for records in parse_sizes(args.grown) if args.grown else []:
        for agent in ("claude-code", "codex"):
            # no pi oracle for these files: the plan row is pi's alone
            run_group(
                grown_file(agent, records),
                f"{agent} {records // 1000}k",
                [n for n in only if n != "plan"],
                stored,
                args.repeat,
            )
    if "ls" in only:
        row = bench_ls(max(args.repeat, 5))
        print(row.report() + "  (target 0.3 s wall)", flush=True)
    if "help" in only:
        row = bench_help(max(args.repeat, 9))
        print(row.report() + "  (target 60 ms wall)", flush=True)
    print(f"load average at end: {load()}")


if __name__ == "__main__":
    main()
