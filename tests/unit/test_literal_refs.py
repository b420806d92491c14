"""`_` and `%` in a proposal, compaction or session reference match themselves, not any character (SQL LIKE)."""

from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from cutline.app.cli import cli
from cutline.core.errors import NotFoundError
from cutline.core.review import resolve_proposal
from cutline.core.store import Store
from cutline.core.store.like import like_prefix
from tests.support.paths import SAMPLES


def test_like_prefix_escapes_the_wildcards_and_the_escape() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (v TEXT)")
    conn.executemany("INSERT INTO t VALUES (?)", [("abc",), ("a_c",), ("a%c",), ("a\\c",), ("xyz",)])

    def matches(ref: str) -> list[str]:
        rows = conn.execute("SELECT v FROM t WHERE v LIKE ? ESCAPE '\\' ORDER BY v", (like_prefix(ref),))
        return [r[0] for r in rows]

    assert matches("_") == []
    assert matches("%") == []
    assert matches("a_") == ["a_c"]
    assert matches("a%") == ["a%c"]
    assert matches("a\\") == ["a\\c"]
    assert matches("a") == ["a%c", "a\\c", "a_c", "abc"]


def test_a_wildcard_names_no_proposal() -> None:
    runner = CliRunner()
    made = runner.invoke(cli, ["compact", str(SAMPLES / "pi-branched.jsonl"), "--json"])
    assert made.exit_code == 0, made.output
    proposal_id = json.loads(made.output)["id"]
    with Store() as store:
        for ref in ("_", "%", "%%", "_" * len(proposal_id), proposal_id[:2] + "%"):
            with pytest.raises(NotFoundError):
                resolve_proposal(store, ref)
        assert resolve_proposal(store, proposal_id[:6]) == proposal_id
    rejected = runner.invoke(cli, ["reject", "_"])
    assert rejected.exit_code != 0
    with Store() as store:
        row = store.conn.execute("SELECT status FROM proposals WHERE id = ?", (proposal_id,)).fetchone()
    assert row[0] == "open"  # `cutline reject _` used to reject the only proposal


def test_a_wildcard_names_no_compaction_or_session() -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["import", str(SAMPLES / "pi-one-compaction.jsonl")]).exit_code == 0
    for ref in ("_", "%", "________"):
        result = runner.invoke(cli, ["audit", ref])
        assert result.exit_code != 0, ref
        assert isinstance(result.exception, NotFoundError), ref
        assert runner.invoke(cli, ["show", ref]).exit_code != 0, ref
