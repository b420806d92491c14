"""One opencode session's rows (store.py) read into the neutral model.

A user message is one entry (its text parts that are not `ignored`; a `subtask` part as
the text opencode sends for it). An assistant message is cut where opencode's model
calls were: each `step-start` begins an assistant entry (its text, reasoning and tool
calls) followed by a tool-result entry for that step's calls, as the AI SDK turns one
stored message into model messages; the step's `step-finish` tokens are its usage. Only
the first entry of a message is a place to cut (the rest are marked as continuing it):
a compaction's kept tail starts at a message (`tail_start_id`).

A compaction is two messages: a user message with a `compaction` part (`auto`,
`overflow`, `tail_start_id` once done) and the assistant message answering it with
`summary: true` (mode "compaction"), whose text is the summary. The pair is one
compaction entry (firstKeptEntryId = the tail's first message, None when nothing is
kept); the summary message itself is kept as an 'other' entry. A compaction whose
summary never finished is what opencode sends for it: the user text "What did we do so
far?".
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from cutline.core.agents.boundaries import CONTINUES
from cutline.core.agents.entries import build_entry
from cutline.core.agents.opencode.store import Row, StoreSession
from cutline.core.models import Entry, Problem, Session, Usage

# what opencode sends for a compaction's user message, a subtask part, a tool output it pruned, an interrupted call
COMPACTION_PROMPT = "What did we do so far?"
SUBTASK_TEXT = "The following tool was executed by the user"
PRUNED_OUTPUT = "[Old tool result content cleared]"
INTERRUPTED = "[Tool execution was interrupted]"
# the error name of a message the user aborted (its content is still sent)
ABORTED = "MessageAbortedError"


def obj(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def usage_from_tokens(tokens: Any) -> Usage | None:
    """opencode's `tokens` ({total, input, output, reasoning, cache: {read, write}}) in pi's names."""
    if not isinstance(tokens, dict):
        return None
    cache = obj(tokens.get("cache"))
    usage = Usage(
        input=_int(tokens.get("input")),
        output=_int(tokens.get("output")) + _int(tokens.get("reasoning")),
        cacheRead=_int(cache.get("read")),
        cacheWrite=_int(cache.get("write")),
        totalTokens=_int(tokens.get("total")),
    )
    return usage


def summary_text(parts: list[dict[str, Any]]) -> str:
    """A summary message's text as opencode reads it back: its text parts trimmed, the non-empty ones joined."""
    return "\n".join(
        t for t in (str(p.get("text") or "").strip() for p in parts if p.get("type") == "text") if t
    ).strip()


def _load(row: Row, where: str, problems: list[Problem], what: str) -> dict[str, Any] | None:
    try:
        value = json.loads(row.data)
    except ValueError as exc:
        problems.append(Problem(file=where, line=None, message=f"{what} {row.id}: data is not JSON ({exc}); left out"))
        return None
    if type(value) is not dict:
        problems.append(Problem(file=where, line=None, message=f"{what} {row.id}: data is not an object; left out"))
        return None
    return value


def _tool_result(part: dict[str, Any]) -> dict[str, Any]:
    """A tool part's result as opencode sends it (its output, the pruned marker, or the error text)."""
    state = obj(part.get("state"))
    status = state.get("status")
    call_id = str(part.get("callID") or "")
    name = str(part.get("tool") or "")
    if status == "completed":
        time = obj(state.get("time"))
        output = PRUNED_OUTPUT if time.get("compacted") else str(state.get("output") or "")
        error = False
    elif status == "error":
        metadata = obj(state.get("metadata"))
        interrupted = metadata.get("interrupted") is True and isinstance(metadata.get("output"), str)
        output = str(metadata["output"]) if interrupted else str(state.get("error") or "")
        error = not interrupted
    else:
        output, error = INTERRUPTED, True
    return {
        "type": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": output}],
        "isError": error,
    }


def _steps(parts: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The parts of one assistant message split where each model call began (`step-start`)."""
    steps: list[list[dict[str, Any]]] = [[]]
    for part in parts:
        if part.get("type") == "step-start" and steps[-1]:
            steps.append([])
        steps[-1].append(part)
    return [s for s in steps if s]


def _assistant_shapes(info: dict[str, Any], parts: list[dict[str, Any]], ms: int) -> list[tuple[str, dict[str, Any]]]:
    """(id, neutral message dict) for each model call of one assistant message: its reply, then its tool results."""
    out: list[tuple[str, dict[str, Any]]] = []
    model = info.get("modelID") if isinstance(info.get("modelID"), str) else None
    provider = info.get("providerID") if isinstance(info.get("providerID"), str) else None
    for step in _steps(parts):
        blocks: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        usage: Usage | None = None
        finish: str | None = None
        for part in step:
            kind = part.get("type")
            if kind == "text":
                blocks.append({"type": "text", "text": str(part.get("text") or "")})
            elif kind == "reasoning":
                blocks.append({"type": "thinking", "thinking": str(part.get("text") or "")})
            elif kind == "tool":
                state = obj(part.get("state"))
                arguments = state.get("input")
                blocks.append(
                    {
                        "type": "toolCall",
                        "id": str(part.get("callID") or ""),
                        "name": str(part.get("tool") or ""),
                        "arguments": arguments if arguments is not None else {},
                    }
                )
                results.append(_tool_result(part))
            elif kind == "step-finish":
                usage = usage_from_tokens(part.get("tokens"))
                finish = part.get("reason") if isinstance(part.get("reason"), str) else None
        if not blocks:
            continue
        first = str(step[0].get("id") or "")
        message: dict[str, Any] = {"role": "assistant", "content": blocks, "timestamp": ms, "model": model}
        message["provider"] = provider
        if usage is not None:
            message["usage"] = usage.model_dump()
        if finish is not None:
            message["stopReason"] = finish
        out.append((first, message))
        if results:
            shaped: dict[str, Any] = {"role": "toolResult", "content": results, "timestamp": ms}
            if len(results) == 1:
                shaped.update(toolCallId=results[0]["toolCallId"], toolName=results[0]["toolName"])
                shaped["isError"] = results[0]["isError"]
            out.append((str(step[-1].get("id") or first) + ":results", shaped))
    return out


def _user_shape(parts: list[dict[str, Any]], ms: int) -> dict[str, Any] | None:
    blocks: list[dict[str, Any]] = []
    for part in parts:
        kind = part.get("type")
        if kind == "text" and not part.get("ignored") and part.get("text"):
            blocks.append({"type": "text", "text": str(part["text"])})
        elif kind == "file":
            url = str(part.get("url") or "")
            mime = str(part.get("mime") or "")
            if mime.startswith("image/") and url.startswith("data:") and "," in url:
                blocks.append({"type": "image", "data": url.split(",", 1)[1], "mimeType": mime})
        elif kind == "compaction":
            blocks.append({"type": "text", "text": COMPACTION_PROMPT})
        elif kind == "subtask":
            blocks.append({"type": "text", "text": SUBTASK_TEXT})
    return {"role": "user", "content": blocks, "timestamp": ms} if blocks else None


def _summaries(
    messages: list[tuple[Row, dict[str, Any]]], parts: dict[str, list[dict[str, Any]]]
) -> dict[str, tuple[str, str, list[dict[str, Any]]]]:
    """Compaction user message id -> (its finished summary message's id, the summary text, the messages it sends)."""
    out: dict[str, tuple[str, str, list[dict[str, Any]]]] = {}
    for row, info in messages:
        if info.get("role") != "assistant" or info.get("summary") is not True:
            continue
        if not info.get("finish") or info.get("error"):
            continue
        parent = info.get("parentID")
        if isinstance(parent, str):
            own = parts.get(row.id, [])
            sent = [shaped for _, shaped in _assistant_shapes(info, own, row.time_created)]
            out[parent] = (row.id, summary_text(own), sent)
    return out


def read_opencode(where: str, rows: StoreSession) -> Session:
    """A Session from one opencode session's rows (problems collected, never raised)."""
    problems: list[Problem] = []
    parts: dict[str, list[dict[str, Any]]] = {}
    for row in rows.parts:
        value = _load(row, where, problems, "part")
        if value is not None:
            value.setdefault("id", row.id)
            parts.setdefault(row.message_id, []).append(value)
    messages: list[tuple[Row, dict[str, Any]]] = []
    for row in rows.messages:
        value = _load(row, where, problems, "message")
        if value is not None:
            messages.append((row, value))
    summaries = _summaries(messages, parts)
    summary_ids = {sid for sid, _, _ in summaries.values()}
    entries: list[Entry] = []
    for row, info in messages:
        own = parts.get(row.id, [])
        raw = json.dumps({"id": row.id, **info}, ensure_ascii=False, separators=(",", ":"))
        base: dict[str, Any] = {"timestamp": _iso(row.time_created), "sourceType": str(info.get("role") or "")}
        shapes: list[tuple[str, dict[str, Any]]] = []
        kind = "message"
        compaction: dict[str, Any] | None = None
        role = info.get("role")
        compaction_part = next((p for p in own if p.get("type") == "compaction"), None)
        if role == "user" and compaction_part is not None and row.id in summaries:
            summary_id, text, replayed = summaries[row.id]
            tail = compaction_part.get("tail_start_id")
            kind = "compaction"
            compaction = {
                "summary": text,
                "firstKeptEntryId": tail if isinstance(tail, str) and tail else None,
                "details": {
                    "summaryMessageId": summary_id,
                    "summaryMessages": replayed,
                    "auto": compaction_part.get("auto") is True,
                    "overflow": compaction_part.get("overflow") is True,
                },
            }
        elif role == "user":
            shaped = _user_shape(own, row.time_created)
            if shaped is not None:
                shapes.append((row.id, shaped))
        elif role == "assistant" and row.id in summary_ids:
            kind = "other"
            base["sourceType"] = "compaction-summary"
        elif role == "assistant":
            error = info.get("error")
            sent: bool = not error or (
                isinstance(error, dict)
                and error.get("name") == ABORTED
                and any(p.get("type") not in ("step-start", "reasoning") for p in own)
            )
            if sent:
                shapes = _assistant_shapes(info, own, row.time_created)
        else:
            problems.append(
                Problem(file=where, line=None, message=f"message {row.id}: unknown role {role!r}", severity="warning")
            )
        previous = entries[-1].id if entries else None
        if kind == "compaction" or not shapes:
            entry = build_entry(
                {
                    "id": row.id,
                    "parentId": previous,
                    "type": kind if kind == "compaction" else "other",
                    "compaction": compaction,
                    "data": {} if kind == "compaction" else {"opencode": info},
                    "line": len(entries) + 1,
                    "raw_line": raw,
                    **base,
                },
                where,
                problems,
            )
            entries.append(entry)
            continue
        for k, (entry_id, shaped) in enumerate(shapes):
            if k:
                shaped[CONTINUES] = True
            entry = build_entry(
                {
                    "id": row.id if k == 0 else entry_id,
                    "parentId": entries[-1].id if entries else None,
                    "type": "message",
                    "message": shaped,
                    "data": {"messageId": row.id},
                    "line": len(entries) + 1,
                    "raw_line": raw if k == 0 else "",
                    **base,
                },
                where,
                problems,
            )
            entries.append(entry)
    info = rows.info
    session = Session(
        id=str(info["id"]),
        format="opencode",
        version=None,
        name=str(info.get("title") or info["id"]),
        cwd=info["directory"] if isinstance(info.get("directory"), str) else None,
        header={"opencodeVersion": info.get("version"), "slug": info.get("slug"), "parentId": info.get("parent_id")},
        header_line="",
        entries=entries,
        leaf_id=entries[-1].id if entries else None,
        problems=problems,
    )
    return session
