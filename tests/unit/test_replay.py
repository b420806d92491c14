"""Replaying auto-compaction over a hand-built session whose firing turns are worked out by hand."""

from __future__ import annotations

from cutline.core.audit.replay import DEFAULT_SUMMARY_TOKENS, replay, timeline_with_replay
from cutline.core.config.settings import CompactionSettings
from cutline.core.models import CompactionRecord, Entry
from tests.support.audit_builders import SessionBuilder, sized


def _turns(n: int) -> SessionBuilder:
    b = SessionBuilder()
    for i in range(1, n + 1):
        b.user(sized(f"Question {i}", 100), id=f"u{i}")
        b.assistant(sized(f"Answer {i}", 100), id=f"a{i}")
    return b


SETTINGS = CompactionSettings(contextWindow=1000, reserveTokens=300, keepRecentTokens=250)


def test_fires_where_worked_out_by_hand() -> None:
    # threshold 700; each turn adds 200. Turn 4 reaches 800 > 700: the walk keeps a4, u4 and
    # crosses 250 at a3 (cut a3, split turn), so 100 summary + 300 kept = 400 remain; +200 per
    # turn fires again at turns 6, 8 and 10.
    result = replay(_turns(10).session(), SETTINGS, summary_tokens=100)
    assert [c.turn for c in result.compactions] == [4, 6, 8, 10]
    first = result.compactions[0]
    assert (first.tokens_before, first.tokens_after, first.first_kept_entry_id, first.is_split_turn) == (
        800,
        400,
        "a3",
        True,
    )
    assert [c.first_kept_entry_id for c in result.compactions] == ["a3", "a5", "a7", "a9"]
    assert result.text() == (
        "with keepRecentTokens 250 (window 1,000, reserve 300, chars4) compactions would fire at turns 4, 6, 8, 10 (4 in all)"
    )
    assert result.peak_tokens == 800


def test_larger_keep_recent_fires_more_often() -> None:
    settings = SETTINGS.with_overrides(keepRecentTokens=450)
    # cut crosses 450 at u3 (a4 100, u4 200, a3 300, u3 400, a2 500 -> crossing a2, cut a2): kept 500 -> 600 after
    result = replay(_turns(10).session(), settings, summary_tokens=100)
    assert [c.turn for c in result.compactions] == [4, 5, 6, 7, 8, 9, 10]
    assert result.compactions[0].tokens_after == 600


def test_no_compaction_when_under_threshold() -> None:
    result = replay(_turns(3).session(), SETTINGS)
    assert result.compactions == []
    assert result.summary_tokens == DEFAULT_SUMMARY_TOKENS
    assert "no compaction would fire (peak context 600 tokens, threshold 700)" in result.text()


def test_transcript_compactions_are_left_out_of_the_replay() -> None:
    b = _turns(3)
    b.entries.append(
        Entry(
            id="c0", parentId="a3", type="compaction", compaction=CompactionRecord(summary="s", firstKeptEntryId="u3")
        )
    )
    b.user(sized("Question 4", 100), id="u4")
    b.assistant(sized("Answer 4", 100), id="a4")
    result = replay(b.session(), SETTINGS, summary_tokens=100)
    assert [c.turn for c in result.compactions] == [4]


def test_timeline_overlay_marks_replayed_compactions() -> None:
    timeline, _result = timeline_with_replay(_turns(6).session(), SETTINGS, ["chars4"], summary_tokens=100)
    assert timeline.counters == ["chars4", "replay"]
    replayed = [c for c in timeline.compactions if c.replayed]
    assert [(c.turn, c.index) for c in replayed] == [(4, 4), (6, 6)]
    assert [p.estimates["replay"] for p in timeline.points] == [200, 400, 600, 800, 600, 800]


def test_a_long_turn_over_the_window_is_an_overflow() -> None:
    b = SessionBuilder()
    b.user(sized("Do it all", 100), id="u1")
    for i in range(6):
        b.assistant(sized(f"step {i}", 100), calls=[(f"c{i}", "bash", {"command": "x"})], id=f"a{i}")
        b.result(f"c{i}", sized("out", 100), id=f"t{i}")
    b.assistant(sized("done", 100), id="a9")
    # each step adds ~205 (text, tool call name and arguments, result): a4 is the first over 1000, mid-turn
    result = replay(b.session(), SETTINGS, summary_tokens=100)
    assert next((c.after_entry_id, c.reason) for c in result.compactions) == ("a4", "overflow")
    assert "(overflow)" in result.text()


def test_first_and_tail_uses_its_own_threshold() -> None:
    # compactionThresholdTokens 500: turn 3 reaches 600 > 500; message 0 and the last 2 messages stay
    settings = SETTINGS.with_overrides(mode="first-and-tail", compactionThresholdTokens=500, protectedTailMessages=2)
    result = replay(_turns(4).session(), settings, summary_tokens=50)
    assert result.threshold == 500
    first = result.compactions[0]
    assert (first.turn, first.tokens_before) == (3, 600)
