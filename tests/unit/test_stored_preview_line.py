"""The line accepting a proposal appends, made from stored facts, is the line made from the whole session.

Why: the accept preview (`preview_entry`, the desk's accept confirmation, `context
--proposal`) loaded a 50,000-record Claude Code session whole (~650 MB of models) to make
that line, which needs only the header and the stored path from the first kept entry to
the leaf (pi: the leaf; Codex: also the highest `ordinal`). Every pi, Claude Code, Codex
and Qwen Code file of the samples and fixtures, with the first kept entry at every place
of its path (sampled on long ones) and none: where the whole session gives a line, the
stored facts give the same line or None (read whole: pi written by current pi, before
version 3); where the whole session refuses, they give None too.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from cutline.core.agents.registry import adapter_for
from cutline.core.errors import WriteBackRefused
from cutline.core.models import CompactionRecord, Session
from cutline.core.session_writes import stored_preview_line, stored_write_back_plan, write_back_plan
from cutline.core.store import Store
from tests.support.grown_sessions import grow
from tests.support.paths import ROOT
from tests.support.pi_compactions import write_pi_session
from tests.support.session_files import GENERATED_PI, files_of

STAMP = "2026-01-02T03:04:05.678Z"
FILES = files_of("pi", "claude_code", "codex", "qwen_code")


def _places(path_ids: list[str]) -> list[str | None]:
    if len(path_ids) <= 40:
        return [None, *path_ids]
    step = len(path_ids) / 30
    return [None, *{path_ids[int(i * step)] for i in range(30)}, *path_ids[-10:]]


def _whole_line(session: Session, record: CompactionRecord) -> str | None:
    try:
        return adapter_for(session.format).preview_line(session, record, entry_id="cutline-test", timestamp=STAMP)
    except WriteBackRefused:
        return None


def _compare(file: Path) -> dict[str, int]:
    """Every place's line both ways; how many were told from stored facts and how many read whole."""
    said = {"stored": 0, "whole": 0, "refused": 0}
    with Store() as store:
        session_id = store.import_file(file).session_id
        session = store.load_session(session_id)
        header = store.sessions.header(session_id)
        if not write_back_plan(session, look_for_agent=False).possible:
            return said
        for first_kept in _places([e.id for e in session.active_path()]):
            record = CompactionRecord(
                summary="the summary\nof two lines", firstKeptEntryId=first_kept, tokensBefore=12345, details={}
            )
            whole = _whole_line(session, record)
            stored = stored_preview_line(store, header, record, entry_id="cutline-test", timestamp=STAMP)
            if whole is None:
                assert stored is None, (first_kept, stored)
                said["refused"] += 1
            elif stored is None:
                said["whole"] += 1
            else:
                assert stored == whole, first_kept
                said["stored"] += 1
    return said


@pytest.mark.parametrize("file", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_file_s_preview_line_is_the_whole_session_s(file: Path, tmp_path: Path) -> None:
    copy = tmp_path / file.name
    shutil.copyfile(file, copy)
    with Store() as store:
        header = store.sessions.header(store.import_file(copy).session_id)
    said = _compare(copy)
    if said["whole"]:  # read whole only where the line needs the whole path
        assert header.format == "pi", said
        version = header.version if header.version is not None else 1
        with Store() as store:
            current = store.sessions.path_is_current_pi(store.import_file(copy).session_id)
        assert version < 3 or current, said
    if header.format != "pi":
        assert said["whole"] == 0


@pytest.mark.parametrize("kind", sorted(GENERATED_PI))
def test_generated_pi_sessions_give_the_same_line(kind: str, tmp_path: Path) -> None:
    said = _compare(write_pi_session(tmp_path / f"{kind}.jsonl", **GENERATED_PI[kind]))
    if GENERATED_PI[kind].get("current_pi"):
        assert said["stored"] == 0 and said["whole"] > 0, said
    else:
        assert said["stored"] > 0 and said["whole"] == 0, said


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_grown_sessions_give_the_same_line(agent: str, tmp_path: Path) -> None:
    said = _compare(grow(agent, 400, tmp_path / f"{agent}.jsonl"))
    assert said["stored"] > 0 and said["whole"] == 0, said


def test_the_corpus_gives_lines_from_stored_facts_for_every_agent(tmp_path: Path) -> None:
    """The comparison has teeth: each agent's files give lines from stored facts, and refusals too."""
    told: Counter[str] = Counter()
    for file in FILES:
        copy = tmp_path / file.name
        shutil.copyfile(file, copy)
        with Store() as store:
            kind = store.sessions.header(store.import_file(copy).session_id).format
        said = _compare(copy)
        told[f"{kind} stored"] += said["stored"]
        told["refused"] += said["refused"]
        copy.unlink()
    for kind in ("pi", "claude_code", "codex", "qwen_code"):
        assert told[f"{kind} stored"] >= 5, told
    assert told["refused"] > 0, told


def test_a_codex_ordinal_higher_earlier_than_the_last_line_s_is_the_one_counted(tmp_path: Path) -> None:
    """Codex numbers the record the highest ordinal + 1, wherever that ordinal is in the rollout."""
    file = grow("codex", 40, tmp_path / "codex.jsonl")
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    record = json.loads(lines[3])
    record["ordinal"] = 10**6
    lines[3] = json.dumps(record) + "\n"
    file.write_text("".join(lines), encoding="utf-8")
    said = _compare(file)
    assert said["stored"] > 0 and said["whole"] == 0, said
    with Store() as store:
        session_id = store.import_file(file).session_id
        header = store.sessions.header(session_id)
        line = stored_preview_line(store, header, CompactionRecord(summary="s"), entry_id="x", timestamp=STAMP)
    assert line is not None and json.loads(line)["ordinal"] == 10**6 + 1


@pytest.mark.parametrize("file", files_of("qwen_code"), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_qwen_code_file_gives_the_same_plan_from_stored_facts(file: Path, tmp_path: Path) -> None:
    """Qwen Code: the stored path's last record, as Claude Code (main: None, read whole)."""
    copy = tmp_path / file.name
    shutil.copyfile(file, copy)
    with Store() as store:
        session_id = store.import_file(copy).session_id
        stored = stored_write_back_plan(store, store.sessions.header(session_id), look_for_agent=False)
        whole = write_back_plan(store.load_session(session_id), look_for_agent=False)
    assert stored is not None
    assert stored == whole
