"""Qwen Code chat JSONL (`~/.qwen/projects/<cwd>/chats/<sessionId>.jsonl`) read into the neutral model.

Each record has a `uuid` and a `parentUuid` (the chain from the last record is the
conversation), a `type` and, for the conversation, a Gemini `Content` in `message`
(`role` "user" or "model", `parts`): `user` records hold the prompt, `assistant` records
the model's text, thoughts and `functionCall`s, `tool_result` records one
`functionResponse` each. `system` records are bookkeeping (`ui_telemetry`,
`attribution_snapshot`) or a compression (`chat_compression`): its
`systemPayload.compressedHistory` is the whole history the program continues from (the
summary as a user message, the model's acknowledgement, files it re-attached), so it
keeps nothing of the records before it.
"""

from __future__ import annotations

import json
import os
from typing import Any

from cutline.core.agents.boundaries import mark_continuations
from cutline.core.agents.entries import StableIds, build_entry, iso_to_ms, path_hash
from cutline.core.agents.jsonl import Lines, Record, parse_records
from cutline.core.models import Entry, Message, Problem, Session, Usage

_OTHER_DROP = frozenset({"type", "uuid", "parentUuid", "timestamp"})
_BOOKKEEPING_SUBTYPES = frozenset({"ui_telemetry", "attribution_snapshot", "slash_command", "at_command"})


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def usage_from_metadata(meta: dict[str, Any]) -> Usage:
    """Gemini `usageMetadata` in pi's names: the prompt less its cached part is input; thoughts count as output."""
    prompt = _int(meta.get("promptTokenCount"))
    cached = _int(meta.get("cachedContentTokenCount"))
    output = _int(meta.get("candidatesTokenCount")) + _int(meta.get("thoughtsTokenCount"))
    total = _int(meta.get("totalTokenCount")) or prompt + output
    return Usage(input=max(0, prompt - cached), output=output, cacheRead=cached, totalTokens=total)


def response_text(response: Any) -> str:
    """A `functionResponse.response` as Qwen Code sends it: its `output` or `error` string, else its JSON."""
    if response is None:
        return ""
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        for key in ("output", "error"):
            if isinstance(response.get(key), str):
                return str(response[key])
    return json.dumps(response, ensure_ascii=False, separators=(",", ":"))


def content_message(content: dict[str, Any], timestamp: int | None = None) -> dict[str, Any] | None:
    """One Gemini `Content` as a neutral message dict (None when it has no part the model is sent)."""
    parts = content.get("parts")
    if not isinstance(parts, list):
        return None
    model = content.get("role") == "model"
    blocks: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, str):
            blocks.append({"type": "text", "text": part})
            continue
        if type(part) is not dict:
            continue
        text = part.get("text")
        if isinstance(text, str) and part.get("thought") is True:
            if model:
                blocks.append({"type": "thinking", "thinking": text})
        elif isinstance(text, str):
            blocks.append({"type": "text", "text": text})
        call = part.get("functionCall")
        if model and isinstance(call, dict):
            args = call.get("args")
            blocks.append(
                {
                    "type": "toolCall",
                    "id": call.get("id") if isinstance(call.get("id"), str) else "",
                    "name": call.get("name") if isinstance(call.get("name"), str) else "",
                    "arguments": args if args is not None else {},
                }
            )
        response = part.get("functionResponse")
        if not model and isinstance(response, dict):
            result_id = response.get("id") if isinstance(response.get("id"), str) else ""
            results.append(
                {
                    "type": "toolResult",
                    "toolCallId": result_id,
                    "toolName": response.get("name") if isinstance(response.get("name"), str) else None,
                    "content": [{"type": "text", "text": response_text(response.get("response"))}],
                    "isError": isinstance(response.get("response"), dict) and "error" in response["response"],
                }
            )
        inline = part.get("inlineData")
        if not model and isinstance(inline, dict) and isinstance(inline.get("data"), str):
            blocks.append({"type": "image", "data": inline["data"], "mimeType": str(inline.get("mimeType") or "")})
    if model:
        return {"role": "assistant", "content": blocks, "timestamp": timestamp, "provider": "openai"}
    if results:
        out: dict[str, Any] = {"role": "toolResult", "content": results + blocks, "timestamp": timestamp}
        if len(results) == 1:
            out.update(toolCallId=results[0]["toolCallId"], toolName=results[0]["toolName"])
            out["isError"] = results[0]["isError"]
        return out
    return {"role": "user", "content": blocks, "timestamp": timestamp}


def read_qwen_code(lines: Lines, file: str, stem: str) -> Session:
    """A Session from the parsed lines of a Qwen Code chat file (problems collected, never raised)."""
    problems = lines.problems
    records = parse_records(lines, file)
    session_id = _first_string(records, "sessionId") or path_hash(os.path.abspath(file))
    ids = StableIds(session_id, {r.value["uuid"] for r in records if isinstance(r.value.get("uuid"), str)})
    entries: list[Entry] = []
    seen: set[str] = set()
    leaf_id: str | None = None
    for record in records:
        value = record.value
        kind = value.get("type")
        uuid = value.get("uuid")
        usable = isinstance(uuid, str) and bool(uuid) and uuid not in seen
        if isinstance(uuid, str) and uuid in seen:
            problems.append(
                Problem(
                    file=file,
                    line=record.line,
                    message=f"duplicate uuid {uuid}; this copy kept aside",
                    severity="warning",
                )
            )
        entry_id = uuid if usable and isinstance(uuid, str) else ids.make(record.line)
        seen.add(entry_id)
        parent = value.get("parentUuid")
        timestamp = value.get("timestamp")
        shaped: dict[str, Any] = {
            "id": entry_id,
            "parentId": parent if isinstance(parent, str) else None,
            "type": "other",
            "timestamp": timestamp if isinstance(timestamp, str) else None,
            "sourceType": kind if isinstance(kind, str) else None,
            "line": record.line,
            "raw_line": record.text,
        }
        message = value.get("message")
        payload = value.get("systemPayload")
        shaped_message = content_message(message, iso_to_ms(timestamp)) if isinstance(message, dict) else None
        if kind in ("user", "assistant", "tool_result") and shaped_message is not None:
            shaped["type"] = "message"
            if kind == "assistant":
                if isinstance(value.get("model"), str):
                    shaped_message["model"] = value["model"]
                meta = value.get("usageMetadata")
                if isinstance(meta, dict):
                    shaped_message["usage"] = usage_from_metadata(meta).model_dump()
            shaped["message"] = shaped_message
        elif kind == "system" and value.get("subtype") == "chat_compression" and isinstance(payload, dict):
            shaped["type"] = "compaction"
            shaped["compaction"] = compaction_fields(payload)
        else:
            shaped["data"] = {k: v for k, v in value.items() if k not in _OTHER_DROP}
            if kind in ("user", "assistant", "tool_result"):
                problems.append(
                    Problem(
                        file=file,
                        line=record.line,
                        message=f"{kind} record has no message parts (kept as 'other')",
                        severity="warning",
                    )
                )
            elif kind != "system" or value.get("subtype") not in _BOOKKEEPING_SUBTYPES:
                shown = f"{kind}/{value.get('subtype')}" if kind == "system" else repr(kind)
                problems.append(
                    Problem(
                        file=file,
                        line=record.line,
                        message=f"unknown record {shown} (kept as 'other')",
                        severity="warning",
                    )
                )
        entry = build_entry(shaped, file, problems)
        entries.append(entry)
        if usable:
            leaf_id = entry_id
    session = Session(
        id=session_id,
        format="qwen_code",
        version=None,
        name=stem,
        cwd=_first_string(records, "cwd"),
        header={},
        header_line="",
        entries=entries,
        leaf_id=leaf_id or (entries[-1].id if entries else None),
        problems=problems,
        newline=lines.newline,
        trailing_newline=lines.trailing_newline,
    )
    # one model turn's functionCalls are one record, but its results are one record each
    mark_continuations(session.active_path(), lambda previous, current: False)
    return session


def compaction_fields(payload: dict[str, Any]) -> dict[str, Any]:
    """A `chat_compression` as the neutral compaction: the summary (the first user message's text), keeping nothing."""
    raw_info = payload.get("info")
    info: dict[str, Any] = raw_info if isinstance(raw_info, dict) else {}
    history = payload.get("compressedHistory")
    summary = ""
    if isinstance(history, list) and history and isinstance(history[0], dict):
        message = content_message(history[0])
        if message is not None:
            summary = "\n".join(b["text"] for b in message["content"] if b.get("type") == "text")
    return {
        "summary": summary,
        "firstKeptEntryId": None,
        "tokensBefore": _int(info.get("originalTokenCount")),
        "tokensAfter": info.get("newTokenCount") if isinstance(info.get("newTokenCount"), int) else None,
        "details": {"info": info, "compressedHistory": history},
    }


def history_messages(history: Any) -> list[Message]:
    """A `compressedHistory` as neutral messages, in order."""
    out: list[Message] = []
    if not isinstance(history, list):
        return out
    for content in history:
        if isinstance(content, dict):
            shaped = content_message(content)
            if shaped is not None:
                out.append(Message.model_validate(shaped))
    return out


def _first_string(records: list[Record], key: str) -> str | None:
    for record in records:
        value = record.value.get(key)
        if isinstance(value, str) and value:
            return value
    return None
