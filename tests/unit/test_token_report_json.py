"""`token_report_json` writes a stored path's report as `TokenReport.model_dump_json(indent=2)` does, with msgspec where
it spells every value alike (the report's floats below 1e16) and with pydantic-core where it would not."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pydantic_core
import pytest

from cutline.app.column_reports import column_token_data
from cutline.core.store import Store
from cutline.core.tokens import TokenReport, token_report_json
from tests.support.paths import ROOT

SAMPLES = sorted((ROOT / "sample_sessions").glob("*.jsonl"))


def _data(file: Path, tmp_path: Path) -> dict[str, Any] | None:
    copy = tmp_path / file.name
    shutil.copyfile(file, copy)
    with Store() as store:
        return column_token_data(store, store.import_file(copy).session_id, None)


def _validated(data: dict[str, Any]) -> str:
    return TokenReport.model_validate(data).model_dump_json(indent=2)


@pytest.fixture
def pydantic_writes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times pydantic-core's `to_json` writes something during the test."""
    calls: list[int] = []
    original = pydantic_core.to_json

    def counting(*args: Any, **kwargs: Any) -> bytes:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(pydantic_core, "to_json", counting)
    return calls


@pytest.mark.parametrize("file", SAMPLES, ids=lambda p: p.name)
def test_every_samples_report_is_written_as_the_model_writes_it(
    file: Path, tmp_path: Path, pydantic_writes: list[int]
) -> None:
    data = _data(file, tmp_path)
    if data is None:
        pytest.skip("not read from columns")
    text = token_report_json(data)
    assert pydantic_writes == []  # msgspec wrote it (the sample's floats are small)
    assert text == _validated(data)


@pytest.mark.parametrize("figure", [1e16, -3.5e17, 1.2345678901234568e22, float("inf"), float("nan")])
def test_a_float_msgspec_spells_otherwise_is_written_by_pydantic(
    figure: float, tmp_path: Path, pydantic_writes: list[int]
) -> None:
    """Above 1e16 msgspec writes `1e16` where pydantic-core writes `1e+16`: such a report goes to pydantic-core."""
    data = _data(ROOT / "sample_sessions" / "codex-rollout-compacted.jsonl", tmp_path)
    assert data is not None
    data["calibration"]["overhead"] = figure
    data["errors"][0]["p90Error"] = figure / 3
    text = token_report_json(data)
    assert pydantic_writes == [1]
    assert text == pydantic_core.to_json(data, indent=2).decode()
    if figure == figure and abs(figure) != float("inf"):
        assert text == _validated(data)
        assert "e+" in text  # the spelling msgspec would not give


def test_figures_below_the_limit_are_spelled_alike(tmp_path: Path, pydantic_writes: list[int]) -> None:
    data = _data(ROOT / "sample_sessions" / "codex-rollout-compacted.jsonl", tmp_path)
    assert data is not None
    for k, figure in enumerate([9.99e14, 1e-7, 5e-324, 0.1, -0.0, 123456789.123]):
        data["calibration"]["ratio"] = figure
        data["errors"][0]["medianError"] = figure * (k + 1)
        assert token_report_json(data) == _validated(data)
    assert pydantic_writes == []


def test_places_of_finds_what_the_loop_finds() -> None:
    """`places_of` (`list.index` in a loop) gives the places a comprehension gives, None and repeats included."""
    import random

    from cutline.core.tokens import places_of

    rng = random.Random(5)
    for n in (0, 1, 2, 7, 100, 2_000):
        values = [rng.choice(["message", "compaction", "other", None, "user"]) for _ in range(n)]
        for wanted in ("compaction", "user", None, "absent"):
            assert places_of(values, wanted) == [i for i, value in enumerate(values) if value == wanted]
