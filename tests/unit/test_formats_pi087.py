"""Current pi (0.87.1): system entries, context_edit, usage entries, compaction.systemMessage, retain-none compactions.

The sessions are the conformance corpus's (tests/fixtures/corpus/pi-0.87, written by pi
0.87.1 itself; the context-edit one with four edits written after pi's own format) and
small variations of them made here. What pi sent next from each file state is in the
corpus too: the system prompt checks below compare with those requests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cutline.app.widgets.rows import entry_row
from cutline.core.agents import read_session, session_context
from cutline.core.agents.pi.system import system_prompt
from cutline.core.engine.context import context_indices
from cutline.core.models import TextBlock
from cutline.core.tokens import IMAGE_CHARS, chars4_tokens, entry_tokens, get_counter, path_tokens, usage_samples
from cutline.core.tokens.jsjson import js_length, js_stringify

CORPUS = Path(__file__).parent.parent / "fixtures" / "corpus"
PI087 = CORPUS / "pi-0.87"


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "name",
    [
        "pi-0.87/main/session.jsonl",
        "pi-0.87/main/after-manual-compact.jsonl",
        "pi-0.87/main/after-auto-compact.jsonl",
        "pi-0.87/context-edit/session.jsonl",
        "pi-0.87/thirdparty/session.jsonl",
        "pi-0.73/main/session.jsonl",
        "pi-0.73/thirdparty/session.jsonl",
    ],
)
def test_corpus_pi_sessions_read_without_problems(name: str) -> None:
    session = read_session(CORPUS / name)
    assert [str(p) for p in session.problems] == []


def test_system_entry_shows_its_prompt_and_weighs_its_sections_and_tools() -> None:
    session = read_session(PI087 / "main" / "session.jsonl")
    system = next(e for e in session.entries if e.role == "system")
    assert system.message is not None
    raw = system.raw["message"]
    sections = [v for v in raw["sections"].values() if v]
    assert system.message.text() == "\n\n".join(sections)
    chars = sum(js_length(v) for v in sections) + js_length(js_stringify(raw["toolsAdded"]))
    assert chars4_tokens(system.message) == -(-chars // 4) > 1000
    row = entry_row(system)
    assert row.preview.startswith("+4 tools (read, bash, edit, write) · You are an expert coding assistant")


def test_system_prompt_replayed_from_the_context_is_what_pi_sent() -> None:
    for state, request in (
        ("main/session.jsonl", "main/next-request.json"),
        ("main/after-manual-compact.jsonl", "main/after-manual-compact.next-request.json"),
        ("context-edit/session.jsonl", "context-edit/next-request.json"),
    ):
        body = json.loads((PI087 / request).read_text(encoding="utf-8"))["body"]
        sent = body["system"] if isinstance(body["system"], str) else "\n\n".join(b["text"] for b in body["system"])
        context = session_context(read_session(PI087 / state))
        assert system_prompt(context) == sent, state


def test_compaction_system_message_leads_the_context_and_counts_with_the_summary() -> None:
    session = read_session(PI087 / "main" / "session.jsonl")
    context = session_context(session)
    assert [m.role for m in context[:2]] == ["system", "compactionSummary"]
    assert "FAKE SUMMARY #2" in (context[1].summary or "")
    path = session.active_path()
    compaction = path[context_indices(path)[0]]
    assert compaction.type == "compaction"
    counter = get_counter("chars4")
    assert entry_tokens(compaction, counter) == counter.count(context[0]) + counter.count(context[1])


def test_system_entries_before_the_kept_range_are_not_sent_again(tmp_path: Path) -> None:
    records = _lines(PI087 / "main" / "after-manual-compact.jsonl")
    compaction = next(r for r in records if r["type"] == "compaction")
    system_id = next(r["id"] for r in records if r["type"] == "message" and r["message"]["role"] == "system")  # type: ignore[index]
    compaction["firstKeptEntryId"] = system_id  # keep everything from the system entry on
    context = session_context(read_session(_write(tmp_path / "s.jsonl", records)))
    assert [m.role for m in context].count("system") == 1  # the compaction's systemMessage only
    assert context[0].role == "system" and context[1].role == "compactionSummary"
    assert context[2].role == "user"


def test_retain_none_compaction_keeps_nothing_before_it(tmp_path: Path) -> None:
    records = _lines(PI087 / "main" / "after-manual-compact.jsonl")
    compaction = next(r for r in records if r["type"] == "compaction")
    compaction["firstKeptEntryId"] = compaction["id"]
    session = read_session(_write(tmp_path / "s.jsonl", records))
    assert session.problems == []
    assert [m.role for m in session_context(session)] == ["system", "compactionSummary"]
    assert entry_row(session.entries[-1]).preview.split(" · ")[1] == "whole history replaced"


def test_context_edits_replace_and_omit_their_targets() -> None:
    session = read_session(PI087 / "context-edit" / "session.jsonl")
    edits = [e for e in session.entries if e.type == "context_edit"]
    assert len(edits) == 4 and session.problems == []
    context = session_context(session)
    texts = [m.text() for m in context]
    assert texts[1] == "EDITED FIRST PROMPT (context_edit)"
    assert "EDITED TOOL OUTPUT (context_edit)" in texts
    assert "What is in this image?" not in texts
    assert not any(t.startswith("ACK: What is in this image?") for t in texts)
    edited_result = next(m for m in context if m.role == "toolResult" and m.text().startswith("EDITED"))
    assert edited_result.content == [TextBlock(text="EDITED TOOL OUTPUT (context_edit)")]
    assert [entry_row(e).preview for e in edits[2:]] == [
        "omits 7c8b5f4c from the context",
        "omits ea48a332 from the context",
    ]


def test_latest_context_edit_of_a_target_wins(tmp_path: Path) -> None:
    records = _lines(PI087 / "context-edit" / "session.jsonl")
    last = records[-1]
    records.append(
        {
            "type": "context_edit",
            "id": "0000beef",
            "parentId": last["id"],
            "timestamp": last["timestamp"],
            "targetId": "7c8b5f4c",
            "replacement": {"content": [{"type": "text", "text": "an image was here"}]},
        }
    )
    texts = [m.text() for m in session_context(read_session(_write(tmp_path / "s.jsonl", records)))]
    assert "an image was here" in texts


def test_a_bad_context_edit_is_reported_and_ignored(tmp_path: Path) -> None:
    records = _lines(PI087 / "context-edit" / "session.jsonl")
    records[-4]["replacement"] = "a bare string"  # pi 0.87.1 fails to load this
    session = read_session(_write(tmp_path / "s.jsonl", records))
    assert [p.line for p in session.problems] == [len(records) - 3]
    assert "neither null nor an object with content" in session.problems[0].message
    assert "First turn: hello." in session_context(session)[1].text()


def test_usage_entries_are_understood_and_never_sent(tmp_path: Path) -> None:
    records = _lines(PI087 / "main" / "session.jsonl")
    last = records[-1]
    usage = {"input": 3, "output": 1, "cacheRead": 2500, "cacheWrite": 0, "totalTokens": 2504}
    records.append(
        {
            "type": "usage",
            "id": "0000cafe",
            "parentId": last["id"],
            "timestamp": last["timestamp"],
            "kind": "cache_warm",
            "provider": "fakeant",
            "model": "fake-claude",
            "usage": usage,
        }
    )
    session = read_session(_write(tmp_path / "s.jsonl", records))
    assert session.problems == []
    entry = session.entries[-1]
    assert entry.type == "usage" and entry.data["usage"] == usage
    assert len(session_context(session)) == len(session_context(read_session(PI087 / "main" / "session.jsonl")))
    assert entry_tokens(entry, get_counter("chars4")) == 0
    assert entry_row(entry).preview == "cache_warm call · 2,504 tokens"
    path = session.active_path()
    samples = usage_samples(path, path_tokens(path))
    assert samples[-1].entryId == "0000cafe" and samples[-1].real == 2503


def test_user_images_in_system_content_count_like_pi() -> None:
    from cutline.core.models import Message

    message = Message.model_validate(
        {"role": "system", "content": [{"type": "text", "text": "abcd"}, {"type": "image", "data": "", "mimeType": ""}]}
    )
    assert chars4_tokens(message) == (4 + IMAGE_CHARS) // 4
