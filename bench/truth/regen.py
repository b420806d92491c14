"""The command line every truth-set generator shares: write the files, or with --check rebuild them aside and compare."""

from __future__ import annotations

import argparse
import filecmp
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def run(doc: str, default_out: Path, build: Callable[[Path], list[str] | None]) -> int:
    """Parse --out/--check, build, print the build's problems and the files that differ; 1 when there are any."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", type=Path, default=default_out)
    parser.add_argument("--check", action="store_true", help="regenerate into a temp dir and compare")
    args = parser.parse_args()
    if not args.check:
        problems = build(args.out) or []
        differ: list[str] = []
    else:
        with tempfile.TemporaryDirectory() as tmp:
            problems = build(Path(tmp)) or []
            differ = [
                str(p.relative_to(tmp))
                for p in Path(tmp).rglob("*")
                if p.is_file() and not filecmp.cmp(p, args.out / p.relative_to(tmp), shallow=False)
            ]
    for line in problems + [f"differs: {name}" for name in differ]:
        print(line)
    return 1 if problems or differ else 0


def write_key(out: Path, description: str, specs: list[dict[str, Any]]) -> None:
    """A generated part's answer key: what each session is, without the seed it was made from."""
    key = {"description": description, "sessions": [{k: v for k, v in spec.items() if k != "seed"} for spec in specs]}
    (out / "key.json").write_text(json.dumps(key, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
