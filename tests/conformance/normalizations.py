"""What each real program adds to every request that is not in its session: taken out before comparing.

Applied in order, per agent; the names are what a failing conformance test reports.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from cutline.core.agents.wire import WireMessage, WireText

Pair = tuple[list[WireMessage], list[WireMessage]]
Normalization = Callable[[list[WireMessage], list[WireMessage]], Pair]


# ---------------------------------------------------------------------------
# Normalizations: what the program adds to each request that is not in the session
# ---------------------------------------------------------------------------


def _last_user(request: list[WireMessage]) -> int:
    at = max(i for i, m in enumerate(request) if m.role == "user")
    assert all(m.role == "system" for m in request[at + 1 :]), "only system messages follow the new prompt"
    assert isinstance(request[at].content[-1], WireText), "the new prompt is text"
    return at


def new_prompt(request: list[WireMessage], context: list[WireMessage]) -> Pair:
    """The prompt typed for the next turn (the driver's `MARK-…` text) is the request's last user text: not in the file yet."""
    at = _last_user(request)
    last = request[at]
    if len(last.content) == 1:
        return [*request[:at], *request[at + 1 :]], context
    trimmed = last.model_copy(update={"content": last.content[:-1]})
    return [*request[:at], trimmed, *request[at + 1 :]], context


def cc_new_prompt(request: list[WireMessage], context: list[WireMessage]) -> Pair:
    """The new prompt, as `new_prompt`; Claude Code merges it into the user message before it, and the text block it
    joins gets a newline at that seam: the newline goes with the prompt."""
    at = _last_user(request)
    merged = len(request[at].content) > 1
    request, context = new_prompt(request, context)
    if not merged:
        return request, context
    last = request[at]
    if isinstance(last.content[-1], WireText) and last.content[-1].text.endswith("\n"):
        trimmed = [*last.content[:-1], WireText(text=last.content[-1].text[:-1])]
        request = [*request[:at], last.model_copy(update={"content": trimmed}), *request[at + 1 :]]
    return request, context


def codex_base_instructions(request: list[WireMessage], context: list[WireMessage]) -> Pair:
    """Codex sends its base instructions (`session_meta.base_instructions`) as the first developer message of every request; the rollout's history does not hold them."""
    first = request[0]
    assert first.role == "system" and first.text().startswith("You are a coding agent"), "base instructions first"
    return request[1:], context


def codex_turn_context(request: list[WireMessage], context: list[WireMessage]) -> Pair:
    """On a new turn Codex re-sends its developer message (skills, permissions) and the `<environment_context>` user
    message before the prompt when the history it resumed does not end with them (a history written by another
    program): they are items of the new turn, written to the rollout with it. Removed from the end of the request
    where the rebuilt context has nothing."""
    tail = request[len(context) :]
    injected = [
        m
        for m in tail
        if m.role == "system" or (m.role == "user" and m.text().lstrip().startswith("<environment_context>"))
    ]
    if len(injected) != len(tail):
        return request, context
    return request[: len(context)], context


_CC_TURN_REMINDERS = (
    "Today's date is ",
    "# Environment\n",
    "# Environment update\n",
    "You are powered by the model named ",
    "The following deferred tools are now available",
    "Available agent types for the Agent tool:",
    "The following skills are available for use with the Skill tool:",
)
_CC_ATTRIBUTION = "<system-reminder>\nAttribution for git commits and pull requests"


def _system_text(message: WireMessage) -> str:
    return "\n\n".join(b.text for b in message.content if isinstance(b, WireText))


def _new_reminders(extra: str) -> bool:
    """Text that begins with one of the reminders Claude Code renders for a new turn."""
    return extra.startswith(_CC_TURN_REMINDERS)


def cc_new_turn_reminders(request: list[WireMessage], context: list[WireMessage]) -> Pair:
    """Claude Code renders fresh reminders for the new turn (date, environment, model, tool/agent/skill listings
    appended to a `role:"system"` message; the git attribution reminder as a user text block): attachments the next
    turn writes, not yet in the file. Taken out of the request where the rebuilt context does not have them at the
    same place; a system message must still begin with exactly what the file holds, and what is taken out must
    begin with one of those reminders."""
    out: list[WireMessage] = []
    for i, message in enumerate(request):
        mine = context[i] if i < len(context) else None
        if message.role == "system":
            sent = _system_text(message)
            held = _system_text(mine) if mine is not None and mine.role == "system" else None
            if held is None:
                if _new_reminders(sent):
                    continue
                out.append(message)
                continue
            extra = sent[len(held) :].removeprefix("\n\n") if held else sent
            if ((sent.startswith(held) and extra != sent[len(held) :]) or not held) and extra and _new_reminders(extra):
                sent = held
            out.append(WireMessage(role="system", content=[WireText(text=sent)] if sent else []))
            continue
        if message.role == "user":
            have = {b.text for b in mine.content if isinstance(b, WireText)} if mine is not None else set()
            blocks: list[Any] = []
            for j, b in enumerate(message.content):
                if isinstance(b, WireText) and b.text.startswith(_CC_ATTRIBUTION) and b.text not in have:
                    # it sat beside the tool results and took the seam: the block before it gets it back
                    following = message.content[j + 1] if j + 1 < len(message.content) else None
                    if blocks and isinstance(blocks[-1], WireText) and isinstance(following, WireText):
                        blocks[-1] = WireText(text=blocks[-1].text + "\n")
                    continue
                blocks.append(b)
            if not blocks:
                continue
            out.append(message.model_copy(update={"content": blocks}))
            continue
        out.append(message)
    return out, [_joined_system(m) for m in context]


def _joined_system(message: WireMessage) -> WireMessage:
    """A system message as one text block (the request sends one string, or [] when empty)."""
    if message.role != "system":
        return message
    text = _system_text(message)
    return WireMessage(role="system", content=[WireText(text=text)] if text else [])


_OPENCLAW_TIME = re.compile(r"^\[\w{3} \d{4}-\d\d-\d\d \d\d:\d\d [A-Z]+\] ")


def openclaw_internal_context(request: list[WireMessage], context: list[WireMessage]) -> Pair:
    """OpenClaw appends a `<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>` user message after the new prompt on every request."""
    kept = [
        m for m in request if not (m.role == "user" and m.text().startswith("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"))
    ]
    return kept, context


def openclaw_prompt_time(request: list[WireMessage], context: list[WireMessage]) -> Pair:
    """OpenClaw prefixes each user prompt with its time (`[Tue 2026-11-24 23:49 UTC] `) when it sends it; the store keeps the bare prompt."""
    out: list[WireMessage] = []
    for message in request:
        if message.role == "user" and message.content and isinstance(message.content[0], WireText):
            first = WireText(text=_OPENCLAW_TIME.sub("", message.content[0].text))
            out.append(message.model_copy(update={"content": [first, *message.content[1:]]}))
            continue
        out.append(message)
    return out, context


def qwen_system_prompt(request: list[WireMessage], context: list[WireMessage]) -> Pair:
    """Qwen Code sends its system prompt as the first message of every Chat Completions request; the chat file does not hold it."""
    first = request[0]
    assert first.role == "system" and first.text().startswith("You are Qwen Code"), "the system prompt first"
    return request[1:], context


def qwen_reminders(request: list[WireMessage], context: list[WireMessage]) -> Pair:
    """Qwen Code puts `<system-reminder>` parts into user messages when it sends them (the startup context, skills and
    deferred tools before the first message, the date before each new prompt) and stores only the prompt."""
    out: list[WireMessage] = []
    for message in request:
        if message.role != "user":
            out.append(message)
            continue
        kept = [
            b for b in message.content if not (isinstance(b, WireText) and b.text.startswith("<system-reminder>\n"))
        ]
        if kept:
            out.append(message.model_copy(update={"content": kept}))
    return out, context


def opencode_system_prompt(request: list[WireMessage], context: list[WireMessage]) -> Pair:
    """opencode sends its system prompt (agent prompt, environment, instructions) as the first message of every Chat
    Completions request; its store does not hold it."""
    first = request[0]
    assert first.role == "system" and first.text().startswith("You are opencode"), "the system prompt first"
    return request[1:], context


# Applied in order; the names are what a failing test reports. The system prompt and tool list
# are request fields of their own on every wire here (Anthropic `system`/`tools`, Responses
# `tools`), so they need no normalization of the message list; Chat Completions carries it as a message (Qwen Code).
NORMALIZATIONS: dict[str, dict[str, Normalization]] = {
    "claude-code": {"new_prompt": cc_new_prompt, "new_turn_reminders": cc_new_turn_reminders},
    "codex": {
        "base_instructions": codex_base_instructions,
        "new_prompt": new_prompt,
        "turn_context": codex_turn_context,
    },
    "pi-0.73": {"new_prompt": new_prompt},
    "opencode": {"system_prompt": opencode_system_prompt, "new_prompt": new_prompt},
    "qwen-code": {"system_prompt": qwen_system_prompt, "reminders": qwen_reminders, "new_prompt": new_prompt},
    "pi-0.87": {"new_prompt": new_prompt},
    "openclaw": {
        "internal_context": openclaw_internal_context,
        "new_prompt": new_prompt,
        "prompt_time": openclaw_prompt_time,
    },
}
