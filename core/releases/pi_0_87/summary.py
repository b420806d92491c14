"""Current pi's (0.87.1) summarization: its system prompt, the rewritten turn-prefix prompt, two calls in sequence.

What changed from pi 0.73.1 (docs/rules/pi-current.md §8): the system prompt says
"AI assistant"; the turn prefix is asked for as a checkpoint, framed `# Conversation` /
`# Instructions`; the history call runs first and the turn-prefix call after it (0.73
ran them at once); a split turn with no new history keeps the previous summary (0.73
wrote "No prior history."); both calls' max_tokens are clamped to the model's own
output limit. Custom instructions reach the history call only, as in pi's code. pi
0.87.1 still serializes thinking blocks, so this flow does too.
"""

from __future__ import annotations

from collections.abc import Sequence

from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.modes.base import CompactionJob, Rebuilt
from cutline.core.engine.modes.pi import PiMode
from cutline.core.engine.rule_summaries import SummaryCalls, model_max_output_tokens, output_limit
from cutline.core.engine.summary_run import SummaryRun
from cutline.core.errors import SummarizerError
from cutline.core.models import Message
from cutline.core.summarizers.agent_prompts import PI_CURRENT_SYSTEM_PROMPT, PI_CURRENT_TURN_PREFIX_PROMPT
from cutline.core.summarizers.base import SummaryRequest
from cutline.core.summarizers.prompts import build_prompt_text
from cutline.core.summarizers.serialize import SerializeStyle, serialize_conversation

NO_PRIOR_HISTORY = "No prior history."
TURN_CONTEXT_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n"
HISTORY_SHARE = 0.8
TURN_PREFIX_SHARE = 0.5


def turn_prefix_text(conversation: str) -> str:
    """Current pi's turn-prefix user message."""
    return f"# Conversation\n{conversation}\n\n# Instructions\n{PI_CURRENT_TURN_PREFIX_PROMPT}"


def history_request(
    messages: Sequence[Message],
    previous: str | None,
    settings: CompactionSettings,
    model_max: int | None,
    *,
    with_text: bool = True,
) -> SummaryRequest:
    """The history (or update) request, with the settings' prompt and custom instructions (the text only `with_text`)."""
    style: SerializeStyle = "preview" if settings.previewStyle else "pi"
    text = (
        build_prompt_text(
            "update" if previous else "history",
            serialize_conversation(messages, style),
            previous_summary=previous,
            custom_instructions=settings.customInstructions,
            prompt_name=settings.promptName,
        )
        if with_text
        else ""
    )
    return SummaryRequest(
        kind="update" if previous else "history",
        prompt_name=settings.promptName,
        system_prompt=PI_CURRENT_SYSTEM_PROMPT,
        prompt_text=text,
        messages=messages,
        previous_summary=previous,
        custom_instructions=settings.customInstructions,
        max_tokens=output_limit(HISTORY_SHARE, settings.reserveTokens, model_max),
    )


def prefix_request(
    messages: list[Message], settings: CompactionSettings, model_max: int | None, *, with_text: bool = True
) -> SummaryRequest:
    """The turn-prefix request (no custom instructions, as in pi; the text only `with_text`)."""
    style: SerializeStyle = "preview" if settings.previewStyle else "pi"
    return SummaryRequest(
        kind="turn_prefix",
        prompt_name="pi-current-turn-prefix",
        system_prompt=PI_CURRENT_SYSTEM_PROMPT,
        prompt_text=turn_prefix_text(serialize_conversation(messages, style)) if with_text else "",
        messages=messages,
        max_tokens=output_limit(TURN_PREFIX_SHARE, settings.reserveTokens, model_max),
    )


async def _ask(calls: SummaryCalls, stage: str, request: SummaryRequest, count: int) -> str:
    """One call; a failure becomes a note and, in the summary's place, a line saying what was there."""
    try:
        return await calls.call(stage, request)
    except SummarizerError as exc:
        calls.notes.append(f"{stage}: summarization failed: {exc}")
        calls.degrade("annotation")
        return f"Context contained {count} messages (0 oversized). Summary unavailable due to size limits."


async def current_pi_body(
    calls: SummaryCalls,
    settings: CompactionSettings,
    *,
    summarized: Sequence[Message],
    prefix: list[Message],
    previous: str | None,
    split_turn: bool,
    model_max: int | None,
) -> str:
    """The summary body current pi writes (before the sections cutline appends)."""
    text = calls.reads_text
    if split_turn and prefix:
        if summarized:
            calls.emit("history")
            history = await _ask(
                calls,
                "history",
                history_request(summarized, previous, settings, model_max, with_text=text),
                len(summarized),
            )
        else:
            history = previous or NO_PRIOR_HISTORY
        calls.emit("turn_prefix")
        prefix_text = await _ask(
            calls, "turn_prefix", prefix_request(prefix, settings, model_max, with_text=text), len(prefix)
        )
        if not text and summarized:  # offline: the history part names the turn under way
            # the offline summarizer's: imported when it runs, not by every plan
            from cutline.core.summarizers.extractive import name_turn_under_way

            history = name_turn_under_way(history, settings.promptName, prefix)
        return f"{history}{TURN_CONTEXT_SEPARATOR}{prefix_text}"
    if not summarized:
        return previous or NO_PRIOR_HISTORY
    calls.emit("history")
    request = history_request(summarized, previous, settings, model_max, with_text=text)
    return await _ask(calls, "history", request, len(summarized))


async def summarize(mode: PiMode, job: CompactionJob, run: SummaryRun) -> Rebuilt:
    """Current pi's flow: the mode's history, then current pi's calls in sequence, then pi's sections."""
    history, previous = await mode.prepare_history(job, run)
    body = await current_pi_body(
        run,
        job.settings,
        summarized=history,
        prefix=job.prefix,
        previous=previous,
        split_turn=job.plan.isSplitTurn,
        model_max=model_max_output_tokens(run.summarizer.model),
    )
    return mode.finish(job, body)
