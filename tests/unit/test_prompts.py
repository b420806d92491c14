"""Prompt texts by name and the user prompt built around a conversation (pi's generateSummary layout)."""

from __future__ import annotations

import pytest

from cutline.core.errors import CutlineError
from cutline.core.summarizers.prompts import (
    PROMPTS,
    SUMMARIZATION_SYSTEM_PROMPT,
    build_prompt_text,
    get_prompt,
    merge_conversation_text,
)


def test_every_design_prompt_is_available_by_name() -> None:
    for name in ("pi-checkpoint", "pi-update", "pi-turn-prefix", "merge", "go-7-section", "narrative", "pi-system"):
        assert name in PROMPTS
        assert get_prompt(name) == PROMPTS[name].text
    assert get_prompt("pi-checkpoint").startswith(
        "The messages above are a conversation to summarize. Create a structured context checkpoint summary"
    )
    assert get_prompt("pi-checkpoint").endswith(
        "Keep each section concise. Preserve exact file paths, function names, and error messages."
    )
    assert "### In Progress\n- [ ] [Current work]" in get_prompt("pi-checkpoint")
    assert get_prompt("pi-update").startswith(
        "The messages above are NEW conversation messages to incorporate into the existing summary"
    )
    assert get_prompt("pi-turn-prefix").startswith("This is the PREFIX of a turn that was too large to keep.")
    assert get_prompt("merge").startswith(
        "Merge these partial summaries into a single cohesive summary.\n\nMUST PRESERVE:"
    )
    assert "5. Active Work and Last Actions (CRITICAL)" in get_prompt("go-7-section")
    assert get_prompt("narrative").endswith("Format as a concise narrative summary.")
    assert SUMMARIZATION_SYSTEM_PROMPT.endswith("ONLY output the structured summary.")


def test_unknown_prompt_is_a_one_line_error() -> None:
    with pytest.raises(CutlineError, match="unknown prompt 'nope'"):
        get_prompt("nope")


def test_history_prompt_layout() -> None:
    text = build_prompt_text("history", "[User]: hi")
    assert text == "<conversation>\n[User]: hi\n</conversation>\n\n" + get_prompt("pi-checkpoint")


def test_previous_summary_switches_to_update_prompt_and_custom_instructions_append() -> None:
    text = build_prompt_text(
        "update", "[User]: more", previous_summary="## Goal\n- old", custom_instructions="keep the API keys list"
    )
    assert text == (
        "<conversation>\n[User]: more\n</conversation>\n\n"
        "<previous-summary>\n## Goal\n- old\n</previous-summary>\n\n"
        + get_prompt("pi-update")
        + "\n\nAdditional focus: keep the API keys list"
    )


def test_turn_prefix_takes_no_custom_instructions_or_previous_summary() -> None:
    text = build_prompt_text("turn_prefix", "[User]: big turn", previous_summary="old", custom_instructions="x")
    assert text == "<conversation>\n[User]: big turn\n</conversation>\n\n" + get_prompt("pi-turn-prefix")


def test_merge_uses_openclaw_instructions_as_focus() -> None:
    conversation = merge_conversation_text(["first part", "second part", "third part"])
    assert conversation == (
        "[User]: [Chunk 1 — oldest messages]\nfirst part\n\n"
        "[User]: [Chunk 2/3]\nsecond part\n\n"
        "[User]: [Chunk 3 — most recent messages]\nthird part"
    )
    text = build_prompt_text("merge", conversation, custom_instructions="  mind the budget ")
    assert text == (
        f"<conversation>\n{conversation}\n</conversation>\n\n"
        + get_prompt("pi-checkpoint")
        + "\n\nAdditional focus: "
        + get_prompt("merge")
        + "\n\nmind the budget"
    )


def test_other_named_prompts() -> None:
    go = build_prompt_text("history", "[User]: hi", prompt_name="go-7-section", custom_instructions="be brief")
    assert (
        go
        == "<conversation>\n[User]: hi\n</conversation>\n\n"
        + get_prompt("go-7-section")
        + "\n\nAdditional focus: be brief"
    )
    narrative = build_prompt_text("history", "[User]: hi", prompt_name="narrative")
    assert narrative == get_prompt("narrative") + "\n\n<conversation>\n[User]: hi\n</conversation>"
    with pytest.raises(CutlineError):
        build_prompt_text("history", "x", prompt_name="pi-system")
