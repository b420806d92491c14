"""`cutline audit`, `cutline timeline` and `cutline compare` through the real CLI entry point."""

from __future__ import annotations

import asyncio
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cutline.app.cli import main
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.compact import compact
from cutline.core.engine.plan import plan
from cutline.core.review import add_version, save_proposal
from cutline.core.store import Store
from tests.support.writeback import FixedSummarizer


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _line(entry_id: str, parent: str | None, body: dict) -> str:
    return json.dumps(
        {
            "type": "message",
            "id": entry_id,
            "parentId": parent,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "message": body,
        }
    )


def _user(entry_id: str, parent: str | None, text: str) -> str:
    return _line(entry_id, parent, {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1})


def _assistant(entry_id: str, parent: str, text: str, total: int) -> str:
    usage = {"input": total, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total}
    return _line(
        entry_id,
        parent,
        {
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "usage": usage,
            "stopReason": "stop",
            "model": "claude-sonnet-4-5",
            "timestamp": 2,
        },
    )


def _compaction(entry_id: str, parent: str, summary: str, first_kept: str) -> str:
    return json.dumps(
        {
            "type": "compaction",
            "id": entry_id,
            "parentId": parent,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "summary": summary,
            "firstKeptEntryId": first_kept,
            "tokensBefore": 5000,
        }
    )


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    lines = [
        json.dumps(
            {"type": "session", "version": 3, "id": "cli-audit", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/tmp"}
        ),
        _user("u1", None, "Never deploy on Fridays. Please migrate the billing tables."),
        _assistant("a1", "u1", "I'll use alembic for the migration of db/billing.sql.", 900),
        _user("u2", "a1", "Now add the index."),
        _assistant("a2", "u2", "Index added.", 1400),
        _compaction(
            "c1",
            "a2",
            "## Constraints & Preferences\n- Never deploy on Fridays\n## Goal\n- migrate the billing tables",
            "u2",
        ),
        _user("u3", "c1", "Ship it to https://billing.example.com today."),
        _assistant("a3", "u3", "Shipped.", 1600),
        _compaction("c2", "a3", "## Goal\n- Billing migrated and shipped", "u3"),
    ]
    path = tmp_path / "cli-audit.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_audit_json_of_the_latest_compaction(capsys: pytest.CaptureFixture[str], session_file: Path) -> None:
    code, out, err = run(capsys, "audit", str(session_file), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["id"] == "c2" and data["target"] == "compaction"
    lost = {(f["kind"], f["text"], f["sourceEntryId"]) for f in data["lost"]}
    # the first summary's constraint is dropped by the second one
    assert ("instruction", "Never deploy on Fridays", "c1") in lost
    assert data["retention"]["instruction"] == {"kept": 0, "total": 1, "score": 0.0}
    assert any(w["code"] == "previous-summary-dropped" for w in data["warnings"])
    assert data["why"]["reproduced"] is True and data["why"]["cut_entry_id"] == "u3"


def test_audit_text_of_a_chosen_compaction(capsys: pytest.CaptureFixture[str], session_file: Path) -> None:
    code, out, _ = run(capsys, "audit", str(session_file), "--compaction", "c1")
    assert code == 0
    assert out.startswith("audit of compaction c1 in session cli-audit (pi)")
    assert "  decision (1)\n    - I'll use alembic for the migration of db/billing.sql.  [entry a1]" in out
    assert "why the cut fell there" in out


def test_audit_of_a_proposal_uses_its_latest_version(capsys: pytest.CaptureFixture[str], session_file: Path) -> None:
    with Store() as store:
        session_id = store.import_file(session_file).session_id
        session = store.load_session(session_id)
        session.entries = [e for e in session.entries if e.id != "c2"]
        settings = CompactionSettings(keepRecentTokens=5)
        # a summary that carries the earlier summary's constraint over (what the summarizer writes is not the point)
        carrying = FixedSummarizer(
            "## Constraints & Preferences\n- Never deploy on Fridays\n## Goal\n- ship the billing tables"
        )
        proposal = asyncio.run(compact(plan(session.active_path(), settings), session, carrying, settings))
        save_proposal(store, proposal)
        add_version(store, proposal.id, "nothing useful")
    code, out, err = run(capsys, "audit", str(session_file), "--proposal", proposal.id, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["target"] == "proposal" and data["id"] == proposal.id
    # the edited version ("nothing useful") is audited: the earlier summary's constraint is gone
    assert ("instruction", "Never deploy on Fridays", "c1") in {
        (f["kind"], f["text"], f["sourceEntryId"]) for f in data["lost"]
    }
    assert data["firstKeptEntryId"] == "u3" and data["keptEntries"] == 2
    # the generated version keeps it
    with Store() as store:
        from cutline.core.audit.report import audit_proposal

        generated = audit_proposal(store.load_session(session_id), proposal)
    assert all(f.text != "Never deploy on Fridays" for f in generated.lost)


def test_errors_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path, session_file: Path) -> None:
    plain = tmp_path / "plain.jsonl"
    plain.write_text(
        json.dumps(
            {"type": "session", "version": 3, "id": "plain", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/"}
        )
        + "\n"
        + _user("u1", None, "hi")
        + "\n"
    )
    for args, expected in (
        (("audit", str(plain)), "holds no compaction"),
        (("audit", str(session_file), "--compaction", "u1"), "not a compaction"),
        (("audit", "no-such-session"), "no stored session matches"),
        (("timeline", str(session_file), "-o", str(tmp_path / "x.png")), "only SVG"),
        (("compare", "nothing-here", "c1"), "is no session file, stored session, compaction id or proposal id"),
    ):
        code, _out, err = run(capsys, *args)
        assert code == 1, args
        assert err.startswith("cutline: ") and expected in err and "Traceback" not in err
        assert err.count("\n") == 1


def test_timeline_writes_svg_and_replays(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, session_file: Path
) -> None:
    target = tmp_path / "t.svg"
    code, out, err = run(
        capsys,
        "timeline",
        str(session_file),
        "-o",
        str(target),
        "--counter",
        "chars4",
        "--context-window",
        "1200",
        "--reserve-tokens",
        "100",
        "--keep-recent-tokens",
        "10",
        "--replay",
        "--summary-tokens",
        "5",
    )
    assert code == 0, err
    root = ET.fromstring(target.read_text())
    assert root.tag.endswith("svg")
    assert "3 model calls; window 1,200, reserve 100, threshold 1,100" in out
    assert "compaction c1 at turn 2: 5,000 ->" in out
    assert "with keepRecentTokens 10 (window 1,200, reserve 100, chars4) no compaction would fire" in out
    code, out, _ = run(capsys, "timeline", str(session_file), "--json", "--counter", "chars4")
    assert code == 0
    data = json.loads(out)
    assert [p["usage"] for p in data["timeline"]["points"]] == [900, 1400, 1600]


def test_compare_two_compactions(capsys: pytest.CaptureFixture[str], session_file: Path) -> None:
    run(capsys, "audit", str(session_file))  # imports the file
    code, out, err = run(capsys, "compare", "c1", "c2")
    assert code == 0, err
    assert "instruction  1/1 (100%)" in out and "0/1 (0%)" in out
    assert "\n-- Never deploy on Fridays\n" in out  # the diff removes the first summary's constraint line
    code, out, _ = run(capsys, "compare", "cli-audit:c1", str(session_file), "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["a_id"], data["b_id"]) == ("c1", "c2")
    assert [r["kind"] for r in data["retention"]] == ["instruction", "request", "identifier", "error", "decision"]
