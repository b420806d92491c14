"""`audit --proposal` of an uncompacted session reads the summarized part a block at a time: a bounded number of entries held.

The holding is counted, not timed: the `Entry` objects alive while the audit reads the
summarized conversation (sampled at its statements, `Passages.know`), and the entries the
window keeps, at n and 4n entries of an uncompacted session.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

from cutline.core.agents.path_window import PathWindow
from cutline.core.audit.compare import Passages
from cutline.core.models import Entry
from cutline.core.store.sessions import Sessions
from tests.support.cli import run
from tests.support.pi_compactions import write_pi_session

TURNS = 400  # n: ~2,800 entries (the summarized part several blocks long); 4n: ~11,200
BLOCK = 512  # the audit's block (core.audit.report._BLOCK)
_SAMPLE = 400  # `know` calls between two counts of the live entries


def _live_entries() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is Entry)


def _holding(
    tmp_path: Path, scale: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> dict[str, int]:
    """What `audit --proposal` of an uncompacted session of `scale` x TURNS turns holds: live entries, entries kept."""
    file = write_pi_session(tmp_path / f"nocomp-{scale}.jsonl", turns=TURNS * scale, every=0, seed=11)
    code, out, err = run(capsys, "compact", "--summarizer", "extractive", "--json", str(file))
    assert code == 0, err
    proposal = json.loads(out)["id"]
    found = {"live": 0, "calls": 0, "summarized": 0}
    windows: list[PathWindow] = []
    know = Passages.know
    path_window = Sessions.path_window

    def sampled(self: Passages, statements: Any) -> None:
        if found["calls"] % _SAMPLE == 0:
            found["live"] = max(
                found["live"], _live_entries() - before
            )  # (earlier commands of this process hold theirs)
        found["calls"] += 1
        know(self, statements)

    def recording(self: Sessions, *args: Any, **kwargs: Any) -> PathWindow | None:
        window = path_window(self, *args, **kwargs)
        if window is not None:
            windows.append(window)
        return window

    before = _live_entries()
    with monkeypatch.context() as patched:
        patched.setattr(Passages, "know", sampled)
        patched.setattr(Sessions, "path_window", recording)
        code, out, err = run(capsys, "audit", "--json", "--proposal", proposal)
    assert code == 0, err
    assert windows, "the session was not windowed"
    found["kept"] = max(w.entries_kept() for w in windows)
    found["summarized"] = json.loads(out)["summarizedEntries"]
    return found


def test_the_audit_of_a_proposal_holds_a_bounded_number_of_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """While the summarized part is read, the live entries are about a block's, at n and at 4n alike.

    Before: the summarized conversation was one list of entries (every one alive: ~n, then ~4n),
    read in five passes, and the window held every entry of the path.
    """
    small = _holding(tmp_path, 1, monkeypatch, capsys)
    large = _holding(tmp_path, 4, monkeypatch, capsys)
    assert small["summarized"] > 3 * BLOCK and large["summarized"] > 3.5 * small["summarized"], (small, large)
    for held in (small, large):
        assert held["live"] < 2 * BLOCK, held
        assert held["kept"] < 2 * BLOCK, held
    assert large["live"] < small["live"] + BLOCK, (small, large)


def test_the_token_lists_kept_for_an_audit_are_bounded() -> None:
    """`Passages.toks` keeps the tokens of at most `TOKENS_KEPT` texts, and gives the same tokens after it starts again.

    Before: every text asked for stayed (the facts' own texts too, each asked for once): 9,875 texts at 100,000 entries.
    """
    from cutline.core.audit.compare import TOKENS_KEPT, passages, tokens

    seen = passages(["Use SQLite for the cache.", "Never push to upstream."])
    texts = [f"fact number {k} about module_{k}.py failing" for k in range(3 * TOKENS_KEPT)]
    for text in texts:
        assert seen.toks(text) == tokens(text)
    assert len(seen._tokens) <= TOKENS_KEPT
    assert seen.toks(texts[0], True) == tokens(texts[0], True)
