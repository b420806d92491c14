"""A session is summarized in its own agent's shape unless a prompt is chosen (issue 23 item 4).

Claude Code's nine sections, Codex's handoff, OpenClaw's safeguard sections, pi's
checkpoint: every summary cutline makes goes through `compact()` (CLI compact, the desk's
run, the live review's proposal), so the CLI's proposal stands for all three here.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cutline.app.cli import cli
from cutline.core.config.settings import CompactionSettings
from tests.support.paths import ROOT, SAMPLES

OPENCLAW = ROOT / "tests" / "fixtures" / "corpus" / "openclaw" / "main" / "session.export.jsonl"
QWEN = ROOT / "tests" / "fixtures" / "corpus" / "qwen-code" / "main" / "before-compact.jsonl"

# (session file, a heading only that agent's shape has, a heading of pi's checkpoint it must not have)
CASES = {
    "pi": ("pi-coding-session.jsonl", "## Goal", "1. Primary Request and Intent:"),
    "claude_code": ("claude-code-compacted.jsonl", "1. Primary Request and Intent:", "## Goal"),
    "codex": ("codex-rollout-compacted.jsonl", "## Constraints & preferences", "## Goal"),
    "openclaw": ("openclaw-main-session.jsonl", "## Constraints/Rules", "## Goal"),
    "qwen_code": ("qwen-before-compact.jsonl", "    <primary_request_and_intent>", "## Goal"),
}


def compact_summary(file: str, *options: str) -> dict[str, object]:
    source = OPENCLAW if file.startswith("openclaw-") else QWEN if file.startswith("qwen-") else SAMPLES / file
    made = CliRunner().invoke(cli, ["compact", str(source), "--keep-recent-tokens", "10", "--json", *options])
    assert made.exit_code == 0, made.output
    proposal: dict[str, object] = json.loads(made.output)
    return proposal


@pytest.mark.parametrize("agent", sorted(CASES))
def test_the_offline_summary_takes_the_sessions_own_agents_shape(agent: str) -> None:
    file, own, other = CASES[agent]
    proposal = compact_summary(file)
    summary = str(proposal["summary"])
    assert own in summary.splitlines(), summary
    assert other not in summary.splitlines(), summary


def test_a_chosen_prompt_wins_over_the_agents_shape() -> None:
    file, own, _ = CASES["claude_code"]
    summary = str(compact_summary(file, "--prompt", "pi-checkpoint")["summary"])
    assert "## Goal" in summary.splitlines()
    assert own not in summary.splitlines()


def test_settings_take_the_agents_prompt_only_when_none_was_chosen() -> None:
    from cutline.core.engine.compact import in_agent_shape

    assert in_agent_shape(CompactionSettings(), "claude_code").promptName == "claude-code"
    assert in_agent_shape(CompactionSettings(), "codex").promptName == "codex"
    assert in_agent_shape(CompactionSettings(), "pi").promptName == "pi-checkpoint"
    assert in_agent_shape(CompactionSettings(), "qwen_code").promptName == "qwen-code"
    chosen = CompactionSettings(promptName="narrative")
    assert in_agent_shape(chosen, "claude_code").promptName == "narrative"
    assert in_agent_shape(CompactionSettings(promptName="pi-checkpoint"), "codex").promptName == "pi-checkpoint"


@pytest.mark.parametrize(
    ("agent", "heading"),
    [
        ("pi", "## Goal"),
        ("claude-code", "1. Primary Request and Intent:"),
        ("codex", "## Task"),
        ("openclaw", "## Constraints/Rules"),
    ],
)
def test_a_live_hold_without_a_session_file_is_drafted_in_its_agents_shape(agent: str, heading: str) -> None:
    from cutline.core.inbox.answers import extractive_draft

    messages = [
        {"role": "user", "content": [{"type": "text", "text": "Add a --bbox flag to the tiler. Never touch tiles/."}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "I'll start with the argument parser."},
                {"type": "toolCall", "id": "r1", "name": "read", "arguments": {"path": "tiler/cli.py"}},
            ],
        },
        {
            "role": "toolResult",
            "toolCallId": "r1",
            "toolName": "read",
            "content": [{"type": "text", "text": "\n".join(f"line {n}: parser code" for n in range(200))}],
        },
    ]
    draft = extractive_draft({"messagesToSummarize": messages}, agent)
    assert heading in draft.splitlines(), draft


def test_a_qwen_code_summary_is_one_state_snapshot_in_qwen_codes_sections_in_its_order() -> None:
    """Qwen Code 0.24 keeps a compression only when it holds a closed, non-empty <state_snapshot>."""
    summary = str(compact_summary(CASES["qwen_code"][0])["summary"])
    # the engine's own notes (tool failures) may follow the snapshot, as they follow every agent's summary
    lines = summary.splitlines()
    lines = lines[: lines.index("</state_snapshot>") + 1]
    assert lines[0] == "<state_snapshot>", summary
    opened = [line.strip() for line in lines[1:-1] if line.startswith("    <") and not line.startswith("    </")]
    closed = [line.strip() for line in lines[1:-1] if line.startswith("    </")]
    order = [
        "primary_request_and_intent",
        "key_technical_concepts",
        "files_and_code_sections",
        "errors_and_fixes",
        "problem_solving",
        "all_user_messages",
        "pending_tasks",
        "current_work",
        "next_step",
    ]
    assert opened == [f"<{tag}>" for tag in order if f"<{tag}>" in opened], summary
    assert closed == [tag.replace("<", "</") for tag in opened], summary
    assert {"<primary_request_and_intent>", "<current_work>", "<next_step>"} <= set(opened), summary
    assert all(line.startswith("        - ") for line in lines[1:-1] if line.strip() and not line.startswith("    <"))


def test_a_previous_state_snapshot_is_read_back_by_its_sections() -> None:
    from cutline.core.summarizers.earlier_summary import parse_items

    snapshot = (
        "<state_snapshot>\n    <primary_request_and_intent>\n        - Add a --bbox flag to the tiler.\n"
        "    </primary_request_and_intent>\n    <current_work>\n        - Wiring the flag into tiler/cli.py.\n"
        "    </current_work>\n</state_snapshot>"
    )
    assert parse_items(snapshot) == [
        ("goal", "Add a --bbox flag to the tiler."),
        ("in_progress", "Wiring the flag into tiler/cli.py."),
    ]
