"""Qwen Code's compression prompt: what it asks a model for when it compresses a chat (Qwen Code 0.24.4).

The model answers with an <analysis> block, which Qwen Code drops, then a <state_snapshot> in nine
sections; the offline summary of a Qwen Code session is written in the same sections
(`layouts.QWEN_CODE`).
"""

from __future__ import annotations

import re

# Qwen Code's post-processing of a compression reply: every closed <analysis> block with the blank space after it,
# then an unclosed one to the end, then the text trimmed (its chat compression service, 0.24.4)
_ANALYSIS_CLOSED = re.compile(r"<analysis>[\s\S]*?</analysis>\s*")
_ANALYSIS_OPEN = re.compile(r"<analysis>[\s\S]*$")


def qwen_summary_text(reply: str) -> str:
    """What Qwen Code keeps of a model's compression reply: the <analysis> scratchpad dropped, the rest trimmed."""
    return _ANALYSIS_OPEN.sub("", _ANALYSIS_CLOSED.sub("", reply)).strip()


QWEN_CODE_COMPRESSION_PROMPT = """You are the component that summarizes a conversation when its context window is about to overflow. The summary you produce will become the agent's ONLY memory of everything that happened before this point. The agent will resume its work based solely on this summary plus a small number of restored file / image attachments that follow.

First, wrap your reasoning in an <analysis> block. Inside it, walk through the conversation chronologically and identify, for each section: the user's explicit requests and intent, your approach to those requests, key decisions / technical concepts / code patterns, specific details (file names, code snippets, function signatures, file edits), errors and how they were fixed, and any specific user feedback — especially when the user told you to do something differently. The <analysis> block is stripped before the summary reaches the next agent; it is purely a drafting scratchpad to improve the summary that follows.

Then produce the final summary as the EXACT XML structure below. Be dense. Omit conversational filler.

<state_snapshot>
    <primary_request_and_intent>
        <!-- Capture all of the user's explicit requests and intents in detail. Quote the user's exact phrasing where intent is at stake. -->
    </primary_request_and_intent>

    <key_technical_concepts>
        <!-- List all important technical concepts, technologies, and frameworks discussed. -->
    </key_technical_concepts>

    <files_and_code_sections>
        <!-- Enumerate specific files and code sections examined, modified, or created. Pay special attention to the most recent messages. Include full code snippets where applicable, and a summary of why this file read or edit is important. -->
    </files_and_code_sections>

    <errors_and_fixes>
        <!-- List every error encountered and how it was fixed. Include the verbatim error message when it was quoted to the agent. Pay special attention to specific user feedback on the error, especially if the user told you to do something differently. -->
    </errors_and_fixes>

    <problem_solving>
        <!-- Document problems solved and any ongoing troubleshooting efforts. -->
    </problem_solving>

    <all_user_messages>
        <!-- List ALL user messages that are not tool results, in chronological order. These are critical for understanding the user's feedback and shifting intent. Include short messages like "ok" or "continue" — they are signal. -->
    </all_user_messages>

    <pending_tasks>
        <!-- Outline any pending tasks that the user has explicitly asked the agent to work on but that are not yet complete. -->
    </pending_tasks>

    <current_work>
        <!-- Describe in detail precisely what the agent was working on immediately before this summary was requested, paying special attention to the most recent messages from both user and assistant. Include file names and code snippets where applicable. -->
    </current_work>

    <next_step>
        <!-- List the single next step the agent will take, related to the most recent work. The step MUST be DIRECTLY in line with the user's most recent explicit request and the task the agent was working on immediately before this summary. If the last task was concluded, list a next step only if it is explicitly in line with the user's request — do NOT start tangential or older work without confirming with the user first. If there is a next step, include direct quotes from the most recent conversation showing exactly what task you were working on and where you left off. -->
    </next_step>
</state_snapshot>"""
