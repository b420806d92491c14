"""OpenClaw 2026.9's tool call id rewrite (src/agents/tool-call-id.ts), applied to the neutral context it sends.

`sanitizeToolCallIdsForCloudCodeAssist` walks the messages in order: each tool call gets a
fresh id that no earlier call or result took (letters and digits in "strict" mode, nine of
them in "strict9"), a result takes the id its call got (the oldest pending one when an id
repeats), and an orphan result gets one of its own. The store keeps the original ids.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

from cutline.core.agents.openclaw.replay_policy import ToolCallIdMode, ToolIdPolicy
from cutline.core.agents.wire import WireMessage, WireThinking, WireToolCall, WireToolResult

_NOT_ALPHANUMERIC = re.compile(r"[^a-zA-Z0-9]")
_NATIVE_ANTHROPIC = re.compile(r"^toolu_[A-Za-z0-9_]+$")
_NATIVE_KIMI = re.compile(r"^functions\.[A-Za-z0-9_-]+:\d+$")
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_:.-]+$")
_STRICT9_LEN = 9
_MAX_LEN = 40  # `makeUniqueToolId`, strict mode
_TOOL_NAME_MAX = 64


def _hash(text: str, length: int = 8) -> str:
    """`shortHash`: the first characters of the SHA-256 hex digest of the text (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def sanitize_tool_call_id(tool_id: str, mode: ToolCallIdMode = "strict") -> str:
    """`sanitizeToolCallId`: letters and digits only ("strict9": exactly nine, hashed when fewer); Kimi's ids kept."""
    if not tool_id:
        return "defaultid" if mode == "strict9" else "defaulttoolid"
    alphanumeric = _NOT_ALPHANUMERIC.sub("", tool_id)
    if mode == "strict9":
        if len(alphanumeric) >= _STRICT9_LEN:
            return alphanumeric[:_STRICT9_LEN]
        return _hash(alphanumeric or "sanitized", _STRICT9_LEN)
    if _NATIVE_KIMI.match(tool_id):
        return tool_id
    return alphanumeric or "sanitizedtoolid"


def unique_tool_id(seed: str, used: set[str], mode: ToolCallIdMode) -> str:
    """`makeUniqueToolId`: the sanitized seed, or when taken a hashed variant, then numbered ones (`x2`, `x3`, …)."""
    if mode == "strict9":
        candidate = sanitize_tool_call_id(seed, mode)[:_STRICT9_LEN]
        if candidate not in used:
            return candidate
        attempt = 0
        while _hash(f"{seed}:{attempt}", _STRICT9_LEN) in used:
            attempt += 1
        return _hash(f"{seed}:{attempt}", _STRICT9_LEN)
    base = sanitize_tool_call_id(seed, mode)[:_MAX_LEN]
    if base not in used:
        return base
    digest = _hash(seed)
    candidate = base[: _MAX_LEN - len(digest)] + digest
    if candidate not in used:
        return candidate
    number = 2
    while True:  # OpenClaw stops at 999 and appends the time; no real session gets there
        suffix = f"x{number}"
        numbered = candidate[: _MAX_LEN - len(suffix)] + suffix
        if numbered not in used:
            return numbered
        number += 1


class _Resolver:
    """`createOccurrenceAwareResolver`: new ids for calls, and for results the id their call got."""

    def __init__(self, policy: ToolIdPolicy, mode: ToolCallIdMode, reserved: set[str]) -> None:
        self.policy = policy
        self.mode = mode
        self.used = set(reserved)
        self.calls_seen: dict[str, int] = {}
        self.orphans_seen: dict[str, int] = {}
        self.pending: dict[str, list[str]] = {}

    def _allocate(self, seed: str) -> str:
        new = unique_tool_id(seed, self.used, self.mode)
        self.used.add(new)
        return new

    def _native(self, tool_id: str, occurrence: int) -> bool:
        """A native `toolu_…` id is sent as it is the first time, when the policy keeps them and no one took it."""
        return (
            self.policy.preserve_native_anthropic
            and occurrence == 1
            and bool(_NATIVE_ANTHROPIC.match(tool_id))
            and tool_id not in self.used
        )

    def call(self, tool_id: str) -> str:
        occurrence = self.calls_seen.get(tool_id, 0) + 1
        self.calls_seen[tool_id] = occurrence
        if self._native(tool_id, occurrence):
            self.used.add(tool_id)
            new = tool_id
        else:
            new = self._allocate(tool_id if occurrence == 1 else f"{tool_id}:{occurrence}")
        self.pending.setdefault(tool_id, []).append(new)
        return new

    def keep(self, tool_id: str) -> str:
        """`preserveAssistantId`: a call of a signed-thinking turn keeps its id; its result follows it."""
        self.used.add(tool_id)
        self.pending.setdefault(tool_id, []).append(tool_id)
        return tool_id

    def result(self, tool_id: str) -> str:
        waiting = self.pending.get(tool_id)
        if waiting:
            return waiting.pop(0)
        occurrence = self.orphans_seen.get(tool_id, 0) + 1
        self.orphans_seen[tool_id] = occurrence
        if self._native(tool_id, occurrence):
            self.used.add(tool_id)
            return tool_id
        return self._allocate(f"{tool_id}:tool_result:{occurrence}")


def _allowed_name(name: str) -> bool:
    """`isAllowedToolCallName` without a tool list: a name of letters, digits and `_:.-`, at most 64 long."""
    trimmed = name.strip()
    return bool(trimmed) and len(trimmed) <= _TOOL_NAME_MAX and bool(_TOOL_NAME.match(trimmed))


def _replay_safe_thinking_turn(message: WireMessage) -> bool:
    """`isReplaySafeThinkingAssistantMessage`: thinking and tool calls, each with input, its own id and a clean name."""
    calls = [b for b in message.content if isinstance(b, WireToolCall)]
    if not calls or not any(isinstance(b, WireThinking) for b in message.content):
        return False
    seen: set[str] = set()
    for call in calls:
        tool_id = call.id.strip()
        if call.arguments is None or not tool_id or tool_id in seen:
            return False
        if not _allowed_name(call.name) or call.name != call.name.strip():
            return False
        seen.add(tool_id)
    return True


def _kept_turns(messages: list[WireMessage]) -> tuple[set[int], set[str]]:
    """`collectReplaySafeThinkingToolIds`: the signed-thinking turns that keep their ids, and those ids."""
    kept: set[int] = set()
    reserved: set[str] = set()
    for i, message in enumerate(messages):
        if message.role != "assistant" or not _replay_safe_thinking_turn(message):
            continue
        ids = [b.id for b in message.content if isinstance(b, WireToolCall)]
        if any(tool_id in reserved for tool_id in ids):
            continue
        kept.add(i)
        reserved.update(ids)
    return kept, reserved


def _same(tool_id: str) -> str:
    return tool_id


def _with_ids(message: WireMessage, call: Callable[[str], str], result: Callable[[str], str]) -> WireMessage:
    """The message with each non-empty call id through `call` and each non-empty result id through `result`."""
    blocks = [
        b.model_copy(update={"id": call(b.id)})
        if isinstance(b, WireToolCall) and b.id
        else b.model_copy(update={"tool_call_id": result(b.tool_call_id)})
        if isinstance(b, WireToolResult) and b.tool_call_id
        else b
        for b in message.content
    ]
    return message.model_copy(update={"content": blocks})


def rewrite_tool_call_ids(messages: list[WireMessage], policy: ToolIdPolicy) -> list[WireMessage]:
    """The messages with tool call and result ids as OpenClaw sends them under this policy (unchanged without a mode).

    Calls are rewritten in assistant messages, results in the others, in order, as OpenClaw
    walks assistant and toolResult messages.
    """
    if policy.mode is None:
        return messages
    kept, reserved = _kept_turns(messages) if policy.keep_thinking_turn_ids else (set(), set())
    resolver = _Resolver(policy, policy.mode, reserved)
    out: list[WireMessage] = []
    for i, message in enumerate(messages):
        if message.role == "assistant":
            out.append(_with_ids(message, resolver.keep if i in kept else resolver.call, _same))
        else:
            out.append(_with_ids(message, _same, resolver.result))
    return out
