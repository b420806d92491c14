"""`compact` reads the summarized span a slice at a time: the same proposals as before, and a bounded number of entries held.

The proposals are compared with the digests main made before the change
(tests/fixtures/proposal_digests.json, tests.support.proposal_digests): every sample and
fixture session under every mode and rule set that works offline, and a generated 10k
uncompacted session. The holding is counted, not timed: the `Message` objects alive when
the extractive summary has read half the span, and the entries the window keeps, at n and
4n entries of an uncompacted session.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

import cutline.core.engine.compact as compact
import cutline.core.summarizers.extractive as extractive
from cutline.core.agents.light import LightMessage
from cutline.core.agents.path_window import PathWindow
from cutline.core.engine.span import BLOCK, MessageSpan
from cutline.core.models import Message
from cutline.core.store.sessions import Sessions
from cutline.core.summarizers.session_state import SpanState
from tests.support.cli import run
from tests.support.paths import ROOT
from tests.support.pi_compactions import write_pi_session
from tests.support.proposal_digests import (
    DIGEST_DATE,
    DIGESTS,
    LARGE_ENTRIES,
    LARGE_VARIANTS,
    VARIANTS,
    digest,
    large_session,
)
from tests.support.session_files import SESSION_FILES

KNOWN: dict[str, str] = json.loads(DIGESTS.read_text())
_SLOW = pytest.mark.timeout(1200)


@pytest.fixture(autouse=True)
def _recorded_day(monkeypatch: pytest.MonkeyPatch) -> None:
    """The injected turns carry the day the digests were recorded, not today's."""
    monkeypatch.setattr(compact, "utc_today", lambda: DIGEST_DATE)


def _compact(capsys: pytest.CaptureFixture[str], file: Path, extra: list[str]) -> str:
    return digest(*run(capsys, "compact", "--summarizer", "extractive", "--json", *extra, str(file)))


@_SLOW
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_session_s_proposal_is_the_one_main_made(variant: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Every sample and fixture session (all agents) under this mode and rule set: main's proposal, every field."""
    differ = [
        str(file.relative_to(ROOT))
        for file in SESSION_FILES
        if _compact(capsys, file, VARIANTS[variant]) != KNOWN[f"{file.relative_to(ROOT)}::{variant}"]
    ]
    assert not differ, f"{len(differ)} proposals differ from main's under {variant}: {differ[:5]}"


@_SLOW
def test_a_generated_uncompacted_session_s_proposals_are_the_ones_main_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = large_session(tmp_path)
    differ = [
        name
        for name in LARGE_VARIANTS
        if _compact(capsys, big, VARIANTS[name]) != KNOWN[f"generated-{LARGE_ENTRIES}-nocomp::{name}"]
    ]
    assert not differ


def test_the_comparison_sees_one_message_missing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The digests have teeth: a span whose walks skip its first message makes another proposal."""
    walk = MessageSpan.__iter__

    def skipping(self: MessageSpan) -> Iterator[Message]:
        messages = walk(self)
        next(messages, None)
        yield from messages

    light = MessageSpan.read_light

    def skipping_light(self: MessageSpan) -> Iterator[Message | LightMessage]:
        messages = light(self)
        next(messages, None)
        yield from messages

    file = ROOT / "sample_sessions" / "pi-coding-session.jsonl"
    key = f"{file.relative_to(ROOT)}::pi-1500"
    assert _compact(capsys, file, VARIANTS["pi-1500"]) == KNOWN[key]
    monkeypatch.setattr(MessageSpan, "__iter__", skipping)
    monkeypatch.setattr(MessageSpan, "read_light", skipping_light)
    assert _compact(capsys, file, VARIANTS["pi-1500"]) != KNOWN[key]


# -- what a compaction of an uncompacted session holds, at n and 4n entries ----------------

TURNS = 400  # n: ~2,800 entries (the summary's span several blocks long); 4n: ~11,200


def _live_messages() -> int:
    """Messages alive, pydantic or light (the extractive summary's walk reads light ones, `MessageSpan.read_light`)."""
    return sum(1 for o in gc.get_objects() if type(o) is Message) + sum(
        1 for o in _untracked_too() if type(o) is LightMessage
    )


def _untracked_too() -> Iterator[object]:
    """Every object the collector tracks, and the ones they refer to (light structs are not tracked: gc=False)."""
    for o in gc.get_objects():
        yield o
        if type(o) is list:
            yield from o


def _holding(
    tmp_path: Path, scale: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> dict[str, int]:
    """What `compact` of an uncompacted session of `scale` x TURNS turns holds: live messages mid-summary, entries kept."""
    file = write_pi_session(tmp_path / f"nocomp-{scale}.jsonl", turns=TURNS * scale, every=0, seed=11)
    found: dict[str, int] = {}
    windows: list[PathWindow] = []
    read_span = extractive.read_span
    path_window = Sessions.path_window

    def sampled(messages: Iterable[Message]) -> SpanState:
        length = len(messages) if isinstance(messages, list | MessageSpan) else 0

        def walk() -> Iterator[Message | LightMessage]:
            for k, message in enumerate(messages.read_light() if isinstance(messages, MessageSpan) else messages):
                if k == length // 2 and length > found.get("messages", 0):  # the history's span, not the turn prefix
                    found["messages"] = length
                    found["live"] = _live_messages() - before  # (earlier commands of this process hold theirs)
                yield message

        return read_span(walk())

    def recording(self: Sessions, *args: Any, **kwargs: Any) -> PathWindow | None:
        window = path_window(self, *args, **kwargs)
        if window is not None:
            windows.append(window)
        return window

    before = _live_messages()
    with monkeypatch.context() as patched:
        patched.setattr(extractive, "read_span", sampled)
        patched.setattr(extractive, "_walk_once", lambda messages: messages)  # `sampled` walks the span light
        patched.setattr(Sessions, "path_window", recording)
        code, _, err = run(capsys, "compact", "--summarizer", "extractive", "--json", str(file))
    assert code == 0, err
    assert windows, "the session was not windowed"
    found["kept"] = max(w.entries_kept() for w in windows)
    return found


def test_a_compaction_holds_a_bounded_number_of_messages_and_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mid-summary, the live messages are about a block's (plus the kept context), at n and at 4n alike.

    Before: the summarized messages were one list (every one alive: ~n, then ~4n) and the
    window held every entry of the path.
    """
    small = _holding(tmp_path, 1, monkeypatch, capsys)
    large = _holding(tmp_path, 4, monkeypatch, capsys)
    assert small["messages"] > 3 * BLOCK and large["messages"] > 3.5 * small["messages"]
    for held in (small, large):
        assert held["live"] < 3 * BLOCK, held
        assert held["kept"] < 2 * BLOCK, held
    assert large["live"] < small["live"] + BLOCK, (small, large)
