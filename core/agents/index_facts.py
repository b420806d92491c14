"""What the plan's index, the list's tool pairs and the calibration need of one entry, as a small stored record.

Why: the review desk plans a 100,000-entry session from these stored facts (a few
bytes per entry) instead of rebuilding every entry as a model (~900 MB); the
importer writes them next to each raw line (migration m005 back-filled older rows).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from cutline.core.agents.boundaries import continues_message
from cutline.core.agents.context import branch_summary_text, usage_entry_prompt_tokens
from cutline.core.agents.entries import OtherEntry
from cutline.core.agents.light import LightEntry, LightMessage
from cutline.core.models import Entry, Message

# flag bits of an entry's facts
IN_CONTEXT = 1  # a message entry that reaches the model (not a sidechain, not a compact-summary record)
CUT_POINT = 2  # its role may start the kept part (not a toolResult, nor a user record carrying tool results)
TURN_START = 4  # user or bashExecution
ASSISTANT = 8
VALID_USAGE = 16  # an assistant usage pi trusts (not aborted, not an error)
BRANCH_TEXT = 32  # a branch_summary with a summary
RESET = 64  # OpenClaw's reset record: the session's own evidence for OpenClaw's rules
PI_CURRENT_SIGN = 128  # context_edit / usage entries or a pi system message: evidence for current pi
WEIGHT = 256  # adds a message when it lies in the kept context (before any context_edit omits it)
CONTEXT_EDIT = 512  # a pi context_edit entry (what it omits depends on the whole path)

# cut-point roles and turn starts as pi 0.73 knows them (core.engine.path_index)
_CUT_ROLES = frozenset({"bashExecution", "custom", "branchSummary", "compactionSummary", "user", "assistant"})
_TURN_START_ROLES = frozenset({"user", "bashExecution"})
FILE_TOOLS = {"read": 0, "write": 1, "edit": 2}

# one encoder for every entry: json.dumps with options builds a new one per call (a third of the cost)
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_msgspec_encode = msgspec.json.Encoder().encode


def _dump(facts: dict[str, Any]) -> str:
    """`_encode(facts)`, encoded by msgspec: the same bytes for the facts' plain values, ~10x faster.

    Why: the general encoder's set-up per call was most of the facts' cost at import
    (~0.5 s per 100,000 entries). msgspec writes str, int, None and lists as `_encode`
    does (a test compares them); a float (it writes `1e16` where `json` writes `1e+16`;
    only usage figures could be one, at the top level) and what it refuses (a lone
    surrogate) take `_encode`.
    """
    for value in facts.values():
        if type(value) is float:
            return _encode(facts)
    try:
        return _msgspec_encode(facts).decode()
    except (TypeError, ValueError, OverflowError, UnicodeError):
        return _encode(facts)


def entry_facts(entry: Entry | LightEntry | OtherEntry) -> str:
    """An entry's facts as compact JSON: flags `f`, usage `u`, prompt tokens `p`, file ops `o`, calls `c`, results `r`, firstKept `k`."""
    facts: dict[str, Any] = {}
    flags = 0
    kind = entry.type
    message = entry.message
    if kind == "message":
        if message is not None and not entry.isSidechain and not entry.isCompactSummary:
            flags |= IN_CONTEXT | WEIGHT
        if entry.sourceType == "message" and message is not None and message.role == "system":
            flags |= PI_CURRENT_SIGN
    elif kind == "custom_message":
        flags |= WEIGHT
    elif kind == "branch_summary" and isinstance(entry, Entry) and branch_summary_text(entry):
        flags |= BRANCH_TEXT | WEIGHT
    elif kind in ("context_edit", "usage"):
        flags |= PI_CURRENT_SIGN | (CONTEXT_EDIT if kind == "context_edit" else 0)
    elif kind == "other" and entry.sourceType == "reset":
        flags |= RESET
    if kind == "compaction" and entry.compaction is not None and entry.compaction.firstKeptEntryId:
        facts["k"] = entry.compaction.firstKeptEntryId
    if message is not None:
        flags |= _message_facts(message, kind, facts)
    if kind == "usage" and isinstance(entry, Entry):  # (a light entry is a message line)
        real = usage_entry_prompt_tokens(entry)
        if real > 0:
            facts["p"] = real
    if not facts:
        return f'{{"f":{flags}}}'
    facts["f"] = flags
    return _dump(facts)


def _message_facts(message: Message | LightMessage, kind: str, facts: dict[str, Any]) -> int:
    """The flags of an entry's message (its role, usage), with its usage, tool calls, file ops and results put in `facts`."""
    flags = 0
    role = message.role
    calls: list[list[str | None]] = []
    ops: list[list[int | str]] = []
    results: list[str] = []
    for block in message.content:
        if block.type == "toolCall":
            args = block.arguments if isinstance(block.arguments, dict) else {}
            named = args.get("path") or args.get("file_path")
            calls.append([block.id, named if isinstance(named, str) else None])
            target = args.get("path")
            if block.name in FILE_TOOLS and isinstance(target, str) and target:
                ops.append([FILE_TOOLS[block.name], target])
        elif block.type == "toolResult":
            results.append(block.toolCallId)
    if role in _CUT_ROLES and not (role == "user" and results) and not continues_message(message):
        flags |= CUT_POINT
    if role in _TURN_START_ROLES:
        flags |= TURN_START
    if role == "assistant":
        flags |= ASSISTANT
        usage = message.usage
        if usage is not None and message.stopReason not in ("aborted", "error"):
            flags |= VALID_USAGE
            facts["u"] = usage.context_tokens
            if kind == "message" and usage.prompt_tokens > 0:
                facts["p"] = usage.prompt_tokens
    if calls:
        facts["c"] = calls
    if ops:
        facts["o"] = ops
    if role == "toolResult" and message.toolCallId:
        results.insert(0, message.toolCallId)
    if results:
        facts["r"] = results
    return flags
