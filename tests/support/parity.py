"""Comparing cutline's planner rule sets with goldens the agents' own code made (tests/golden)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from cutline.core.agents import read_session
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.plan import index_path, plan
from cutline.core.models import Entry
from tests.support.paths import ROOT

_LONE = re.compile("[\ud800-\udfff]")


def scrubbed(value: Any) -> Any:
    """Lone surrogates as the session reader stores them (U+FFFD)."""
    return _LONE.sub("\ufffd", value) if isinstance(value, str) else value


def load_golden(golden: Path) -> tuple[dict[str, Any], list[Entry]]:
    """The golden and the active path of the session it was made from (which must be unchanged since)."""
    data = json.loads(golden.read_text(encoding="utf-8"))
    source = ROOT / data["source"]
    assert hashlib.sha256(source.read_bytes()).hexdigest() == data["sourceSha256"], (
        f"{data['source']} changed since its golden was made: rerun its make script (needs node)"
    )
    return data, read_session(source).active_path()


def check_plans(data: dict[str, Any], path: list[Entry], rules: str) -> None:
    """Every plan of the golden (per keepRecentTokens) equals what `rules` decides on `path`."""
    index = index_path(path)
    assert len(path) == data["pathLength"]
    for keep, expected in data["plans"].items():
        result = plan(index, CompactionSettings(keepRecentTokens=int(keep)), rules=rules)
        where = f"{data['source']} keepRecentTokens={keep}"
        assert result.rules == rules, where
        if expected is None:
            assert (result.alreadyCompacted or result.nothingToCompact) and result.refusal is None, where
            continue
        if "error" in expected:
            assert result.refusal == expected["error"] and result.nothingToCompact, where
            continue
        assert not (result.alreadyCompacted or result.nothingToCompact or result.refusal), where
        got = {
            "firstKeptPathIndex": result.firstKeptPathIndex,
            "isSplitTurn": result.isSplitTurn,
            "tokensBefore": result.tokensBefore,
            "messagesToSummarize": result.messagesToSummarize,
            "turnPrefixMessages": result.turnPrefixMessages,
            "previousSummary": result.previousSummary,
            "readFiles": result.readFiles,
            "writtenFiles": result.writtenFiles,
            "editedFiles": result.editedFiles,
        }
        want = {key: scrubbed(expected[key]) for key in got}
        if "latestUnresolvedUserRequest" in expected:
            got["latestUnresolvedUserRequest"] = result.latestUnresolvedUserRequest
            want["latestUnresolvedUserRequest"] = scrubbed(expected["latestUnresolvedUserRequest"])
        assert got == want, where
        if data.get("version") != 1 and "v1-legacy" not in data["source"]:
            assert result.firstKeptEntryId == expected["firstKeptEntryId"], where
