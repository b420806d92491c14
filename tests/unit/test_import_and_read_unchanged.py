"""A command that keeps the session (`Store.import_and_read`) loads an unchanged file from its stored rows, not by reading it again.

Why: reading a 50,000-record Claude Code file costs three times as much as rebuilding it
from its rows. The session must be the one the reading gives: entries, problems, header.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import cutline.core.agents as agents
from cutline.core.store import Store
from tests.support.paths import ROOT

FILES = [
    ROOT / "tests" / "fixtures" / "formats" / "claude-code-small.jsonl",
    ROOT / "tests" / "fixtures" / "formats" / "codex-small.jsonl",
    ROOT / "tests" / "fixtures" / "formats" / "pi-v3-tree.jsonl",
]


@pytest.mark.parametrize("source", FILES, ids=lambda p: p.name)
def test_an_unchanged_file_is_rebuilt_from_the_store_as_the_reading_gives_it(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / source.name
    # a line that does not parse: its problem must come back from the store too
    file.write_text(source.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    with Store() as store:
        first = store.import_and_read(file)
    read = first.session
    assert read.problems, "the broken line is reported"

    def no_reading(*args: object, **kwargs: object) -> object:
        raise AssertionError("an unchanged file was read again")

    monkeypatch.setattr(agents, "read_session", no_reading)
    with Store() as store:
        again = store.import_and_read(file)
    assert again.report.unchanged
    assert again.counts is None
    loaded = again.session
    assert loaded.id == read.id
    assert loaded.format == read.format
    assert loaded.source_path == str(file)
    assert [e.model_dump() for e in loaded.entries] == [e.model_dump() for e in read.entries]
    assert [p.model_dump() for p in loaded.problems] == [p.model_dump() for p in read.problems]
    assert [e.id for e in loaded.active_path()] == [e.id for e in read.active_path()]


def test_a_changed_file_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = tmp_path / "s.jsonl"
    shutil.copyfile(FILES[0], file)
    with Store() as store:
        store.import_and_read(file)
    with file.open("a", encoding="utf-8") as handle:
        handle.write("\n")
    calls: list[Path] = []
    reading = agents.read_session

    def counted(path: Path, *args: object, **kwargs: object) -> object:
        calls.append(path)
        return reading(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(agents, "read_session", counted)
    with Store() as store:
        store.import_and_read(file)
    assert calls == [file]


@pytest.mark.parametrize("broken", [False, True], ids=["no-problem", "a-problem"])
@pytest.mark.parametrize("source", FILES, ids=lambda p: p.name)
def test_an_unchanged_files_report_is_the_validated_one(source: Path, broken: bool, tmp_path: Path) -> None:
    """The unchanged file's report is made from its stored row without validation (no schema built for a warm
    `tokens`): the same model, fields set and JSON as `ImportReport(...)` validating those values gives."""
    from cutline.core.store.importer import ImportReport

    file = tmp_path / source.name
    file.write_text(source.read_text(encoding="utf-8") + ("{not json\n" if broken else ""), encoding="utf-8")
    with Store() as store:
        first = store.import_file(file)
        again = store.import_file(file)
    assert again.unchanged and not first.unchanged
    assert bool(again.problems) == broken
    validated = ImportReport(**{name: getattr(again, name) for name in again.model_fields_set})
    assert again == validated
    assert again.model_fields_set == validated.model_fields_set
    assert again.model_dump_json() == validated.model_dump_json()
    assert [p.model_dump() for p in again.problems] == [p.model_dump() for p in first.problems]
    assert (again.session_id, again.format, again.total) == (first.session_id, first.format, first.total)
