"""The truth-side judge: whether a summary keeps, loses or contradicts a planted fact.

Written by hand per fact (catalogue.py: `present`, `contra`), independent of cutline's
own fact extraction, so any summarizer's output can be scored against the answer key:

    contradicted  if any `contra` regex matches the summary (for a revoked preference:
                  unless the revocation is kept too),
    kept          else if every `present` regex matches,
    lost          otherwise.

Regexes run case-insensitively on the lower-cased summary.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

KEY = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "truth" / "key.json"


def judge(present: Sequence[str], contra: Sequence[str], summary: str, revoked: bool = False) -> str:
    """ "kept", "lost" or "contradicted" for one fact's judge on one summary.

    `revoked`: the fact is a revocation (a preference taken back); a summary that states
    the old preference is contradicted only when it does not also carry the revocation.
    """
    text = summary.lower()
    kept = all(re.search(p, text) for p in present)
    if any(re.search(p, text) for p in contra) and not (revoked and kept):
        return "contradicted"
    return "kept" if kept else "lost"


def judge_fact(fact: Mapping[str, Any], summary: str) -> str:
    j = fact["judge"]
    return judge(j["present"], j["contra"], summary, bool(j.get("revoked")))


def load_key(path: Path = KEY) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def score_summaries(summaries: Mapping[str, str], key: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Score summaries (session id -> summary text) by the truth: per fact verdicts, retention plain and weighted.

    Sessions without a summary in `summaries` are left out.
    """
    key = key if key is not None else load_key()
    rows: list[dict[str, Any]] = []
    for fact in key["facts"]:
        summary = summaries.get(fact["session"])
        if summary is None:
            continue
        rows.append(
            {
                "id": fact["id"],
                "kind": fact["kind"],
                "split": fact["split"],
                "weight": fact["weight"],
                "verdict": judge_fact(fact, summary),
            }
        )
    kept = [r for r in rows if r["verdict"] == "kept"]
    total_weight = sum(r["weight"] for r in rows) or 1.0
    return {
        "facts": rows,
        "retention": len(kept) / len(rows) if rows else None,
        "weighted_retention": sum(r["weight"] for r in kept) / total_weight,
        "contradicted": sum(1 for r in rows if r["verdict"] == "contradicted"),
    }
