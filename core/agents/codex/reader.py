"""Codex CLI rollout JSONL (`~/.codex/sessions/**/rollout-*.jsonl`) read into the neutral model.

Rollouts are linear: every record becomes an entry whose parent is the previous one,
with a deterministic id. `token_count` events carry the usage of the response just
made, so `info.last_token_usage` is attached to the most recent assistant message
entry that has no usage yet. A `compacted` record becomes a compaction entry that
keeps nothing before it (Codex replaces the whole history).
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Iterator
from typing import Any, cast

from cutline.core.agents import deep_json
from cutline.core.agents.adapter import EntrySink
from cutline.core.agents.boundaries import ContinuationMarks
from cutline.core.agents.codex.detect import CODEX_TYPES
from cutline.core.agents.codex.usage import usage_from_last
from cutline.core.agents.entries import OtherEntry, StableIds, build_entry, iso_to_ms, other_entry, path_hash, string_or
from cutline.core.agents.jsonl import Lines, Record, iter_records
from cutline.core.models import Entry, Problem, Session

# response_item payload types with no conversational counterpart: kept as "other", not reported
_HARMLESS_ITEMS = frozenset({"web_search_call", "ghost_snapshot", "image_generation_call"})
# record kinds that are bookkeeping, not model context (kept as "other" with their payload, never reported):
# UI events, per-turn settings, the snapshot developer/context messages are built from (`world_state`),
# and the usage of each model response (`token_usage_record`, read for the token figures)
_METADATA_KINDS = frozenset({"event_msg", "turn_context", "session_meta", "state", "world_state", "token_usage_record"})
ENCRYPTED_COMPACTION = "(an encrypted remote compaction: its summary is readable only by the model, not here)"
_ROLES = {"user": "user", "assistant": "assistant", "developer": "system", "system": "system"}
# prefixes of the user messages Codex injects itself (instructions, environment)
_INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
)


def read_codex(lines: Lines, file: str, stem: str, sink: EntrySink | None = None, keep: bool = True) -> Session:
    """A Session from the parsed lines of a Codex rollout (problems collected, never raised).

    `sink` receives each entry once it is final (the usage a later record gives the
    latest assistant message, the continuation marks of a run of tool results, both
    set); with `keep` False the session's entries stay empty, so an import never holds
    the whole rollout as entries (~4 KB each).
    """
    problems = lines.problems
    # each line is parsed when its entry is built, its dict then dropped: the file is never held
    # whole as dicts; the problems keep the order of a parse first (every line's, then the
    # ordinals', then the reader's own)
    records, head = _until_header(iter_records(lines, file))
    header: dict[str, Any] = {}
    header_line = ""
    header_at = 0
    if head is not None:
        header = cast(dict[str, Any], _unwrap(head.value)[1])
        header_line = head.text
        header_at = head.line
    raw_id = header.get("id")
    session_id = raw_id if isinstance(raw_id, str) else path_hash(os.path.abspath(file))
    ids = StableIds(session_id)
    state = _State()
    entries: list[Entry] = []
    out = _HandOn(state, sink, entries if keep else None)
    previous: str | None = None
    ordinals = _Ordinals(file)
    found: list[Problem] = []
    for record in records:
        value = record.value
        ordinals.check(record)
        if record.line == header_at:
            continue
        entry_id = ids.make(record.line)
        timestamp = value.get("timestamp")
        kind, payload = _unwrap(value)
        source_type = value.get("type") if isinstance(value.get("type"), str) else kind
        shaped: dict[str, Any] = {
            "id": entry_id,
            "parentId": previous,
            "type": "other",
            "timestamp": timestamp if isinstance(timestamp, str) else None,
            "sourceType": source_type,
            "line": record.line,
            "raw_line": record.text,
        }
        previous = entry_id
        if type(payload) is not dict:
            found.append(
                Problem(
                    file=file,
                    line=record.line,
                    message="record has no payload object (kept as 'other')",
                    severity="warning",
                )
            )
            out.add(build_entry(shaped, file, found))
            continue
        if kind == "response_item":
            _response_item(payload, shaped, state, where=(file, record.line), problems=found)
        elif kind == "compacted":
            shaped["type"] = "compaction"
            shaped["compaction"] = compaction_fields(payload, state.last_total)
        elif kind in _METADATA_KINDS:
            shaped["data"] = payload
            if kind == "turn_context" and isinstance(payload.get("model"), str):
                state.model = payload["model"]
            if kind == "session_meta":
                found.append(
                    Problem(
                        file=file,
                        line=record.line,
                        message="another session_meta record (kept as 'other')",
                        severity="warning",
                    )
                )
        else:
            shaped["data"] = payload
            shown = repr(kind) if isinstance(kind, str) else "missing"
            found.append(
                Problem(
                    file=file,
                    line=record.line,
                    message=f"unknown record type {shown} (kept as 'other')",
                    severity="warning",
                )
            )
        # an import keeps no entry: a record kept as "other" is handed on with its model serialized, none built
        # (as an `Entry`, the marks would pass it by and it is no assistant message)
        entry: Entry | OtherEntry | None = None
        if not keep and shaped["type"] == "other":
            entry = other_entry(shaped)
        if entry is None:
            entry = built = build_entry(shaped, file, found)
            out.marks.add(built)
            if built.message is not None and built.message.role == "assistant":
                state.last_assistant = built
        if kind == "token_usage_record":
            _attach_usage(payload.get("usage"), state)
        elif kind == "event_msg" and payload.get("type") == "token_count":
            info = payload.get("info")
            _attach_usage(info.get("last_token_usage") if isinstance(info, dict) else None, state)
        out.settle(entry)
    problems.extend(ordinals.problems)
    problems.extend(found)
    out.finish()
    return Session(
        id=session_id,
        format="codex",
        version=None,
        name=stem,
        cwd=header.get("cwd") if isinstance(header.get("cwd"), str) else None,
        header=header,
        header_line=header_line,
        entries=entries,
        leaf_id=out.last_id,
        problems=problems,
        newline=lines.newline,
        trailing_newline=lines.trailing_newline,
    )


def _until_header(records: Iterator[Record]) -> tuple[Iterator[Record], Record | None]:
    """All records again from the start, and the first `session_meta` with a payload object (None: no such record).

    The records before it are parsed and held until the reader comes to them (all of
    them when there is none: then the file is held parsed, as it always was).
    """
    head: list[Record] = []
    for record in records:
        head.append(record)
        kind, payload = _unwrap(record.value)
        if kind == "session_meta" and type(payload) is dict:
            return itertools.chain(head, records), record
    return iter(head), None


class _Ordinals:
    """Where the rollout's `ordinal`s (0, 1, 2, ... on every line since Codex 0.16x) skip or go back, one record at a time.

    A gap means records were lost (a crash, a cut copy); what is left is still read.
    """

    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[Problem] = []
        self.expected: int | None = None

    def check(self, record: Record) -> None:
        ordinal = record.value.get("ordinal")
        if not isinstance(ordinal, int) or isinstance(ordinal, bool):
            return
        expected = self.expected
        if expected is not None and ordinal != expected:
            if ordinal > expected:
                missing = ordinal - expected
                what = f"{missing} record{'s' if missing > 1 else ''} missing before it"
            else:
                what = "out of order or repeated"
            self.problems.append(
                Problem(
                    file=self.file,
                    line=record.line,
                    message=f"ordinal {ordinal} where {expected} was next ({what}); read on",
                    severity="warning",
                )
            )
        self.expected = ordinal + 1


def is_encrypted_item(item: Any) -> bool:
    """A history item that only the model can read: a remote compaction's `encrypted_content`."""
    return (
        type(item) is dict
        and item.get("type") in ("compaction", "compaction_summary")
        and isinstance(item.get("encrypted_content"), str)
    )


def compaction_fields(payload: dict[str, Any], tokens_before: int) -> dict[str, Any]:
    """A `compacted` record as the neutral compaction: its summary (or why it cannot be read) and its details.

    `replacement_history` (Codex 0.16x), when present, is the whole history the agent
    continues from; an encrypted remote compaction keeps its summary as opaque
    `encrypted_content`, which cutline says it cannot read.
    """
    message = payload.get("message")
    history = payload.get("replacement_history")
    summary = message if isinstance(message, str) else ""
    details: dict[str, Any] = {"replacement_history": history}
    metadata = payload.get("replacement_history_metadata")
    if metadata is not None:
        details["replacement_history_metadata"] = metadata
    encrypted = isinstance(history, list) and any(is_encrypted_item(item) for item in history)
    if encrypted or is_encrypted_item(payload):
        details["encrypted"] = True
        if not summary:
            summary = ENCRYPTED_COMPACTION
    return {"summary": summary, "firstKeptEntryId": None, "tokensBefore": tokens_before, "details": details}


def _unwrap(value: dict[str, Any]) -> tuple[str | None, Any]:
    """A record's kind and payload.

    Rollouts written before Codex 0.3x (autumn 2025) had no envelope: a first line
    `{"id","timestamp","instructions"}`, then bare response items and
    `{"record_type":"state"}` lines; they read as the enveloped kinds.
    """
    kind = value.get("type")
    if "payload" in value or kind in CODEX_TYPES:
        return (kind if isinstance(kind, str) else None), value.get("payload")
    if value.get("record_type") == "state":
        return "state", value
    if isinstance(kind, str):
        return "response_item", value
    if isinstance(value.get("id"), str) and "timestamp" in value:
        return "session_meta", value
    return None, value


class _HandOn:
    """Hands each entry on (to the kept list, to the sink) once no later record can change it, in file order.

    A later record changes an entry in two ways: a `token_count` or `token_usage_record`
    gives the latest assistant message its usage, and the next assistant message (or
    the end) decides which tool-side messages of the run before it continue a message.
    """

    def __init__(self, state: _State, sink: EntrySink | None, kept: list[Entry] | None) -> None:
        self.state = state
        self.sink = sink
        self.kept = kept
        # one response's items (reasoning, text, parallel function calls) come together: a cut between them splits it
        self.marks = ContinuationMarks(lambda previous, current: True)
        self.held: deque[Entry | OtherEntry] = deque()
        self.last_id: str | None = None

    def add(self, entry: Entry) -> None:
        """An entry that changes nothing else: marked, then settled."""
        self.marks.add(entry)
        self.settle(entry)

    def settle(self, entry: Entry | OtherEntry) -> None:
        """`entry` was marked and has given its usage: hand on what is final from the oldest held."""
        held = self.held
        held.append(entry)
        while held and self._final(held[0]):
            self._hand_on(held.popleft())

    def finish(self) -> None:
        self.marks.close_run()
        while self.held:
            self._hand_on(self.held.popleft())

    def _final(self, entry: Entry | OtherEntry) -> bool:
        message = entry.message
        waiting = self.state.last_assistant is entry and message is not None and message.usage is None
        return not waiting and not self.marks.open(message)

    def _hand_on(self, entry: Entry | OtherEntry) -> None:
        self.last_id = entry.id
        if self.kept is not None:
            assert isinstance(entry, Entry)  # kept entries are all built (`read_codex`)
            self.kept.append(entry)
        if self.sink is not None:
            self.sink(entry, False)


class _State:
    """What reading a rollout remembers from line to line."""

    def __init__(self) -> None:
        self.model: str | None = None
        self.tool_names: dict[str, str] = {}
        self.last_assistant: Entry | None = None
        self.last_total = 0


def _attach_usage(last: Any, state: _State) -> None:
    """Give one response's usage to the latest assistant message lacking one.

    Codex 0.169 writes each response's usage twice, as a `token_usage_record` and in the
    next `token_count` event: the first to arrive is taken, so each is counted once.
    """
    if not isinstance(last, dict):
        return
    usage = usage_from_last(last)
    state.last_total = usage.totalTokens
    target = state.last_assistant
    if target is not None and target.message is not None and target.message.usage is None:
        target.message.usage = usage


def _response_item(
    payload: dict[str, Any],
    shaped: dict[str, Any],
    state: _State,
    *,
    where: tuple[str, int],
    problems: list[Problem],
) -> None:
    """Shape one response_item payload into a message entry (or "other")."""
    file, line = where
    kind = payload.get("type")
    if kind == "message" and _ROLES.get(string_or(payload.get("role"))) is None:
        problems.append(
            Problem(
                file=file,
                line=line,
                message=f"message with unknown role {payload.get('role')!r} (kept as 'other')",
                severity="warning",
            )
        )
    message = item_message(payload, state.tool_names, state.model)
    if message is None:
        shaped["data"] = payload
        known = kind in _MESSAGE_ITEMS or kind in _HARMLESS_ITEMS or is_encrypted_item(payload)
        if not known:
            shown = repr(kind) if isinstance(kind, str) else "missing"
            problems.append(
                Problem(
                    file=file,
                    line=line,
                    message=f"unknown response item type {shown} (kept as 'other')",
                    severity="warning",
                )
            )
        return
    message["timestamp"] = iso_to_ms(shaped["timestamp"])
    if message.pop("injected", False):
        shaped["isMeta"] = True
    shaped["type"] = "message"
    shaped["message"] = message


_MESSAGE_ITEMS = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "function_call_output",
        "custom_tool_call_output",
        "local_shell_call_output",
    }
)


def item_message(payload: dict[str, Any], tool_names: dict[str, str], model: str | None) -> dict[str, Any] | None:
    """One Responses item as a neutral message dict (None when it is no message); `injected` marks Codex's own context."""
    kind = payload.get("type")
    message: dict[str, Any] | None = None
    if kind == "message":
        role = _ROLES.get(string_or(payload.get("role")))
        if role is None:
            return None
        blocks = _content(payload.get("content"))
        message = {"role": role, "content": blocks}
        if role == "user" and blocks and blocks[0].get("text", "").lstrip().startswith(_INJECTED_PREFIXES):
            message["injected"] = True
    elif kind == "reasoning":
        message = {"role": "assistant", "content": [_reasoning(payload)]}
    elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
        call_id = string_or(payload.get("call_id"), string_or(payload.get("id")))
        if kind == "function_call":
            name = string_or(payload.get("name"))
            arguments = _arguments(payload.get("arguments"))
        elif kind == "custom_tool_call":
            name = string_or(payload.get("name"))
            arguments = {"input": payload.get("input")}
        else:
            name = "local_shell"
            arguments = payload.get("action")
        tool_names[call_id] = name
        message = {
            "role": "assistant",
            "content": [{"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}],
        }
    elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
        call_id = string_or(payload.get("call_id"))
        content, is_error = _output(payload.get("output"))
        return {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": tool_names.get(call_id),
            "content": content,
            "isError": is_error,
        }
    if message is not None and message["role"] == "assistant":
        message["provider"] = "openai"
        if model is not None:
            message["model"] = model
    return message


def _content(items: Any) -> list[dict[str, Any]]:
    """Responses-API content items (input_text, output_text, input_image, ...) as neutral blocks."""
    if isinstance(items, str):
        return [{"type": "text", "text": items}]
    blocks: list[dict[str, Any]] = []
    if not isinstance(items, list):
        return blocks
    for item in items:
        if type(item) is not dict:
            continue
        kind = item.get("type")
        if kind in ("input_text", "output_text", "text", "summary_text", "reasoning_text") and isinstance(
            item.get("text"), str
        ):
            blocks.append({"type": "text", "text": item["text"]})
        elif kind == "refusal" and isinstance(item.get("refusal"), str):
            blocks.append({"type": "text", "text": item["refusal"]})
        elif kind == "input_image":
            blocks.append(_image(item.get("image_url")))
    return blocks


def _image(url: Any) -> dict[str, Any]:
    """An image block from a data URL (`data:image/png;base64,...`); other URLs are kept as `url`."""
    if isinstance(url, str) and url.startswith("data:") and "," in url:
        meta, data = url[5:].split(",", 1)
        return {"type": "image", "data": data, "mimeType": meta.split(";", 1)[0]}
    return {"type": "image", "data": "", "mimeType": "", "url": url if isinstance(url, str) else None}


def _reasoning(payload: dict[str, Any]) -> dict[str, Any]:
    """A reasoning item as one thinking block: its summary text, else its raw reasoning text."""
    texts = [b["text"] for b in _content(payload.get("summary"))]
    if not texts:
        texts = [b["text"] for b in _content(payload.get("content"))]
    block: dict[str, Any] = {"type": "thinking", "thinking": "\n\n".join(texts)}
    if not texts and isinstance(payload.get("encrypted_content"), str):
        block["redacted"] = True
    return block


def _arguments(raw: Any) -> Any:
    """Function-call arguments: parsed JSON when they are JSON, else the raw string."""
    if not isinstance(raw, str):
        return raw if raw is not None else {}
    try:
        return deep_json.loads(raw)
    except ValueError:
        return raw


def _output(output: Any) -> tuple[list[dict[str, Any]], bool]:
    """A tool output (a string, `{content, success}`, or content items) as blocks and an error flag."""
    if isinstance(output, str):
        return [{"type": "text", "text": output}], False
    if isinstance(output, dict):
        content = output.get("content")
        blocks = _content(content) if not isinstance(content, str) else [{"type": "text", "text": content}]
        return blocks, output.get("success") is False
    if isinstance(output, list):
        return _content(output), False
    return [], False
