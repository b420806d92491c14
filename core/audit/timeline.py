"""Context size per model call over a session: recorded usage, each counter's estimate, compactions, window lines.

Why: an agent that lost context usually ran close to its window; the plot shows where
the context grew, where compactions fired, and how far each estimate was from what
the provider really counted.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from html import escape
from itertools import accumulate
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from cutline.core.agents.path_columns import PathColumns
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.context import context_weight, has_valid_usage
from cutline.core.engine.modes import reserve_for
from cutline.core.engine.triggers import resolve_context_window
from cutline.core.models import Entry, Session
from cutline.core.tokens import (
    CalibratedCounter,
    StoredCalls,
    calibrate,
    calibrated_ratio,
    call_estimates,
    get_counter,
    kept_places,
    path_tokens,
    places_of,
    stored_model_calls,
)


class TimelinePoint(BaseModel):
    """The context at one assistant message (one model call)."""

    model_config = ConfigDict(defer_build=True)  # `timeline` of a stored file makes none (stored_timeline_data)

    index: int
    entry_id: str
    turn: int
    usage: int | None = None
    estimates: dict[str, int] = Field(default_factory=dict)


class TimelineCompaction(BaseModel):
    """A compaction placed on the timeline (at the point index it follows)."""

    model_config = ConfigDict(defer_build=True)  # `timeline` of a stored file makes none (stored_timeline_data)

    entry_id: str
    index: int
    turn: int
    tokens_before: int | None = None
    tokens_after: int | None = None
    replayed: bool = False


class Timeline(BaseModel):
    """Everything a plot of a session's context size needs."""

    model_config = ConfigDict(defer_build=True)  # `timeline` of a stored file makes none (stored_timeline_data)

    session_id: str
    counters: list[str]
    points: list[TimelinePoint] = Field(default_factory=list)
    compactions: list[TimelineCompaction] = Field(default_factory=list)
    context_window: int
    reserve_tokens: int
    threshold: int
    keep_recent_tokens: int


def counter_tokens(
    session: Session, path: list[Entry], name: str, counts: Callable[[str], Mapping[str, int]] | None = None
) -> list[int]:
    """Per-entry tokens of a path by a counter name; `calibrated` is chars4 scaled by the session's fitted ratio.

    `counts` gives a counter's per-entry counts by entry id (the store's cache passes its
    own, `calibrated` included); without it the path is counted afresh.
    """
    if counts is not None:
        by_id = counts(name)
        return [by_id.get(e.id, 0) for e in path]
    if name == "calibrated":
        chars4 = path_tokens(path, "chars4")
        ratio = calibrate(session, {e.id: t for e, t in zip(path, chars4, strict=True)}).ratio
        scaler = CalibratedCounter(ratio)
        return [scaler.scale(t) for t in chars4]
    return path_tokens(path, get_counter(name))


def context_before(path: list[Entry], tokens: list[int], weights: list[bool] | None = None) -> list[int]:
    """For each path index, the estimated tokens of the context the agent had just before that entry (one more value at the end: after the last).

    The context is rebuilt as pi does: the latest compaction's summary, the entries it
    kept, then everything after it. `weights` is `context_weight(path)` when the caller
    has it (it depends on the path alone, not on the counter).
    """
    weights = weights if weights is not None else context_weight(path)
    ids = [e.id for e in path]
    return _context_before([e.type for e in path], kept_places(ids, _kept_ids(path)), weights, tokens)


def _kept_ids(path: list[Entry]) -> dict[int, str]:
    """Path index of each compaction naming a first kept entry -> that entry's id (the stored facts' `k`)."""
    kept: dict[int, str] = {}
    for i, entry in enumerate(path):
        record = entry.compaction if entry.type == "compaction" else None
        if record is not None and record.firstKeptEntryId:
            kept[i] = record.firstKeptEntryId
    return kept


def _context_before(
    kinds: list[str], places: Mapping[int, int], weights: Sequence[bool | int], tokens: list[int]
) -> list[int]:
    """`context_before` from the path's types, its compactions' kept places (`kept_places`) and weights.

    A running sum between compactions is the weighted prefix sum since the compaction; a
    compaction restarts it at its own tokens plus its kept entries (from the first kept
    entry's first place on the path, when that is not after the compaction).
    """
    n = len(kinds)
    prefix = [0, *accumulate([t if w else 0 for t, w in zip(tokens, weights)])]
    compactions = places_of(kinds, "compaction")
    result = prefix[: (compactions[0] if compactions else n) + 1]
    for k, c in enumerate(compactions):
        at = places.get(c, -1)
        running = tokens[c] + (prefix[c] - prefix[at] if 0 <= at <= c else 0)
        stop = compactions[k + 1] if k + 1 < len(compactions) else n
        # after the compaction: its running sum plus the weighted tokens since it (one value per entry up to `stop`)
        base = running - prefix[c + 1]
        result.extend([base + value for value in prefix[c + 1 : stop + 1]])
    return result


def _counts_as_turn(entry: Entry) -> bool:
    """Whether an entry starts a person's turn: a user message that is no meta or compact-summary record and carries no tool results."""
    message = entry.message
    return (
        entry.type == "message"
        and message is not None
        and message.role == "user"
        and not entry.isMeta
        and not entry.isCompactSummary
        and not message.tool_result_ids()
    )


def _turns(path: list[Entry]) -> list[int]:
    return list(accumulate(1 if _counts_as_turn(entry) else 0 for entry in path))


def _is_point(entry: Entry) -> bool:
    """Whether an entry is a model call of the main conversation: an assistant message, not a sidechain."""
    message = entry.message
    return entry.type == "message" and message is not None and message.role == "assistant" and not entry.isSidechain


def _recorded_usage(entry: Entry) -> int | None:
    """The context size a model call's usage records (None when it records none, or none pi trusts, or 0)."""
    message = entry.message
    if message is None or not has_valid_usage(message) or message.usage is None:
        return None
    return message.usage.context_tokens or None


def _last_model(path: list[Entry]) -> str | None:
    for entry in reversed(path):
        if entry.message is not None and entry.message.role == "assistant" and entry.message.model:
            return entry.message.model
    return None


class _Marks(NamedTuple):
    """Where the timeline's points and compactions fall on a path, and each entry's turn number."""

    turns: list[int]
    points: list[tuple[int, int | None]]  # path index, recorded usage
    compactions: list[tuple[int, int]]  # path index, tokensBefore


def build_timeline(
    session: Session,
    settings: CompactionSettings | None = None,
    counters: list[str] | None = None,
    counts: Callable[[str], Mapping[str, int]] | None = None,
) -> Timeline:
    """The timeline of the session's active path: one point per assistant message, estimates from each named counter.

    `counts` gives a counter's per-entry counts by entry id (see `counter_tokens`).
    """
    names = counters or ["chars4"]
    path = session.active_path()
    per_counter = {name: counter_tokens(session, path, name, counts) for name in names}
    weights = context_weight(path)
    ids = [e.id for e in path]
    kinds: list[str] = [e.type for e in path]
    points: list[tuple[int, int | None]] = []
    compactions: list[tuple[int, int]] = []
    for i, entry in enumerate(path):
        if entry.type == "compaction" and entry.compaction is not None:
            compactions.append((i, entry.compaction.tokensBefore))
            continue
        if _is_point(entry):
            points.append((i, _recorded_usage(entry)))
    marks = _Marks(_turns(path), points, compactions)
    data = _assembled_timeline(
        session.id,
        settings,
        names,
        ids,
        kinds,
        kept_places(ids, _kept_ids(path)),
        weights,
        per_counter,
        marks,
        _last_model(path),
    )
    return Timeline.model_validate(data)


def stored_timeline_data(
    columns: PathColumns,
    settings: CompactionSettings | None,
    counters: list[str] | None,
    counts: Callable[[str], list[int]],
) -> dict[str, Any]:
    """`build_timeline(...).model_dump()` of a stored path from its columns (`Sessions.path_columns`): the same data.

    `counts` gives a stored counter's counts in path order (`calibrated` is fitted here,
    as `calibrated_counts` does). Entries are read only for the compactions (their
    tokensBefore), the rows whose flags the facts leave open (`PathColumns.flagged`) and
    the last assistant messages up to one that names its model.
    """
    names = counters or ["chars4"]
    ids, kinds, roles = columns.ids, columns.kinds, columns.roles
    weights = columns.weights()
    calls = StoredCalls(weights, columns.prompts, columns.kept)
    places = kept_places(ids, columns.kept)

    def tokens_of(name: str) -> list[int]:
        if name != "calibrated":
            return counts(name)
        chars4 = counts("chars4")
        made = stored_model_calls(ids, kinds, calls, places)
        scaler = CalibratedCounter(calibrated_ratio(made, call_estimates(weights, chars4, made)))
        return [scaler.scale(t) for t in chars4]

    per_counter = {name: tokens_of(name) for name in names}
    flagged = columns.entries_at(columns.flagged)
    # 1 where a user message without tool results starts a turn; rows found by their role first (a scan in C)
    starts = bytearray(len(kinds))
    for i in places_of(roles, "user"):
        if kinds[i] == "message" and i not in columns.results:
            starts[i] = 1
    usage = columns.usage
    points: list[tuple[int, int | None]] = [
        (i, usage.get(i) or None) for i in places_of(roles, "assistant") if kinds[i] == "message"
    ]
    if flagged:
        for i, entry in flagged.items():
            starts[i] = 1 if _counts_as_turn(entry) else 0
        points = [(i, u) for i, u in points if i not in flagged]
        points.extend((i, _recorded_usage(entry)) for i, entry in flagged.items() if _is_point(entry))
        points.sort()
    held = columns.entries_at(places_of(kinds, "compaction"))
    compactions = [(i, e.compaction.tokensBefore) for i, e in sorted(held.items()) if e.compaction is not None]
    marks = _Marks(list(accumulate(starts)), points, compactions)
    return _assembled_timeline(
        columns.session_id,
        settings,
        names,
        ids,
        kinds,
        places,
        weights,
        per_counter,
        marks,
        _stored_last_model(columns),
    )


def _stored_last_model(columns: PathColumns) -> str | None:
    """`_last_model` of a stored path: its assistant messages read from the last back, a few at a time, until one names a model."""
    roles = columns.roles
    below = len(roles)  # the assistant messages below this path index are not read yet
    step = 4
    while True:
        # the next `step` assistant messages back from `below` (found walking back: the last one is near the end)
        batch: list[int] = []
        while below > 0 and len(batch) < step:
            below -= 1
            if roles[below] == "assistant":
                batch.append(below)
        if not batch:
            return None
        batch.reverse()
        found = columns.entries_at(batch)
        for i in reversed(batch):
            message = found[i].message
            if message is not None and message.model:
                return message.model
        step = min(step * 4, 4_096)


def _assembled_timeline(
    session_id: str,
    settings: CompactionSettings | None,
    names: list[str],
    ids: list[str],
    kinds: list[str],
    places: Mapping[int, int],
    weights: Sequence[bool | int],
    per_counter: dict[str, list[int]],
    marks: _Marks,
    last_model: str | None,
) -> dict[str, Any]:
    """The timeline as `Timeline.model_dump()` gives it, from the path's columns, each counter's counts and its marks.

    Why a dict: a 100,000-entry session has ~45,000 points, and making each a model only
    for `timeline --json` to dump it again cost ~0.25 s.
    """
    settings = settings or CompactionSettings()
    before = {name: _context_before(kinds, places, weights, tokens) for name, tokens in per_counter.items()}
    turns = marks.turns
    at = [i for i, _ in marks.points]
    # each counter's estimate at every point (the context before it plus its own tokens), then one dict per point
    columns = [[before[name][i] + per_counter[name][i] for i in at] for name in names]
    points = [
        {"index": k, "entry_id": ids[i], "turn": turns[i], "usage": usage, "estimates": dict(zip(names, estimates))}
        for k, ((i, usage), estimates) in enumerate(zip(marks.points, zip(*columns)))
    ]
    # a compaction sits at the index of the first point after it
    first = before[names[0]]
    compactions = [
        _compaction(ids[c], bisect_left(at, c), turns[c], tokens_before, first[c + 1])
        for c, tokens_before in marks.compactions
    ]
    window = resolve_context_window(settings, last_model).tokens
    reserve = reserve_for(settings)
    return {
        "session_id": session_id,
        "counters": list(names),
        "points": points,
        "compactions": compactions,
        "context_window": window,
        "reserve_tokens": reserve,
        "threshold": window - reserve,
        "keep_recent_tokens": settings.keepRecentTokens,
    }


def _compaction(entry_id: str, index: int, turn: int, tokens_before: int, after: int) -> dict[str, Any]:
    return {
        "entry_id": entry_id,
        "index": index,
        "turn": turn,
        "tokens_before": tokens_before or None,
        "tokens_after": after,
        "replayed": False,
    }


# ---------------------------------------------------------------------------
# SVG
# ---------------------------------------------------------------------------

SERIES_COLORS = {
    "usage": "#222222",
    "chars4": "#1f77b4",
    "tiktoken": "#2ca02c",
    "calibrated": "#ff7f0e",
    "anthropic": "#8c564b",
    "replay": "#9467bd",
}
_FALLBACK_COLORS = ["#8c564b", "#e377c2", "#17becf", "#bcbd22"]


def _nice_step(span: float) -> float:
    """A round tick step giving 4-8 ticks over `span`."""
    if span <= 0:
        return 1.0
    raw = span / 5
    magnitude = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1
    for factor in (1, 2, 2.5, 5, 10):
        step = magnitude * factor
        if span / step <= 8:
            return step
    return magnitude * 10


def _k(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if value >= 1000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def render_svg(timeline: Timeline, width: int = 960, height: int = 420, title: str | None = None) -> str:
    """A self-contained SVG line chart of the timeline (no plotting library)."""
    return render_svg_data(timeline.model_dump(), width, height, title)


def render_svg_data(data: Mapping[str, Any], width: int = 960, height: int = 420, title: str | None = None) -> str:
    """The SVG of a timeline as `Timeline.model_dump()` gives it (`stored_timeline_data` makes it without the model).

    Why: validating a 50,000-entry session's ~14,000 points into models only to draw them cost
    ~55 ms of a ~0.6 s `timeline -o`.
    """
    return _svg(
        _Plot(
            data["session_id"],
            data["counters"],
            [(p["turn"], p["usage"], p["estimates"]) for p in data["points"]],
            [(c["index"], c["replayed"], c["entry_id"], c["turn"]) for c in data["compactions"]],
            data["context_window"],
            data["threshold"],
            data["reserve_tokens"],
        ),
        width,
        height,
        title,
    )


class _Plot(NamedTuple):
    """What the SVG draws of a timeline: its points as (turn, usage, estimates), its compactions as (index, replayed, entry id, turn)."""

    session_id: str
    counters: list[str]
    points: list[tuple[int, int | None, dict[str, int]]]
    compactions: list[tuple[int, bool, str, int]]
    context_window: int
    threshold: int
    reserve_tokens: int


def _svg(timeline: _Plot, width: int, height: int, title: str | None) -> str:
    left, right, top, bottom = 70, 170, 40, 50
    plot_w, plot_h = width - left - right, height - top - bottom
    points = timeline.points
    n = max(1, len(points) - 1)
    values = [timeline.context_window]
    for _, usage, estimates in points:
        if usage is not None:
            values.append(usage)
        values.extend(estimates.values())
    y_max = max(values) * 1.05 if values else 1
    step = _nice_step(y_max)

    def x_of(i: float) -> float:
        return left + plot_w * (i / n if len(points) > 1 else 0.5)

    def y_of(v: float) -> float:
        return top + plot_h * (1 - min(v, y_max) / y_max)

    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{left}" y="22" font-size="14" font-weight="bold">{escape(title or "Context size per model call — " + timeline.session_id)}</text>',
    ]
    # reserve band between the threshold and the window
    y_window, y_threshold = y_of(timeline.context_window), y_of(timeline.threshold)
    out.append(
        f'<rect x="{left}" y="{y_window:.1f}" width="{plot_w}" height="{max(0.0, y_threshold - y_window):.1f}" fill="#fde0dc" opacity="0.6"><title>reserve {timeline.reserve_tokens} tokens</title></rect>'
    )
    # grid and y ticks
    tick = 0.0
    while tick <= y_max:
        y = y_of(tick)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{_k(tick)}</text>')
        tick += step
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#444"/>')
    out.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#444"/>')
    # x ticks by turn
    turns = [turn for turn, _, _ in points]
    firsts = [i for i, turn in enumerate(turns) if i == 0 or turn != turns[i - 1]]
    every = max(1, -(-len(firsts) // 12))
    for i in firsts[::every]:
        x = x_of(i)
        out.append(f'<line x1="{x:.1f}" y1="{top + plot_h}" x2="{x:.1f}" y2="{top + plot_h + 4}" stroke="#444"/>')
        out.append(f'<text x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle">{turns[i]}</text>')
    out.append(
        f'<text x="{left + plot_w / 2}" y="{height - 10}" text-anchor="middle">user turn (one point per model call)</text>'
    )
    # window and threshold lines
    out.append(
        f'<line x1="{left}" y1="{y_window:.1f}" x2="{left + plot_w}" y2="{y_window:.1f}" stroke="#d62728" stroke-width="1.5"/>'
    )
    out.append(
        f'<text x="{left + plot_w - 4}" y="{y_window - 4:.1f}" text-anchor="end" fill="#d62728" stroke="#ffffff" stroke-width="3" paint-order="stroke">window {timeline.context_window:,}</text>'
    )
    out.append(
        f'<line x1="{left}" y1="{y_threshold:.1f}" x2="{left + plot_w}" y2="{y_threshold:.1f}" stroke="#d62728" stroke-dasharray="6 4"/>'
    )
    out.append(
        f'<text x="{left + plot_w - 4}" y="{y_threshold + 14:.1f}" text-anchor="end" fill="#d62728" stroke="#ffffff" stroke-width="3" paint-order="stroke">threshold {timeline.threshold:,} (reserve {timeline.reserve_tokens:,})</text>'
    )
    # compactions
    for index, replayed, entry_id, turn in timeline.compactions:
        x = x_of(index)
        dash = "2 3" if replayed else "5 3"
        color = "#7f7f7f" if not replayed else "#9467bd"
        label = "replayed compaction" if replayed else "compaction"
        out.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}" stroke="{color}" stroke-dasharray="{dash}"><title>{label} {escape(entry_id)} at turn {turn}</title></line>'
        )
    # series
    series: dict[str, list[tuple[int, int]]] = {
        "usage": [(i, usage) for i, (_, usage, _) in enumerate(points) if usage is not None]
    }
    for name in timeline.counters:
        series[name] = [(i, estimates[name]) for i, (_, _, estimates) in enumerate(points) if name in estimates]
    # each point's x as drawn, made once for every series (x_of's value, formatted as each coordinate is)
    xs = [f"{x_of(i):.1f}" for i in range(len(points))]
    legend_y = top + 40
    for k, (name, pts) in enumerate(series.items()):
        if not pts:
            continue
        color = SERIES_COLORS.get(name, _FALLBACK_COLORS[k % len(_FALLBACK_COLORS)])
        # y_of(v), written out: one call per point was most of the drawing
        coords = " ".join([f"{xs[i]},{top + plot_h * (1 - min(v, y_max) / y_max):.1f}" for i, v in pts])
        width_attr = "2" if name == "usage" else "1.5"
        if len(pts) == 1:
            i, v = pts[0]
            out.append(f'<circle cx="{x_of(i):.1f}" cy="{y_of(v):.1f}" r="3" fill="{color}"/>')
        else:
            out.append(
                f'<polyline fill="none" stroke="{color}" stroke-width="{width_attr}" points="{coords}"><title>{escape(name)}</title></polyline>'
            )
        label = {"usage": "recorded usage", "replay": "replayed context"}.get(name, f"estimate: {name}")
        out.append(
            f'<line x1="{left + plot_w + 6}" y1="{legend_y}" x2="{left + plot_w + 26}" y2="{legend_y}" stroke="{color}" stroke-width="2"/>'
        )
        out.append(f'<text x="{left + plot_w + 30}" y="{legend_y + 4}">{escape(label)}</text>')
        legend_y += 16
    for replayed, color, dash, label in (
        (False, "#7f7f7f", "5 3", "compaction"),
        (True, "#9467bd", "2 3", "replayed compaction"),
    ):
        if any(c[1] == replayed for c in timeline.compactions):
            out.append(
                f'<line x1="{left + plot_w + 6}" y1="{legend_y}" x2="{left + plot_w + 26}" y2="{legend_y}" stroke="{color}" stroke-dasharray="{dash}"/>'
            )
            out.append(f'<text x="{left + plot_w + 30}" y="{legend_y + 4}">{label}</text>')
            legend_y += 16
    out.append("</svg>")
    return "\n".join(out) + "\n"
