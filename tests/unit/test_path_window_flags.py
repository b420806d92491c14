"""A window with `flags_only` facts reads the path as the full window does, holding a few dicts instead of one per entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from cutline.core.store import Store
from tests.support.pi_compactions import write_pi_session


@pytest.mark.parametrize("kind", [{}, {"current_pi": True, "seed": 2}, {"branch": True, "seed": 3}])
def test_a_flags_only_window_reads_the_path_as_the_full_window_does(tmp_path: Path, kind: dict[str, object]) -> None:
    file = write_pi_session(tmp_path / "s.jsonl", **kind)  # type: ignore[arg-type]
    with Store(tmp_path / "s.db") as store:
        session_id = store.import_file(file).session_id
        full = store.sessions.path_window(session_id, "chars4")
        slim = store.sessions.path_window(session_id, "chars4", flags_only=True)
    assert full is not None and slim is not None
    assert (slim.ids, slim.kinds, slim.counts, slim.start) == (full.ids, full.kinds, full.counts, full.start)
    assert slim.start > 0
    assert [e.model_dump() for e in slim.tail()] == [e.model_dump() for e in full.tail()]
    assert slim.context_indices() == full.context_indices()
    assert slim.weights() == full.weights()
    assert slim.current_pi_sign() == full.current_pi_sign()
    assert [f["f"] for f in slim.facts] == [f["f"] for f in full.facts]
    assert [f.get("k") for f in slim.facts] == [f.get("k") for f in full.facts]
    assert all(set(f) <= {"f", "k"} for f in slim.facts)
    # one dict per flags value, but for compactions, which keep their own first kept entry
    shared = {id(f) for f in slim.facts if "k" not in f}
    assert len(shared) == len({f["f"] for f in slim.facts if "k" not in f})
