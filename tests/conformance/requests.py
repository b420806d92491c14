"""The messages of a logged request, converted into cutline's neutral context (core/agents/wire.py).

What the converters leave out is wire shape only, never content:
- anthropic-messages: `cache_control` and `citations` on blocks, a thinking block's
  `signature`, a message's extra keys (`output_config`), string content vs. one text block.
- openai-responses: item `id`, `status`, `annotations`, `internal_chat_message_metadata_passthrough`,
  a reasoning item's `encrypted_content` (it becomes a redacted thinking block when there is no summary).
Every item of the Responses `input` is a message of its own, as it is on the wire.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cutline.core.agents.wire import (
    WireBlock,
    WireImage,
    WireMessage,
    WireText,
    WireThinking,
    WireToolCall,
    WireToolResult,
)

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "corpus"


def load_manifest() -> list[dict[str, Any]]:
    """The corpus entries: (session file state, the request the real program sent next from it)."""
    data = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    entries: list[dict[str, Any]] = data["entries"]
    return entries


def request_body(entry: dict[str, Any]) -> dict[str, Any]:
    """The body of the logged next request of a corpus entry."""
    record = json.loads((CORPUS / entry["next_request"]).read_text(encoding="utf-8"))
    body: dict[str, Any] = record["body"]
    return body


def _anthropic_image(block: dict[str, Any]) -> WireImage:
    source = block.get("source") or {}
    if source.get("type") == "url":
        return WireImage(url=source.get("url"))
    return WireImage(media_type=source.get("media_type", ""), data=source.get("data", ""))


def _anthropic_result_content(content: Any) -> list[WireText | WireImage]:
    if content is None:
        return []
    if isinstance(content, str):
        return [WireText(text=content)]
    out: list[WireText | WireImage] = []
    for item in content:
        if item.get("type") == "text":
            out.append(WireText(text=item.get("text", "")))
        elif item.get("type") == "image":
            out.append(_anthropic_image(item))
        else:
            raise ValueError(f"tool_result content block {item.get('type')!r} not converted")
    return out


def _anthropic_block(block: dict[str, Any]) -> WireBlock:
    kind = block.get("type")
    if kind == "text":
        return WireText(text=block.get("text", ""))
    if kind == "thinking":
        return WireThinking(thinking=block.get("thinking", ""))
    if kind == "redacted_thinking":
        return WireThinking(thinking="", redacted=True)
    if kind in ("tool_use", "server_tool_use"):
        return WireToolCall(id=block["id"], name=block["name"], arguments=block.get("input"))
    if kind == "tool_result":
        return WireToolResult(
            tool_call_id=block["tool_use_id"],
            content=_anthropic_result_content(block.get("content")),
            is_error=block.get("is_error") is True,
        )
    if kind == "image":
        return _anthropic_image(block)
    raise ValueError(f"Anthropic block type {kind!r} not converted")


def from_anthropic_messages(body: dict[str, Any]) -> list[WireMessage]:
    """`messages` of an Anthropic Messages request as neutral messages (roles user, assistant, system)."""
    out: list[WireMessage] = []
    for message in body["messages"]:
        content = message["content"]
        blocks = [WireText(text=content)] if isinstance(content, str) else [_anthropic_block(b) for b in content]
        out.append(WireMessage(role=message["role"], content=blocks))
    return out


def _responses_content(items: Any) -> list[WireBlock]:
    if isinstance(items, str):
        return [WireText(text=items)]
    out: list[WireBlock] = []
    for item in items or []:
        kind = item.get("type")
        if kind in ("input_text", "output_text", "text"):
            out.append(WireText(text=item.get("text", "")))
        elif kind == "input_image":
            url = item.get("image_url", "")
            if isinstance(url, str) and url.startswith("data:") and "," in url:
                meta, data = url[5:].split(",", 1)
                out.append(WireImage(media_type=meta.split(";", 1)[0], data=data))
            else:
                out.append(WireImage(url=url))
        else:
            raise ValueError(f"Responses content item {kind!r} not converted")
    return out


def _responses_output(output: Any) -> list[WireText | WireImage]:
    blocks = _responses_content(output)
    return [b for b in blocks if isinstance(b, WireText | WireImage)]


def _arguments(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def from_openai_responses(body: dict[str, Any]) -> list[WireMessage]:
    """`input` of a Responses request as neutral messages, one per item (developer is `system`, outputs are `tool`)."""
    out: list[WireMessage] = []
    for item in body["input"]:
        kind = item.get("type", "message")
        if kind == "message":
            role = {"developer": "system", "system": "system"}.get(item["role"], item["role"])
            out.append(WireMessage(role=role, content=_responses_content(item.get("content"))))
        elif kind == "reasoning":
            texts = [s.get("text", "") for s in item.get("summary") or []]
            if not texts:
                texts = [c.get("text", "") for c in item.get("content") or []]
            thinking = WireThinking(thinking="\n\n".join(texts), redacted=not texts)
            out.append(WireMessage(role="assistant", content=[thinking]))
        elif kind == "function_call":
            call = WireToolCall(id=item["call_id"], name=item["name"], arguments=_arguments(item.get("arguments")))
            out.append(WireMessage(role="assistant", content=[call]))
        elif kind == "custom_tool_call":
            call = WireToolCall(id=item["call_id"], name=item["name"], arguments={"input": item.get("input")})
            out.append(WireMessage(role="assistant", content=[call]))
        elif kind in ("compaction", "compaction_summary"):
            # an encrypted remote compaction: only the model can read it
            out.append(WireMessage(role="assistant", content=[WireThinking(thinking="", redacted=True)]))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            result = WireToolResult(tool_call_id=item["call_id"], content=_responses_output(item.get("output")))
            out.append(WireMessage(role="tool", content=[result]))
        else:
            raise ValueError(f"Responses input item {kind!r} not converted")
    return out


def _chat_content(content: Any) -> list[WireText | WireImage]:
    if content is None:
        return []
    if isinstance(content, str):
        return [WireText(text=content)] if content else []
    out: list[WireText | WireImage] = []
    for part in content:
        if part.get("type") == "text":
            out.append(WireText(text=part["text"]))
        elif part.get("type") == "image_url":
            url = part["image_url"]["url"]
            meta, _, data = url.partition(",")
            out.append(WireImage(media_type=meta[5:].split(";", 1)[0], data=data))
        else:
            raise ValueError(f"Chat Completions content part {part.get('type')!r} not converted")
    return out


def from_openai_chat(body: dict[str, Any]) -> list[WireMessage]:
    """`messages` of a Chat Completions request as neutral messages (tool results are `tool`)."""
    out: list[WireMessage] = []
    for message in body["messages"]:
        role = message["role"]
        if role in ("system", "developer"):
            out.append(WireMessage(role="system", content=list(_chat_content(message.get("content")))))
        elif role == "user":
            out.append(WireMessage(role="user", content=list(_chat_content(message.get("content")))))
        elif role == "assistant":
            blocks: list[WireBlock] = []
            if message.get("reasoning_content"):
                blocks.append(WireThinking(thinking=message["reasoning_content"]))
            blocks.extend(_chat_content(message.get("content")))
            for call in message.get("tool_calls") or []:
                function = call["function"]
                blocks.append(
                    WireToolCall(id=call["id"], name=function["name"], arguments=_arguments(function["arguments"]))
                )
            out.append(WireMessage(role="assistant", content=blocks))
        elif role == "tool":
            result = WireToolResult(tool_call_id=message["tool_call_id"], content=_chat_content(message.get("content")))
            out.append(WireMessage(role="tool", content=[result]))
        else:
            raise ValueError(f"Chat Completions role {role!r} not converted")
    return out


CONVERTERS = {
    "anthropic-messages": from_anthropic_messages,
    "openai-responses": from_openai_responses,
    "openai-chat": from_openai_chat,
}


def request_messages(entry: dict[str, Any]) -> list[WireMessage]:
    """The logged next request of a corpus entry as neutral messages."""
    return CONVERTERS[entry["next_request_wire"]](request_body(entry))
