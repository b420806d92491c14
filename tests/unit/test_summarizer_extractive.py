"""The offline extractive summarizer: pi's sections filled from the conversation, within a budget, deterministic."""

from __future__ import annotations

import re

from cutline.core.models import Message, TextBlock, ToolCallBlock, ToolResultBlock
from cutline.core.summarizers.base import SummaryRequest
from cutline.core.summarizers.extractive import ExtractiveSummarizer, parse_summary, summarize_extractive


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text=text)])


def assistant(text: str = "", *calls: ToolCallBlock) -> Message:
    blocks: list = [TextBlock(text=text)] if text else []
    return Message(role="assistant", content=[*blocks, *calls])


def result(call_id: str, text: str, error: bool = False, name: str = "bash") -> Message:
    return Message(role="toolResult", toolCallId=call_id, toolName=name, isError=error, content=[TextBlock(text=text)])


def section(summary: str, heading: str) -> list[str]:
    """The lines under one heading (up to the next heading of any level)."""
    lines = summary.splitlines()
    start = lines.index(heading) + 1
    body: list[str] = []
    for line in lines[start:]:
        if line.startswith("#"):
            break
        if line:
            body.append(line)
    return body


MIGRATION = [
    user(
        "Migrate the billing service to Postgres 16. Never drop the legacy_invoices table. "
        "Always run `make check` before committing."
    ),
    assistant(
        "I'll read the config first. The staging DB is at db.internal.example.com:5432 and the ticket is "
        "https://tracker.example.com/T-4411.",
        ToolCallBlock(id="c1", name="read", arguments={"path": "config/database.yml"}),
    ),
    result("c1", "adapter: postgresql", name="read"),
    assistant("", ToolCallBlock(id="c2", name="bash", arguments={"command": "make check"})),
    result("c2", "running 12 checks\nError: connection refused to 10.0.0.7:5432\n", error=True),
    assistant(
        "Going with pg_upgrade instead of a dump, commit 9f3c2ab7e1 has the schema.",
        ToolCallBlock(id="c3", name="write", arguments={"path": "scripts/upgrade.sh", "content": "pg_upgrade ..."}),
    ),
    result("c3", "written", name="write"),
    user("Good. Email ops@example.com when done, order 20240611 is blocked on this."),
]

MIGRATION_SUMMARY = """## Goal
- Migrate the billing service to Postgres 16. Never drop the legacy_invoices table. Always run `make check` before committing.

## Constraints & Preferences
- Never drop the legacy_invoices table.
- Always run `make check` before committing.

## Progress
### Done
- [x] Modified `scripts/upgrade.sh`

### In Progress
- [ ] Good. Email ops@example.com when done, order 20240611 is blocked on this.

### Blocked
- `bash` `make check` failed: Error: connection refused to 10.0.0.7:5432

## Key Decisions
- I'll read the config first.
- Going with pg_upgrade instead of a dump, commit 9f3c2ab7e1 has the schema.

## Next Steps
1. Resolve the failure of `bash` `make check`

## Critical Context
- Read `config/database.yml`
- Address: `db.internal.example.com:5432`
- URL: `https://tracker.example.com/T-4411`"""


async def test_history_summary_fills_pis_sections() -> None:
    summary = await ExtractiveSummarizer().summarize(SummaryRequest(messages=MIGRATION))
    assert summary == MIGRATION_SUMMARY


def test_same_input_same_output() -> None:
    request = SummaryRequest(messages=MIGRATION, custom_instructions="the staging database")
    first = summarize_extractive(request)
    again = summarize_extractive(SummaryRequest.model_validate(request.model_dump()))
    assert first == again


def test_empty_sections_say_none() -> None:
    summary = summarize_extractive(SummaryRequest(messages=[user("What does `frobnicate` do?")]))
    assert section(summary, "## Constraints & Preferences") == ["- (none)"]
    assert section(summary, "### Blocked") == ["- (none)"]
    assert section(summary, "### In Progress") == ["- [ ] What does `frobnicate` do?"]


def test_failure_that_later_succeeded_is_not_blocking() -> None:
    call = ToolCallBlock(id="a", name="bash", arguments={"command": "npm test"})
    again = ToolCallBlock(id="b", name="bash", arguments={"command": "npm test"})
    messages = [
        user("Make the tests pass."),
        assistant("", call),
        result("a", "FAIL src/x.test.ts\nTypeError: x is undefined", error=True),
        assistant("", again),
        result("b", "all green"),
    ]
    summary = summarize_extractive(SummaryRequest(messages=messages))
    assert section(summary, "### Blocked") == ["- (none)"]
    assert "- `bash` `npm test` failed, later succeeded: TypeError: x is undefined" in section(
        summary, "## Critical Context"
    )


def test_claude_code_tool_results_and_edits() -> None:
    messages = [
        user("Rename the helper in src/util.py"),
        assistant(
            "",
            ToolCallBlock(
                id="toolu_1",
                name="Edit",
                arguments={"file_path": "/repo/src/util.py", "old_string": "a", "new_string": "b"},
            ),
        ),
        Message(
            role="user",
            content=[
                ToolResultBlock(
                    toolCallId="toolu_1", isError=True, content=[TextBlock(text="String to replace not found in file.")]
                )
            ],
        ),
    ]
    summary = summarize_extractive(SummaryRequest(messages=messages))
    assert section(summary, "### Done") == ["- [x] Modified `/repo/src/util.py`"]
    assert section(summary, "### Blocked") == [
        "- `Edit` `/repo/src/util.py` failed: String to replace not found in file."
    ]
    # the tool-result record is not a user request
    assert section(summary, "### In Progress") == ["- [ ] Rename the helper in src/util.py"]


def test_identifiers_listed_in_critical_context() -> None:
    messages = [
        user("Check the deploy."),
        assistant(
            "Deploy id 3fa85f64-5717-4562-b3fc-2c963f66afa6 ran on build 88812345 via `release.yml`; "
            "owner is jane.doe@example.org."
        ),
        user("Thanks, continue."),
    ]
    context = section(summarize_extractive(SummaryRequest(messages=messages)), "## Critical Context")
    assert context == [
        "- Id: `3fa85f64-5717-4562-b3fc-2c963f66afa6`",
        "- Number: `88812345`",
        "- Name: `release.yml`",
        "- E-mail: `jane.doe@example.org`",
    ]


def test_budget_drops_lowest_priority_items_whole() -> None:
    ids = [f"https://example.com/item/{n:04d}" for n in range(200)]
    messages = [
        user("Audit the links. You must keep the report under 2 pages."),
        assistant("Found: " + " ".join(ids)),
        user("Now write the report to report.md"),
    ]
    full = summarize_extractive(SummaryRequest(messages=messages, max_tokens=100_000))
    assert all(i in full for i in ids)
    budget = 400
    small = summarize_extractive(SummaryRequest(messages=messages, max_tokens=budget))
    assert len(small) <= budget * 4
    # the rule and the requests survive; URLs go, the newest kept longest, none cut in half
    assert "- You must keep the report under 2 pages." in small
    assert "- [ ] Now write the report to report.md" in small
    kept = re.findall(r"https://example\.com/item/\d+", small)
    assert 0 < len(kept) < len(ids)
    assert kept == ids[len(ids) - len(kept) :]
    assert all(f"URL: `{url}`" in small for url in kept)


def test_custom_instructions_listed_and_prioritised() -> None:
    messages = [
        user("Collect facts."),
        assistant("Notes: `payment-gateway` `other-thing` " + " ".join(f"https://a.example/{n}" for n in range(40))),
        user("Go on."),
    ]
    plain = section(summarize_extractive(SummaryRequest(messages=messages, max_tokens=140)), "## Critical Context")
    # without a focus the oldest identifiers go first
    assert "- Name: `payment-gateway`" not in plain and "- Name: `other-thing`" not in plain
    summary = summarize_extractive(
        SummaryRequest(messages=messages, custom_instructions="payment gateway", max_tokens=140)
    )
    assert len(summary) <= 140 * 4
    context = section(summary, "## Critical Context")
    assert "- Focus requested: payment gateway" in context
    assert "- Name: `payment-gateway`" in context
    assert "- Name: `other-thing`" not in context


def test_update_keeps_previous_items_and_adds_new() -> None:
    previous = """## Goal
- Ship v2 of the API

## Constraints & Preferences
- Never break /v1 clients

## Progress
### Done
- [x] Drafted the schema

### In Progress
- [ ] Write the migration

### Blocked
- (none)

## Key Decisions
- **Use UUIDs**: stable across shards

## Next Steps
1. Write the migration

## Critical Context
- Staging at staging.example.com:8443

<read-files>
docs/api.md
</read-files>"""
    messages = [
        user("Now add rate limiting. Never break /v1 clients."),
        assistant(
            "", ToolCallBlock(id="e", name="edit", arguments={"path": "api/limits.py", "oldText": "a", "newText": "b"})
        ),
        result("e", "ok", name="edit"),
    ]
    summary = summarize_extractive(SummaryRequest(kind="update", messages=messages, previous_summary=previous))
    assert section(summary, "## Goal") == ["- Ship v2 of the API", "- Now add rate limiting. Never break /v1 clients."]
    # the same rule from both sources appears once
    assert section(summary, "## Constraints & Preferences") == ["- Never break /v1 clients"]
    # the earlier in-progress item is done now that the user moved on
    assert section(summary, "### Done") == [
        "- [x] Drafted the schema",
        "- [x] Write the migration",
        "- [x] Modified `api/limits.py`",
    ]
    assert section(summary, "### In Progress") == ["- [ ] Now add rate limiting. Never break /v1 clients."]
    assert section(summary, "## Key Decisions") == ["- **Use UUIDs**: stable across shards"]
    assert section(summary, "## Critical Context") == ["- Staging at staging.example.com:8443"]
    assert "<read-files>" not in summary and "docs/api.md" not in summary


def test_turn_prefix_uses_pis_turn_sections() -> None:
    messages = [
        user("Refactor the parser in src/parse.rs and keep the public API. Don't touch tests."),
        assistant(
            "I'll split it into modules.",
            ToolCallBlock(id="w", name="write", arguments={"path": "src/parse/mod.rs", "content": "x"}),
        ),
        result("w", "ok", name="write"),
    ]
    summary = summarize_extractive(SummaryRequest(kind="turn_prefix", messages=messages))
    assert summary == (
        "## Original Request\n"
        "Refactor the parser in src/parse.rs and keep the public API. Don't touch tests.\n\n"
        "## Early Progress\n"
        "- I'll split it into modules.\n"
        "- Modified `src/parse/mod.rs`\n\n"
        "## Context for Suffix\n"
        "- Don't touch tests."
    )


def test_merge_combines_partial_summaries_section_wise() -> None:
    first = (
        "## Goal\n- Port the CLI\n\n## Progress\n### In Progress\n- [ ] Port `init`\n\n## Next Steps\n1. Port `build`"
    )
    second = (
        "## Goal\n- Port the CLI\n\n## Progress\n### In Progress\n- [ ] Port `build`\n\n## Next Steps\n1. Release 0.2"
    )
    summary = summarize_extractive(SummaryRequest(kind="merge", partial_summaries=[first, second]))
    assert section(summary, "## Goal") == ["- Port the CLI"]
    assert section(summary, "### Done") == ["- [x] Port `init`"]
    assert section(summary, "### In Progress") == ["- [ ] Port `build`"]
    assert section(summary, "## Next Steps") == ["1. Release 0.2"]


def test_parse_summary_maps_headings() -> None:
    text = "## Original Request\nDo X\n\n## Tool Failures\n- bash: exit 1\n\n## Last Exchange (Verbatim)\nold chat\n\n---\n\n**Turn Context (split turn):**\n\n## Early Progress\n- did Y"
    assert parse_summary(text) == [("goal", "Do X"), ("context", "bash: exit 1"), ("done", "did Y")]


def test_failure_resolved_by_a_later_run_of_the_same_program_and_fillers_left_out_of_goal() -> None:
    messages = [
        user("Get CI green."),
        assistant("", ToolCallBlock(id="a", name="bash", arguments={"command": "CI=1 pytest -v 2>&1 | tail -50"})),
        result("a", "E   KeyError: 'region'", error=True),
        user("Nice."),
        user("Also the redis check please"),
        assistant("", ToolCallBlock(id="b", name="bash", arguments={"command": "pytest -q"})),
        result("b", "12 passed"),
        assistant("", ToolCallBlock(id="c", name="bash", arguments={"command": "redis-cli ping"})),
        result("c", "Could not connect to Redis at 127.0.0.1:6379: Connection refused", error=True),
        user("ok"),
    ]
    summary = summarize_extractive(SummaryRequest(messages=messages))
    assert section(summary, "## Goal") == ["- Get CI green.", "- Also the redis check please"]
    assert section(summary, "### Blocked") == [
        "- `bash` `redis-cli ping` failed: Could not connect to Redis at 127.0.0.1:6379: Connection refused"
    ]
    assert section(summary, "## Next Steps") == ["1. Resolve the failure of `bash` `redis-cli ping`"]
    assert "- `bash` `CI=1 pytest -v 2>&1 | tail -50` failed, later succeeded: E KeyError: 'region'" in section(
        summary, "## Critical Context"
    )


def test_a_users_condition_or_permission_is_a_constraint_not_work_in_progress() -> None:
    """The job-search rule "inside-IR35 roles are allowed if the rate is £600 or more" used to land under In Progress."""
    summary = summarize_extractive(
        SummaryRequest(
            messages=[
                user("Run the job search from search-prompt.txt. Rates up to £700/day are fine."),
                assistant("Searching LinkedIn first."),
                user(
                    "Good start. But inside-IR35 roles are allowed if the rate is £600 or more — the prompt says so. "
                    "And search 'Azure .NET 8 contract' too."
                ),
                assistant("On it."),
            ]
        )
    )
    assert section(summary, "## Constraints & Preferences") == [
        "- Rates up to £700/day are fine.",
        "- But inside-IR35 roles are allowed if the rate is £600 or more — the prompt says so.",
    ]
    assert section(summary, "### In Progress") == ["- [ ] Good start. And search 'Azure .NET 8 contract' too."]


def test_a_latest_message_that_is_only_a_rule_stays_in_progress_too() -> None:
    summary = summarize_extractive(
        SummaryRequest(
            messages=[
                user("Draft the release notes for 2.4."),
                assistant("Drafting."),
                user("Deploys are allowed only if CI is green."),
            ]
        )
    )
    assert section(summary, "## Constraints & Preferences") == ["- Deploys are allowed only if CI is green."]
    assert section(summary, "### In Progress") == ["- [ ] Deploys are allowed only if CI is green."]
