"""The audit walks the summarized part as light entries put into models (core.audit.light_models), not re-validated ones.

`as_entry` of each light entry a window reads must hold what the store's validated rebuild
(`entry_from_row`) holds, but for the extra fields the light structs drop (no audit reader
looks at them but a system message's `sections`, which comes validated); and an audit of a
grown Claude Code or Codex session validates a bounded number of stored models at n and 4n.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import cutline.core.store.rows as store_rows
from cutline.core.agents.light import LightEntry, LightModelEntry
from cutline.core.audit import report
from cutline.core.audit.light_models import as_entry
from cutline.core.models import Entry
from cutline.core.store import Store
from tests.support.cli import run
from tests.support.grown_sessions import grow
from tests.support.pi_compactions import write_pi_session
from tests.support.session_files import GENERATED_PI, SESSION_FILES


def _fields(value: Any) -> Any:
    """A model's declared fields, recursively, with their types (its extra fields left out)."""
    if isinstance(value, BaseModel):
        return (type(value), {name: _fields(getattr(value, name)) for name in type(value).model_fields})
    if isinstance(value, list):
        return [_fields(v) for v in value]
    if isinstance(value, dict):
        return {k: _fields(v) for k, v in value.items()}
    return (type(value), value)


def _compare(file: Path, home: Path) -> int:
    """Every light entry of the stored path of `file` as `as_entry` builds it against the validated rebuild; how many
    came light (-1: not windowed)."""
    with Store(home / "cutline.db") as store:
        report = store.import_file(file)
        window = store.sessions.path_window(report.session_id, lazy=True)
        if window is None:
            return -1
        positions = list(range(len(window)))
        light = window.read_light(positions)
        validated = window.read_unkept(positions)
        came_light = 0
        for at, (seen, model) in enumerate(zip(light, validated, strict=True)):
            built = as_entry(seen)
            assert type(built) is Entry, (file, at)
            if isinstance(seen, LightEntry):
                came_light += 1
                assert _fields(built) == _fields(model), (file, at)
                assert built.message is not None and model.message is not None
                assert built.message.text() == model.message.text(), (file, at)
            else:
                assert built is seen, (file, at)
        return came_light


def test_every_session_file_s_light_entries_are_the_validated_entries(tmp_path: Path) -> None:
    light = windowed = 0
    for at, file in enumerate(SESSION_FILES):
        home = tmp_path / str(at)
        home.mkdir()
        came = _compare(file, home)
        windowed += came >= 0
        light += max(came, 0)
    assert windowed > 20 and light > 500, (windowed, light)


@pytest.mark.parametrize("name", sorted(GENERATED_PI))
def test_generated_pi_sessions_light_entries_are_the_validated_entries(tmp_path: Path, name: str) -> None:
    file = write_pi_session(tmp_path / f"{name}.jsonl", **{"turns": 60, **GENERATED_PI[name]})
    assert _compare(file, tmp_path) != 0


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_grown_sessions_light_entries_are_the_validated_entries(agent: str, tmp_path: Path) -> None:
    file = grow(agent, 1200, tmp_path / f"{agent}.jsonl")
    assert _compare(file, tmp_path) > 300


def test_a_system_message_with_prompt_sections_comes_validated() -> None:
    """Its sections are extra fields (`Message.system_sections`), which a light entry drops."""
    model = (
        '{"id":"s1","parentId":null,"type":"message","timestamp":null,"sourceType":"system","message":{"role":"system",'
        '"content":[{"type":"text","text":"base"}],"sections":{"tools":"read, write"}},"compaction":null,"data":{},'
        '"isSidechain":false,"isMeta":false,"isCompactSummary":false,"line":3}'
    )
    found = store_rows.light_or_entry_from_model_row(model, "", 3)
    assert isinstance(found, LightModelEntry)
    built = as_entry(found)
    assert built.message is not None and built.message.text() == "base\n\nread, write"
    plain = model.replace('"sections"', '"other"')
    found = store_rows.light_or_entry_from_model_row(plain, "", 3)
    assert isinstance(found, LightModelEntry)
    built = as_entry(found)
    assert built.message is not None and built.message.text() == "base" and not built.message.model_extra


def _audit_validations(
    tmp_path: Path, agent: str, records: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> int:
    """Stored models validated (`entry_from_json`) by the walk over the summarized part (`report._blocks`) in one
    `audit --json --proposal` of a grown session's proposal (the re-plan's own reads are not counted)."""
    file = grow(agent, records, tmp_path / f"{agent}-{records}.jsonl")
    code, out, err = run(
        capsys, "compact", "--summarizer", "extractive", "--json", "--keep-recent-tokens", "2000", str(file)
    )
    assert code == 0 and '"summary"' in out, err
    proposal = json.loads(out)["id"]
    calls = 0
    walking = False
    validate = store_rows.entry_from_json
    blocks = report._blocks

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += walking
        return validate(*args, **kwargs)

    def walked(*args: Any) -> Iterator[Any]:
        nonlocal walking
        read = blocks(*args)
        while True:
            walking = True
            try:
                block = next(read, None)
            finally:
                walking = False
            if block is None:
                return
            yield block

    with monkeypatch.context() as patched:
        patched.setattr(store_rows, "entry_from_json", counted)
        patched.setattr(report, "_blocks", walked)
        code, out, err = run(capsys, "audit", "--json", "--proposal", proposal)
    assert code == 0 and '"retention"' in out, err
    return calls


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_an_audit_of_a_grown_session_validates_a_bounded_number_of_models(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The summarized part is read light (`PathWindow.read_light`) and put into models unvalidated: the walk validates
    next to nothing at n and 4n records (a system message naming prompt sections would be).

    Before: every summarized entry's model, and every record between them a dense read fetched, was validated:
    ~n / 2 at n, ~2n at 4n.
    """
    small = _audit_validations(tmp_path, agent, 600, monkeypatch, capsys)
    large = _audit_validations(tmp_path, agent, 2400, monkeypatch, capsys)
    assert large - small < 2400 / 50, (small, large)
