"""OpenClaw 2026.9's thinking drop for older Claude models (`dropThinkingBlocks`), applied to the neutral context it sends.

Under a transcript policy with `dropThinkingBlocks` (replay_policy.drops_thinking_blocks),
every assistant message but the latest loses its thinking blocks (redacted ones too) before
each request; the latest keeps them as stored, since Anthropic rejects a changed latest
turn. A message left with nothing gets one text block instead, so the turn stays. See
docs/rules/openclaw-2026.9.md §11.
"""

from __future__ import annotations

from cutline.core.agents.wire import WireMessage, WireText, WireThinking

# `OMITTED_ASSISTANT_REASONING_TEXT` in src/agents/embedded-agent-runner/thinking.ts
OMITTED_REASONING_TEXT = "[assistant reasoning omitted]"


def drop_thinking_blocks(messages: list[WireMessage]) -> list[WireMessage]:
    """The messages with thinking removed from every assistant message except the latest (`dropThinkingBlocks`)."""
    latest = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "assistant"), -1)
    out: list[WireMessage] = []
    for i, message in enumerate(messages):
        if message.role != "assistant" or i == latest:
            out.append(message)
            continue
        kept = [b for b in message.content if not isinstance(b, WireThinking)]
        if len(kept) == len(message.content):
            out.append(message)
            continue
        content = kept or [WireText(text=OMITTED_REASONING_TEXT)]
        out.append(message.model_copy(update={"content": content}))
    return out
