"""Rough edges of the command line a newcomer hit (issue 27): each through `cutline.app.cli.main`, as typed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.golden_writeback.make_session import write_session
from tests.support.cli import run
from tests.support.paths import SAMPLES


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "c.db")


def test_import_of_a_folder_is_one_line_with_the_command_that_would_work(capsys, tmp_path: Path, db: str) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    code, out, err = run(capsys, "import", str(folder), "--db", db)
    assert code == 1 and out == ""
    assert (
        err
        == f"cutline: {folder}: is a directory; give session files (`cutline ls --all` lists the agents' sessions on this machine, with their files)\n"
    )
    write_session(folder / "a.jsonl")
    shutil.copy(folder / "a.jsonl", folder / "b.jsonl")
    code, out, err = run(capsys, "import", str(folder), "--db", db)
    assert code == 1
    assert (
        err == f"cutline: {folder}: is a directory; import its 2 .jsonl files with `cutline import {folder}/*.jsonl`\n"
    )


def test_export_to_a_folder_is_one_line_naming_a_file_in_it(capsys, tmp_path: Path, db: str) -> None:
    session = write_session(tmp_path / "work.jsonl")
    code, out, err = run(capsys, "export", str(session), "-o", str(tmp_path), "--db", db)
    assert code == 1 and out == ""
    assert err == f"cutline: {tmp_path}: is a directory; name the file to write, e.g. -o {tmp_path / 'work.jsonl'}\n"


def test_proposals_show_the_latest_versions_tokens_and_compare_groups_digits(capsys, tmp_path: Path, db: str) -> None:
    from cutline.core import review
    from cutline.core.store import Store

    session = SAMPLES / "pi-coding-session.jsonl"
    ids = []
    for keep in ("20000", "5000"):
        code, out, _ = run(capsys, "compact", str(session), "--keep-recent-tokens", keep, "--json", "--db", db)
        assert code == 0
        ids.append(json.loads(out)["id"])
    with Store(db) as store:
        generated = review.latest_version(store, ids[0])
        assert generated.tokens is not None
        edited = review.add_version(store, ids[0], generated.text + "\n" + "x" * 4000)  # ~1,000 tokens more
        assert edited.tokens is not None and 1000 <= edited.tokens - generated.tokens <= 1001
        after = review.load_proposal(store, ids[0]).tokensAfter + edited.tokens - generated.tokens
    code, out, _ = run(capsys, "proposals", str(session), "--db", db)
    [line] = [row for row in out.splitlines() if row.startswith(ids[0])]
    assert f"->{after:,}  valid  v2" in line  # the latest version's figure beside its number
    code, out, _ = run(capsys, "compare", ids[0], ids[1], "--db", db)
    summary = next(row for row in out.splitlines() if row.startswith("summary "))
    assert re.fullmatch(r"summary\s+\d{1,3}(,\d{3})+ chars\s+\d{1,3}(,\d{3})+ chars", summary), summary


def test_tokens_names_its_row_column_for_what_it_holds(capsys, db: str) -> None:
    code, out, _ = run(capsys, "tokens", str(SAMPLES / "pi-coding-session.jsonl"), "--db", db)
    assert code == 0
    header = next(row for row in out.splitlines() if row.split()[-1:] == ["calibrated"])
    assert header.split()[:3] == ["path", "#", "real"]  # a position on the path; `timeline`'s turn is a user turn
    assert "turns" not in out  # the calibration counts model calls


def test_over_the_threshold_with_nothing_to_summarize_says_so_and_names_a_value_that_works(capsys, db: str) -> None:
    session = str(SAMPLES / "pi-coding-session.jsonl")
    too_much = ["--keep-recent-tokens", "300000", "--context-window", "100000", "--reserve-tokens", "10000"]
    code, out, _ = run(capsys, "plan", session, *too_much, "--db", db)
    assert code == 0
    assert "tokens before 327,017 · threshold 90,000 · over the threshold, but nothing can be summarized" in out
    suggested = re.search(
        r"keepRecentTokens ([\d,]+) would leave history to summarize: --keep-recent-tokens (\d+)", out
    )
    assert suggested is not None, out
    keep = suggested.group(2)
    assert suggested.group(1) == f"{int(keep):,}" and 200_000 < int(keep) < 300_000
    code, out, err = run(capsys, "compact", session, *too_much, "--db", db)
    assert code == 1
    assert err == (
        f"cutline: the plan has nothing to summarize; keepRecentTokens {int(keep):,} would leave history to "
        f"summarize (--keep-recent-tokens {keep})\n"
    )
    code, out, _ = run(capsys, "compact", session, *too_much[2:], "--keep-recent-tokens", keep, "--json", "--db", db)
    assert code == 0 and json.loads(out)["summarizedCount"] > 0  # the value named works


def test_an_older_pi_file_names_both_rule_sets_where_plan_and_audit_differ(capsys, db: str) -> None:
    older = str(SAMPLES / "pi-v1-legacy.jsonl")
    code, out, _ = run(capsys, "plan", older, "--db", db)
    assert code == 0
    assert out.splitlines()[0] == (
        "mode pi · rules pi (current pi — the file was written by pi 0.73) · counter chars4 · 26 entries on the active path"
    )
    resumed = "; plan and compact use current pi's rules (pi), for the pi you resume it with"
    code, out, _ = run(capsys, "audit", older, "--db", db)
    assert code == 0
    assert any(line.startswith("  rules pi-0.73: ") and line.endswith(resumed) for line in out.splitlines()), out
    code, out, _ = run(capsys, "timeline", older, "--replay", "--db", db)
    assert code == 0
    assert any(
        line.startswith("replayed with the rules of pi-0.73 (") and line.endswith(resumed) for line in out.splitlines()
    )
    code, out, _ = run(capsys, "plan", older, "--rules", "pi-0.73", "--db", db)  # the same rules: said once
    assert out.splitlines()[0].startswith("mode pi · rules pi-0.73 · counter")


@pytest.mark.parametrize("sample", ["pi-v1-legacy.jsonl", "pi-v2-hookmessage.jsonl"])
def test_context_after_a_proposal_of_an_older_pi_file_is_what_the_written_file_sends(
    capsys, tmp_path: Path, db: str, sample: str
) -> None:
    session = tmp_path / sample
    shutil.copy(SAMPLES / sample, session)
    code, out, _ = run(capsys, "compact", str(session), "--keep-recent-tokens", "100", "--json", "--db", db)
    assert code == 0, out
    proposal = json.loads(out)["id"]
    code, predicted, err = run(capsys, "context", "--proposal", proposal, "--json", "--db", db)
    assert code == 0, err
    code, _, err = run(capsys, "accept", proposal, "--write-back", "--anyway", "--db", db)  # extractive: guard may fail
    assert code == 0, err
    assert json.loads(session.read_text().splitlines()[0])["version"] == 3  # the write-back migrated it
    code, sent, _ = run(capsys, "context", str(session), "--json", "--db", db)
    assert code == 0
    assert json.loads(predicted) == json.loads(sent)


def test_a_claude_code_file_ending_in_another_sessions_record_keeps_its_own_path(
    capsys, tmp_path: Path, db: str
) -> None:
    from cutline.core.agents import read_session

    session = tmp_path / "transcript.jsonl"
    lines = (SAMPLES / "claude-code-compacted.jsonl").read_text(encoding="utf-8").splitlines()
    own = read_session(SAMPLES / "claude-code-compacted.jsonl")
    stray = json.loads(next(line for line in reversed(lines) if '"type":"user"' in line))
    stray.update(uuid="99999999-0000-4000-8000-000000000000", parentUuid=None, sessionId="another-session")
    session.write_text("\n".join([*lines, json.dumps(stray)]) + "\n", encoding="utf-8")
    read = read_session(session)
    assert any("record of another session (another-session)" in p.message for p in read.problems)
    assert [e.id for e in read.active_path()] == [e.id for e in own.active_path()]  # not the stray record alone
    out_file = tmp_path / "out.jsonl"
    code, _, err = run(capsys, "export", str(session), "-o", str(out_file), "--db", db)
    assert code == 0, err
    own_out = tmp_path / "own.jsonl"
    code, _, _ = run(capsys, "export", str(SAMPLES / "claude-code-compacted.jsonl"), "-o", str(own_out), "--db", db)
    assert len(out_file.read_text().splitlines()) == len(own_out.read_text().splitlines()) > 2


def test_a_byte_order_mark_in_a_claude_code_file_is_skipped_as_claude_code_skips_it(tmp_path: Path) -> None:
    from cutline.core.agents import read_session

    original = SAMPLES / "claude-code-compacted.jsonl"
    lines = original.read_text(encoding="utf-8").splitlines()
    marked = tmp_path / "marked.jsonl"
    lines[0] = "\ufeff" + lines[0]  # Claude Code's file reader drops a leading BOM
    lines[9] = "\ufeff" + lines[9]  # and its line parser reads a line that starts with one
    marked.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected, read = read_session(original), read_session(marked)
    assert read.format == "claude_code" and not [p for p in read.problems if "malformed" in p.message]
    assert [e.id for e in read.entries] == [e.id for e in expected.entries]
    assert [e.id for e in read.active_path()] == [e.id for e in expected.active_path()]
    assert next(e for e in read.entries if e.line == 10).raw_line == lines[9]  # the line is kept as written


def test_agent_lines_landing_after_the_reimport_are_said_before_success(
    tmp_path: Path, db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer the running-agent check does not see appends on its old leaf while the accept finishes."""
    import cutline.core.session_writes as writeback
    from cutline.core import review
    from cutline.core.store import Store
    from tests.support.writeback import jsonl_lines, propose

    session = write_session(tmp_path / "raced.jsonl")
    old_leaf = str(jsonl_lines(session.read_bytes())[-1]["id"])
    real_reimport = writeback._reimport
    calls = []

    def reimport_then_the_agent_writes(store: Store, path: str, proposal_id: str) -> list[str]:
        notes = real_reimport(store, path, proposal_id)
        if not calls:  # right after the first re-read: the agent's line lands on its old branch
            line = {
                "type": "message",
                "id": "agent001",
                "parentId": old_leaf,
                "timestamp": "2026-01-01T00:00:01.000Z",
                "message": {"role": "user", "content": [{"type": "text", "text": "still here"}], "timestamp": 1},
            }
            with session.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(line) + "\n")
        calls.append(path)
        return notes

    monkeypatch.setattr(writeback, "_reimport", reimport_then_the_agent_writes)
    with Store(db) as store:
        proposal = propose(store, session)
        decision = review.accept(store, proposal.id, write_back=True)
    assert decision.written_to is not None
    assert any(
        note.startswith("checked once more before reporting: the agent kept writing on its old branch after compaction")
        for note in decision.notes
    ), decision.notes
