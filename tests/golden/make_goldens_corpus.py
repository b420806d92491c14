"""Regenerates the corpus goldens of the pi rule sets from pi's own code (needs node).

For every pi session file of the conformance corpus (tests/fixtures/corpus/manifest.json)
and every state it went through — each line prefix, the file as pi had appended it so
far, the full file last — the pi oracle (../shared/tools/pi-oracle) prints what pi
decides. The version that wrote the file plans it (pi-0.73/* with PI_VERSION=0.73.1,
pi-0.87/* with PI_VERSION=0.87.1), and current pi also plans pi 0.73's files (a user who
upgraded pi resumes them). Output: tests/golden/corpus-rules/<file>.<oracle>.golden.json,
one per (file, oracle), the plans of each state under `states[<lines>]`.
    python3 tests/golden/make_goldens_corpus.py
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
OUT = ROOT / "tests" / "golden" / "corpus-rules"
KEEPS = ["0", "1", "100", "500", "1000", "2000", "3000", "5000", "20000", "50000"]
ORACLES = {"pi-0.73": "0.73.1", "pi-0.87": "0.87.1"}


def _shared() -> Path:
    for candidate in (ROOT.parent / "shared", ROOT.parent.parent / "shared"):
        if candidate.is_dir():
            return candidate
    raise SystemExit("../shared not found")


def _oracle(source: Path, version: str) -> dict[str, object]:
    tool = os.environ.get("PI_ORACLE") or str(_shared() / "tools" / "pi-oracle" / "run")
    env = {**os.environ, "PI_VERSION": version}
    out = subprocess.run([tool, str(source), *KEEPS], env=env, check=True, capture_output=True, text=True).stdout
    data: dict[str, object] = json.loads(out)
    for planned in dict(data["plans"]).values():  # type: ignore[call-overload]
        if planned:
            planned.pop("ms", None)
    return data


def _golden(source: Path, oracle: str) -> dict[str, object]:
    lines = source.read_bytes().splitlines(keepends=True)
    full = _oracle(source, ORACLES[oracle])
    states: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(2, len(lines) + 1):
            prefix = Path(tmp) / source.name
            prefix.write_bytes(b"".join(lines[:n]))
            state = full if n == len(lines) else _oracle(prefix, ORACLES[oracle])
            states[str(n)] = {key: state[key] for key in ("pathLength", "contextMessages", "plans")}
    return {
        "source": str(source.relative_to(ROOT)),
        "sourceSha256": hashlib.sha256(source.read_bytes()).hexdigest(),
        "package": full["package"],
        "version": full["version"],
        "pathLength": full["pathLength"],
        "contextMessages": full["contextMessages"],
        "perEntry": full["perEntry"],
        "states": states,
    }


def dump(data: dict[str, object]) -> str:
    """The golden as JSON text, one line per entry and per state (a lone surrogate stays an escape)."""
    lines = [
        f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
        for k, v in data.items()
        if k not in ("perEntry", "states")
    ]
    entries = ",\n".join(f"  {json.dumps(e, ensure_ascii=False)}" for e in data["perEntry"])  # type: ignore[attr-defined]
    states = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in data["states"].items())  # type: ignore[attr-defined]
    lines += [f' "perEntry": [\n{entries}\n ]', f' "states": {{\n{states}\n }}']
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main() -> None:
    manifest = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    files = sorted({(e["agent"], e["session_file"]) for e in manifest["entries"] if e["agent"].startswith("pi-")})
    OUT.mkdir(parents=True, exist_ok=True)
    for agent, name in files:
        source = CORPUS / name
        for oracle in ("pi-0.73", "pi-0.87") if agent == "pi-0.73" else ("pi-0.87",):
            stem = name.removesuffix(".jsonl").replace("/", "_")
            target = OUT / f"{stem}.{oracle}.golden.json"
            target.write_bytes(dump(_golden(source, oracle)).encode("utf-8", "backslashreplace"))
            print(target.relative_to(ROOT), file=sys.stderr)


if __name__ == "__main__":
    main()
