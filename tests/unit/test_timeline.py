"""The timeline's figures on a hand-built session, and the SVG drawn from them."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from cutline.core.audit.timeline import build_timeline, context_before, render_svg
from cutline.core.config.settings import CompactionSettings
from tests.support.audit_builders import SessionBuilder, sized

SVG = "{http://www.w3.org/2000/svg}"


def _session():
    b = SessionBuilder()
    b.user(sized("one", 100), id="u1")
    b.assistant(sized("a", 50), usage=180, id="a1")
    b.user(sized("two", 100), id="u2")
    b.assistant(sized("b", 50), usage=330, id="a2")
    b.compaction(sized("sum", 30), "u2", tokens_before=330, id="c1")
    b.user(sized("three", 100), id="u3")
    b.assistant(sized("c", 50), id="a3")
    return b.session()


def test_points_usage_and_estimates_by_hand() -> None:
    session = _session()
    timeline = build_timeline(session, CompactionSettings(contextWindow=1000, reserveTokens=200), ["chars4"])
    assert [p.entry_id for p in timeline.points] == ["a1", "a2", "a3"]
    assert [p.turn for p in timeline.points] == [1, 2, 3]
    assert [p.usage for p in timeline.points] == [180, 330, None]
    # a1: u1+a1 = 150; a2: +u2+a2 = 300; after c1: summary 30 + kept u2,a2 150, then u3+a3 150
    assert [p.estimates["chars4"] for p in timeline.points] == [150, 300, 330]
    assert len(timeline.compactions) == 1
    c = timeline.compactions[0]
    assert (c.entry_id, c.index, c.turn, c.tokens_before, c.tokens_after) == ("c1", 2, 2, 330, 180)
    assert (timeline.context_window, timeline.reserve_tokens, timeline.threshold) == (1000, 200, 800)


def test_context_before_resets_at_a_compaction_without_kept_part() -> None:
    b = SessionBuilder()
    b.user("x" * 40)
    b.assistant("y" * 40)
    b.compaction("z" * 20, None)
    b.user("w" * 40)
    path = b.session().active_path()
    assert context_before(path, [10, 10, 5, 10]) == [0, 10, 20, 5, 15]


def test_calibrated_counter_scales_chars4_by_the_usage_ratio() -> None:
    session = _session()
    timeline = build_timeline(session, CompactionSettings(), ["chars4", "calibrated"])
    # usage samples: a1 prompt 180 vs 100 before it, a2 330 vs 250 -> ratios 1.8 and 1.32, median 1.56
    first = timeline.points[0]
    assert first.estimates["calibrated"] == 156 + 78  # ceil(100*1.56) + ceil(50*1.56)


def test_svg_draws_series_window_threshold_and_compactions() -> None:
    session = _session()
    timeline = build_timeline(
        session, CompactionSettings(contextWindow=1000, reserveTokens=200), ["chars4", "tiktoken"]
    )
    svg = render_svg(timeline)
    root = ET.fromstring(svg)
    polylines = root.findall(f"{SVG}polyline")
    assert [p.find(f"{SVG}title").text for p in polylines] == ["usage", "chars4", "tiktoken"]
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "window 1,000" in texts and "threshold 800 (reserve 200)" in texts
    assert "recorded usage" in texts and "estimate: chars4" in texts and "compaction" in texts
    titles = [t.text for t in root.iter(f"{SVG}title")]
    assert "compaction c1 at turn 2" in titles
    # the usage line's first point sits at 180 of a 1,050 y range (window * 1.05) on a 330 px plot
    first_usage = polylines[0].get("points").split()[0]
    x, y = map(float, first_usage.split(","))
    assert x == 70.0
    assert abs(y - (40 + 330 * (1 - 180 / 1050))) < 0.1


def test_svg_of_an_empty_session_is_still_valid() -> None:
    timeline = build_timeline(SessionBuilder().session(), CompactionSettings())
    root = ET.fromstring(render_svg(timeline))
    assert root.findall(f"{SVG}polyline") == []


def test_context_before_takes_the_paths_weights_once() -> None:
    from cutline.core.engine.context import context_weight

    session = _session()
    path = session.active_path()
    tokens = [len(e.id) * 100 for e in path]
    assert context_before(path, tokens, context_weight(path)) == context_before(path, tokens)
