"""opencode's token estimate of messages (its `Token.estimate(JSON.stringify(modelMessages))`).

opencode sizes the turns it may keep from the AI SDK model messages it would send:
`Math.round(json.length / 4)`, the length in UTF-16 code units. A user message is
`{"role":"user","content":[{"type":"text","text":…}]}`, a model call
`{"role":"assistant","content":[text, reasoning and {"type":"tool-call",…} parts]}`, a
step's results one `{"role":"tool","content":[{"type":"tool-result",…,"output":{"type":"text"|"error-text","value":…}}]}`.
"""

from __future__ import annotations

import json
from typing import Any

from cutline.core.models import ImageBlock, Message, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock

CHARS_PER_TOKEN = 4


def _js_length(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def model_message(message: Message) -> dict[str, Any] | None:
    """The AI SDK model message opencode builds for one neutral message (None when it sends none)."""
    content: list[dict[str, Any]] = []
    if message.role == "assistant":
        for block in message.content:
            if isinstance(block, TextBlock):
                content.append({"type": "text", "text": block.text})
            elif isinstance(block, ThinkingBlock):
                content.append({"type": "reasoning", "text": block.thinking})
            elif isinstance(block, ToolCallBlock):
                content.append(
                    {"type": "tool-call", "toolCallId": block.id, "toolName": block.name, "input": block.arguments}
                )
        return {"role": "assistant", "content": content} if content else None
    results = [b for b in message.content if isinstance(b, ToolResultBlock)]
    if results:
        for block in results:
            value = "".join(b.text for b in block.content if isinstance(b, TextBlock))
            name = message.toolName if len(results) == 1 and message.toolName else ""
            name = str((block.model_extra or {}).get("toolName") or name)
            content.append(
                {
                    "type": "tool-result",
                    "toolCallId": block.toolCallId,
                    "toolName": name,
                    "output": {"type": "error-text" if block.isError else "text", "value": value},
                }
            )
        return {"role": "tool", "content": content}
    for block in message.content:
        if isinstance(block, TextBlock):
            content.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageBlock):
            content.append({"type": "file", "data": block.data, "mediaType": block.mimeType})
    return {"role": "user", "content": content} if content else None


def estimate_messages(messages: list[Message]) -> int:
    """opencode's estimate of these messages as it would send them."""
    shaped = [m for m in (model_message(message) for message in messages) if m is not None]
    text = json.dumps(shaped, ensure_ascii=False, separators=(",", ":"))
    return max(0, int(_js_length(text) / CHARS_PER_TOKEN + 0.5))
