"""Token estimates per rule set, as each agent version computes them: current pi's and OpenClaw 2026.9's.

Both start from pi's chars/4 heuristic and JavaScript string lengths (core.tokens.jsjson);
current pi adds system messages and counts user images, OpenClaw counts CJK-aware
characters, 2000 tokens an image and the omission notes its summarizer would write.
"""

from __future__ import annotations

from typing import Any

from cutline.core.models import ImageBlock, Message, TextBlock, ToolResultBlock
from cutline.core.tokens.jsjson import js_length, js_stringify

PI_IMAGE_CHARS = 4800
OPENCLAW_IMAGE_CHARS = 8000  # 2000 tokens
IMAGE_OMISSION = "[image data omitted from summary input]"
NON_TEXT_OMISSION = "[non-text data omitted from summary input]"


def js_truthy(value: Any) -> bool:
    """JavaScript's truthiness for a JSON value (an empty list or object is truthy)."""
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0
    if isinstance(value, str):
        return value != ""
    return True


def _ceil4(chars: int) -> int:
    return -(-chars // 4)


# ---------------------------------------------------------------------------
# Current pi (0.87.1 = 1.5.2)
# ---------------------------------------------------------------------------


def pi_content_chars(message: Message) -> int:
    """Text blocks (non-empty) plus 4800 per image; tool results inside user records (Claude Code) count their text."""
    chars = 0
    for block in message.content:
        if isinstance(block, TextBlock):
            chars += js_length(block.text)
        elif isinstance(block, ImageBlock):
            chars += PI_IMAGE_CHARS
        elif isinstance(block, ToolResultBlock):
            for inner in block.content:
                chars += js_length(inner.text) if isinstance(inner, TextBlock) else PI_IMAGE_CHARS
    return chars


def system_extra_chars(extra: dict[str, Any]) -> int:
    """What a system message's `sections` and `toolsAdded` add to its estimate."""
    chars = 0
    sections = extra.get("sections")
    if isinstance(sections, dict):
        chars += sum(js_length(v) for v in sections.values() if isinstance(v, str) and v)
    tools = extra.get("toolsAdded")
    if js_truthy(tools):
        chars += js_length(js_stringify(tools))
    return chars


def pi_current_tokens(message: Message) -> int:
    """Current pi's `estimateTokens`: 0.73's chars/4 plus system messages and user images."""
    role = message.role
    if role == "bashExecution":
        return _ceil4(js_length(message.command or "") + js_length(message.output or ""))
    if role in {"branchSummary", "compactionSummary"}:
        return _ceil4(js_length(message.summary or ""))
    if role == "assistant":
        chars = 0
        for block in message.content:
            kind = block.type
            if kind == "text":
                chars += js_length(block.text)  # type: ignore[union-attr]
            elif kind == "thinking":
                chars += js_length(block.thinking)  # type: ignore[union-attr]
            elif kind == "toolCall":
                chars += js_length(block.name) + js_length(js_stringify(block.arguments))  # type: ignore[union-attr]
        return _ceil4(chars)
    if role in ("user", "custom", "toolResult"):
        return _ceil4(pi_content_chars(message))
    if role == "system":
        return _ceil4(pi_content_chars(message) + system_extra_chars(message.model_extra or {}))
    return 0


# ---------------------------------------------------------------------------
# OpenClaw 2026.9
# ---------------------------------------------------------------------------

# (first, last, extra chars) per code point: OpenClaw's weighted CJK ranges
_CJK_RANGES: tuple[tuple[int, int, int], ...] = (
    *((a, b, 3) for a, b in ((0xB7, 0xB7), (0x3000, 0x319F), (0x4E00, 0x9FA5), (0xAC00, 0xD7AF), (0xFF01, 0xFF60))),
    *(
        (a, b, 11)
        for a, b in (
            (0x1100, 0x11FF),
            (0x2E80, 0x2FFF),
            (0x31A0, 0x4DFF),
            (0x9FA6, 0x9FFF),
            (0xA000, 0xA4FF),
            (0xA700, 0xA707),
            (0xA960, 0xA97F),
            (0xD7B0, 0xD7FF),
            (0xF900, 0xFAFF),
        )
    ),
    *(
        (a, b, 7)
        for a, b in (
            (0x2C7, 0x2C7),
            (0x2C9, 0x2CB),
            (0x2D9, 0x2D9),
            (0x2EA, 0x2EB),
            (0x305, 0x305),
            (0x323, 0x323),
            (0xFE10, 0xFE4F),
            (0xFF61, 0xFFDC),
            (0xFFE0, 0xFFE6),
        )
    ),
    (0x1D360, 0x1D371, 10),
    *(
        (a, b, 14)
        for a, b in (
            (0x16FE0, 0x16FFF),
            (0x1AFF0, 0x1AFFF),
            (0x1B000, 0x1B16F),
            (0x1F200, 0x1F2FF),
            (0x20000, 0x2FA1F),
            (0x30000, 0x3347F),
        )
    ),
)
_EXTRA: dict[int, int] = {}


def _extra_chars(code: int) -> int:
    if code in _EXTRA:
        return _EXTRA[code]
    extra = 0
    for first, last, add in _CJK_RANGES:
        if first <= code <= last:
            extra = add
            break
    if len(_EXTRA) < 65536:
        _EXTRA[code] = extra
    return extra


def openclaw_chars(text: str) -> int:
    """OpenClaw's `estimateStringChars`: UTF-16 length plus CJK weights (a common CJK character counts 4)."""
    if text.isascii():
        return len(text)
    return js_length(text) + sum(_extra_chars(ord(c)) for c in text if ord(c) >= 0xB7)


def _block_text(block: Any) -> str:
    """getCompactionContentBlockText: text blocks' text, and a tool result block's text."""
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, ToolResultBlock):
        return "\n".join(b.text for b in block.content if isinstance(b, TextBlock) and b.text)
    return ""


def openclaw_content(message: Message) -> tuple[str, str, int]:
    """getCompactionContent: the text OpenClaw estimates and summarizes, its omission notes, and the image count."""
    texts: list[str] = []
    omissions: list[str] = []
    images = 0
    blocks: list[Any] = list(message.content)
    others = (message.model_extra or {}).get("otherBlocks")
    if isinstance(others, list):
        blocks.extend(others)  # unknown block kinds (kept aside by the reader) are non-text data
    for block in blocks:
        text = _block_text(block)
        kind = block.type if not isinstance(block, dict) else block.get("type")
        if kind == "image":
            images += 1
        if kind != "text" and not text:
            note = IMAGE_OMISSION if kind == "image" else NON_TEXT_OMISSION
            if note not in omissions:
                omissions.append(note)
        if text:
            texts.append(text)
    return "\n".join(texts), "\n".join(omissions), images


def _content_chars(message: Message) -> int:
    text, omission, images = openclaw_content(message)
    return openclaw_chars(text) + images * OPENCLAW_IMAGE_CHARS + (js_length(omission) + 17 if omission else 0)


def sender_suffix(message: Message) -> str:
    """` sender={...}` as OpenClaw labels a user turn whose `__openclaw` metadata names a sender id."""
    if message.role != "user":
        return ""
    meta = (message.model_extra or {}).get("__openclaw")
    if not isinstance(meta, dict):
        return ""

    def clean(value: Any) -> str | None:
        if not isinstance(value, str):
            return None
        return value.replace("\0", "").strip() or None

    sender = {"id": clean(meta.get("senderId")), "name": clean(meta.get("senderName"))}
    sender["username"] = clean(meta.get("senderUsername"))
    if sender["id"] is None:
        return ""
    return " sender=" + js_stringify({k: v for k, v in sender.items() if v is not None})


def openclaw_tokens(message: Message) -> int:
    """OpenClaw 2026.9's `estimateTokens` (0 for a message excluded from context)."""
    if (message.model_extra or {}).get("excludeFromContext") is True:
        return 0
    role = message.role
    if role == "assistant":
        chars = 0
        for block in message.content:
            kind = block.type
            if kind == "text":
                chars += openclaw_chars(block.text)  # type: ignore[union-attr]
            elif kind == "thinking":
                chars += openclaw_chars(block.thinking)  # type: ignore[union-attr]
            elif kind == "toolCall":
                chars += openclaw_chars(block.name) + openclaw_chars(js_stringify(block.arguments))  # type: ignore[union-attr]
        return _ceil4(chars)
    if role == "user":
        return _ceil4(_content_chars(message) + openclaw_chars(sender_suffix(message)))
    if role in ("custom", "toolResult"):
        return _ceil4(_content_chars(message))
    if role == "bashExecution":
        return _ceil4(openclaw_chars(message.command or "") + openclaw_chars(message.output or ""))
    if role in {"branchSummary", "compactionSummary"}:
        return _ceil4(openclaw_chars(message.summary or ""))
    return 0
