"""`compact` of an uncompacted pi session validates a bounded number of entries, at n and at 4n entries.

Counted, not timed: calls of the pydantic validation the store's rebuild of a pi message
line makes (`pi.reader._validate_entry_json`) during one extractive `compact` of a stored
session. Before the light walk (core.engine.span.MessageSpan.read_light) every summarized
message was validated: ~n, then ~4n.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import cutline.core.agents.pi.reader as pi_reader
import cutline.core.store.rows as store_rows
from cutline.core.agents.path_window import PathWindow
from tests.support.cli import run
from tests.support.grown_sessions import grow
from tests.support.pi_compactions import write_pi_session

TURNS = 200  # n: ~1,400 entries; 4n: ~5,600


def _validations(
    tmp_path: Path, scale: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> int:
    file = write_pi_session(tmp_path / f"nocomp-{scale}.jsonl", turns=TURNS * scale, every=0, seed=11)
    code, _, err = run(capsys, "import", str(file))
    assert code == 0, err
    validate = pi_reader._validate_entry_json
    calls = 0

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return validate(*args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(pi_reader, "_validate_entry_json", counted)
        code, out, err = run(capsys, "compact", "--summarizer", "extractive", "--json", str(file))
    assert code == 0 and '"summary"' in out, err
    return calls, len(file.read_text().splitlines()) - 1


def test_a_compaction_validates_a_bounded_number_of_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What is validated is the kept context, the few entries the plan and the summary's last-ten read, and the
    errored tool results the failures section keeps, not the summarized span: 4n entries add much less than 3n.

    Before: every summarized message was validated, so 4n's count grew by about 3n (~4,000 here).
    """
    small, n = _validations(tmp_path, 1, monkeypatch, capsys)
    large, n4 = _validations(tmp_path, 4, monkeypatch, capsys)
    assert n4 > 3.5 * n
    assert large - small < (n4 - n) / 4, (small, large, n, n4)


def _model_validations(
    tmp_path: Path,
    agent: str,
    records: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> int:
    """Stored models validated (`entry_from_json`) by the summary's walk over the span (`PathWindow.read_light`) in one
    `compact` of a stored grown session (the plan's own reads of a few entries are not counted)."""
    file = grow(agent, records, tmp_path / f"{agent}-{records}.jsonl")
    code, _, err = run(capsys, "import", str(file))
    assert code == 0, err
    calls = 0
    walking = False
    validate = store_rows.entry_from_json
    read_light = PathWindow.read_light

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += walking
        return validate(*args, **kwargs)

    def walked(self: PathWindow, positions: list[int]) -> Any:
        nonlocal walking
        walking = True
        try:
            return read_light(self, positions)
        finally:
            walking = False

    with monkeypatch.context() as patched:
        patched.setattr(store_rows, "entry_from_json", counted)
        patched.setattr(PathWindow, "read_light", walked)
        code, out, err = run(
            capsys, "compact", "--summarizer", "extractive", "--json", "--keep-recent-tokens", "2000", str(file)
        )
    assert code == 0 and '"summary"' in out, err
    return calls


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_a_claude_code_or_codex_summary_walk_validates_a_bounded_number_of_models(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The span's messages are read light from their stored models (`core.agents.light.LightModelEntry`), and only
    the positions giving a message are built: the walk validates next to nothing at n and 4n records.

    Before: every summarized message's model was validated (and every record between them a dense read fetched):
    ~n / 2 at n, ~2n at 4n.
    """
    small = _model_validations(tmp_path, agent, 600, monkeypatch, capsys)
    large = _model_validations(tmp_path, agent, 2400, monkeypatch, capsys)
    assert large - small < 2400 / 50, (small, large)
