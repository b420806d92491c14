"""bench/bench_tui.py's key probe presses keys that can move the list's cursor (its figures are the key's, not the load's)."""

from __future__ import annotations

from tests.support.bench_scripts import bench_script


def test_the_probe_presses_up_on_the_last_row_and_down_on_the_first() -> None:
    probe_key = bench_script("bench_tui").probe_key
    assert probe_key(48, 49, down=True) == "up"  # the list opens on its last row: `down` would move nothing
    assert probe_key(0, 49, down=False) == "down"
    assert probe_key(0, 1, down=True) == "up"  # one row: nothing moves either way, the probe's wait times out
    assert [probe_key(10, 49, down=d) for d in (True, False)] == ["down", "up"]  # in between: in turn
