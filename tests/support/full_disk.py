"""An OpenClaw write-back onto a full disk, for real: run as `unshare -m python -m tests.support.full_disk ...`.

In a mount namespace of its own it mounts a small tmpfs over MOUNTPOINT, copies the
store there (to the same path it had when the proposal was made), fills the rest of the
tmpfs, then accepts the proposal with write-back, and prints what happened as JSON:
the one-line refusal and the files left beside the store.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path


def main(mountpoint: str, source: str, store: str, db: str, proposal_id: str) -> int:
    from cutline.core import review
    from cutline.core.errors import CutlineError
    from cutline.core.store import Store

    size = Path(source).stat().st_size + 512 * 1024
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", mountpoint], check=True)
    target = Path(store)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    try:
        with (Path(mountpoint) / "filler").open("wb") as filler:
            while True:
                filler.write(b"\0" * 65536)
                filler.flush()
    except OSError:
        pass
    error = None
    try:
        with Store(db) as cutline:
            review.accept(cutline, proposal_id, write_back=True, timestamp="2026-01-01T00:00:00.000Z")
    except CutlineError as exc:
        error = str(exc)
    print(json.dumps({"error": error, "files": sorted(p.name for p in target.parent.iterdir())}))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
