"""The extractive summary's light walk over a span (`MessageSpan.read_light`) gives what the validated walk gives.

Every sample and fixture session the store windows: each message of the span read light
holds the values of the validated message at the same place (every field the light
structs mirror, blocks included), the span state the summary reads from the two walks is
the same, and so are the summary's text and the errored tool results the walks remember.
A check that the light walk is taken at all (most pi messages come light) keeps it from
passing by falling back everywhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from cutline.core.agents.light import LightMessage
from cutline.core.agents.path_window import PathWindow
from cutline.core.engine.compact import _light_summarizable, _summarizable
from cutline.core.engine.sections import is_failed_result
from cutline.core.engine.span import MessageSpan
from cutline.core.models import Message
from cutline.core.store import Store
from cutline.core.summarizers.base import SummaryRequest
from cutline.core.summarizers.extractive import summarize_extractive
from cutline.core.summarizers.session_state import read_span
from tests.support.paths import ROOT
from tests.support.pi_compactions import write_pi_session
from tests.support.session_files import GENERATED_PI, SESSION_FILES


def _as_light(value: Any, like: Any) -> Any:
    """`value` (a model, a list of them, or a plain value) read through the fields of `like`, its light counterpart."""
    if isinstance(like, msgspec.Struct):
        fields = {name: _as_light(getattr(value, name), getattr(like, name)) for name in like.__struct_fields__}
        kind = getattr(type(like), "type", None)
        return {**fields, "type": value.type} if kind is not None else fields
    if isinstance(like, list) and isinstance(value, list) and len(like) == len(value):
        return [_as_light(v, lk) for v, lk in zip(value, like, strict=True)]
    return value


def _light_values(like: Any) -> Any:
    if isinstance(like, msgspec.Struct):
        fields = {name: _light_values(getattr(like, name)) for name in like.__struct_fields__}
        kind = getattr(type(like), "type", None)
        return {**fields, "type": kind} if kind is not None else fields
    if isinstance(like, list):
        return [_light_values(v) for v in like]
    return like


def _state(messages: Any) -> tuple[Any, dict[str, Any]]:
    """The span state the summary reads, its code names (no `__eq__` of their own) compared by their values."""
    state = read_span(messages)
    names = vars(state.names)
    state.names = None
    return state, names


def _spans(window: PathWindow) -> tuple[MessageSpan, MessageSpan]:
    everything = list(range(len(window)))
    make = lambda: MessageSpan(  # noqa: E731
        window, everything, _summarizable, remember=is_failed_result, light=_light_summarizable
    )
    return make(), make()


def _compare(file: Path, home: Path) -> int:
    """Both walks of the whole path of `file` as the store windows it; how many messages came light (-1: not windowed)."""
    with Store(home / "cutline.db") as store:
        report = store.import_file(file)
        window = store.sessions.path_window(report.session_id, lazy=True)
        if window is None:
            return -1
        light_span, full_span = _spans(window)
        walked = list(light_span.read_light())
        validated = list(full_span)
        assert len(walked) == len(validated), file
        came_light = 0
        for at, (seen, model) in enumerate(zip(walked, validated, strict=True)):
            if isinstance(seen, LightMessage):
                came_light += 1
                assert _light_values(seen) == _as_light(model, seen), (file, at)
            else:
                assert seen == model, (file, at)
        assert _state(light_span.read_light()) == _state(validated), file
        assert light_span.remembered() == full_span.remembered() == [m for m in validated if is_failed_result(m)]
        assert all(type(m) is Message for m in light_span.remembered())
        for kind in ("history", "turn_prefix"):
            request = SummaryRequest(kind=kind, messages=light_span)
            assert summarize_extractive(request) == summarize_extractive(
                SummaryRequest(kind=kind, messages=validated)
            ), file
        return came_light


def test_every_session_file_s_light_walk_gives_the_validated_messages(tmp_path: Path) -> None:
    light = windowed = 0
    for at, file in enumerate(SESSION_FILES):
        home = tmp_path / str(at)
        home.mkdir()
        came = _compare(file, home)
        windowed += came >= 0
        light += max(came, 0)
    assert windowed > 20 and light > 500, (windowed, light)


@pytest.mark.parametrize("name", sorted(GENERATED_PI))
def test_generated_pi_sessions_light_walk_gives_the_validated_messages(tmp_path: Path, name: str) -> None:
    file = write_pi_session(tmp_path / f"{name}.jsonl", **{"turns": 120, **GENERATED_PI[name]})
    assert _compare(file, tmp_path) != 0  # not windowed (-1), or some messages came light


def test_a_line_msgspec_does_not_mirror_comes_validated(tmp_path: Path) -> None:
    """A message line with a tool result block inside (not mirrored by the light structs) walks as a validated message."""
    source = (ROOT / "sample_sessions" / "pi-coding-session.jsonl").read_text().splitlines()
    odd = '{"type":"message","id":"odd00001","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"boom"}],"isError":true},{"type":"text","text":"Please fix the failing build."}]}}'
    parent = next(line for line in source[1:] if '"id":"' in line).split('"id":"')[1].split('"')[0]
    lines = [*source, odd.replace('"parentId":null', f'"parentId":"{parent}"')] if parent else source
    file = tmp_path / "odd.jsonl"
    file.write_text("\n".join(lines) + "\n")
    home = tmp_path / "home"
    home.mkdir()
    assert _compare(file, home) >= 0
