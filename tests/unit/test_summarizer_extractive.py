"""The offline extractive summarizer: a summary an agent can continue from, in its agent's shape, short, deterministic.

Rewritten with issue 23: the old tests pinned the old output (every user message as a
goal, the last user message as In Progress, identifiers listed in Critical Context,
"Resolve the failure of" a grep that found nothing); these state what the summary must
hold instead.
"""

from __future__ import annotations

import re

from cutline.core.models import Message, TextBlock, ToolCallBlock, ToolResultBlock
from cutline.core.summarizers.base import SummaryRequest
from cutline.core.summarizers.extractive import ExtractiveSummarizer, parse_summary, summarize_extractive
from cutline.core.summarizers.user_text import read_user_text

# a file read whose output is long: real spans are mostly tool output, and the summary must be shorter than the span
LONG_OUTPUT = "\n".join(f"line {n}: nothing of note here, just filler output" for n in range(80))


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text=text)])


def assistant(text: str = "", *calls: ToolCallBlock) -> Message:
    blocks: list = [TextBlock(text=text)] if text else []
    return Message(role="assistant", content=[*blocks, *calls])


def call(call_id: str, name: str, **arguments: object) -> ToolCallBlock:
    return ToolCallBlock(id=call_id, name=name, arguments=arguments)


def result(call_id: str, text: str, error: bool = False, name: str = "bash") -> Message:
    return Message(role="toolResult", toolCallId=call_id, toolName=name, isError=error, content=[TextBlock(text=text)])


def filler(n: int = 0) -> list[Message]:
    """A long read of an unrelated file: the bulk a real span carries."""
    return [assistant("", call(f"f{n}", "read", path=f"docs/notes_{n}.md")), result(f"f{n}", LONG_OUTPUT, name="read")]


def section(summary: str, heading: str) -> list[str]:
    """The lines under one heading (up to the next heading of any level, Claude Code's "N. Title:" included)."""
    lines = summary.splitlines()
    start = lines.index(heading) + 1
    body: list[str] = []
    for line in lines[start:]:
        if line.startswith("#") or re.match(r"^\d+\. [A-Z][\w ]+:$", line):
            break
        if line:
            body.append(line)
    return body


MIGRATION = [
    user(
        "Migrate the billing service to Postgres 16. Never drop the legacy_invoices table. "
        "Always run `make check` before committing."
    ),
    *filler(1),
    assistant(
        "I'll read the config first. The staging DB is at db.internal.example.com:5432.",
        call("c1", "read", path="config/database.yml"),
    ),
    result("c1", "adapter: postgresql", name="read"),
    assistant("", call("c2", "bash", command="make check")),
    result("c2", "running 12 checks\nError: connection refused to 10.0.0.7:5432\n", error=True),
    assistant(
        "Going with pg_upgrade instead of a dump, commit 9f3c2ab7e1 has the schema.",
        call("c3", "write", path="scripts/upgrade.sh", content="pg_upgrade ..."),
    ),
    result("c3", "written", name="write"),
    user("ok"),
    user("/model claude-sonnet-4-5"),
    user("Good. Email ops@example.com when done, order 20240611 is blocked on this."),
    *filler(2),
]


async def test_history_summary_in_pis_sections() -> None:
    summary = await ExtractiveSummarizer().summarize(SummaryRequest(messages=MIGRATION))
    # the task set; its rules are listed as rules
    assert section(summary, "## Goal") == ["- Migrate the billing service to Postgres 16."]
    assert section(summary, "## Constraints & Preferences") == [
        "- Never drop the legacy_invoices table.",
        "- Always run `make check` before committing.",
    ]
    # the latest ask verbatim, and what was done last
    assert section(summary, "### In Progress") == [
        "- [ ] Good. Email ops@example.com when done, order 20240611 is blocked on this.",
        "- [ ] Last actions: read `docs/notes_2.md`",
    ]
    assert section(summary, "### Blocked") == ["- `make check` failed: Error: connection refused to 10.0.0.7:5432"]
    assert section(summary, "## Key Decisions") == [
        "- Going with pg_upgrade instead of a dump, commit 9f3c2ab7e1 has the schema."
    ]
    assert "- `scripts/upgrade.sh`: written" in section(summary, "## Critical Context")
    # acknowledgements and slash commands are nowhere
    assert "/model" not in summary and "- ok" not in summary.lower()


def test_same_input_same_output() -> None:
    request = SummaryRequest(messages=MIGRATION, custom_instructions="the staging database")
    first = summarize_extractive(request)
    again = summarize_extractive(SummaryRequest.model_validate(request.model_dump()))
    assert first == again


def test_never_longer_than_what_it_replaces() -> None:
    """A small span gets a small summary: no "(none)" headings padding it past the span itself."""
    messages = [
        user("What does `frobnicate` do in the billing module, and is it safe to call twice?"),
        assistant("It frobs the ledger; calling it twice double-counts refunds, so guard it with the idempotency key."),
    ]
    summary = summarize_extractive(SummaryRequest(messages=messages))
    assert len(summary) < sum(len(m.text()) for m in messages)
    assert "What does `frobnicate` do in the billing module, and is it safe to call twice?" in summary
    assert "(none)" not in summary


def test_acknowledgements_slash_commands_pastes_and_injected_text_are_no_goal_or_rule() -> None:
    messages = [
        user(
            "<system-reminder>\nAttribution for git commits: end every commit with Co-Authored-By: "
            "Claude <noreply@example.com>, never omit it.\n</system-reminder>"
        ),
        user("Fix the crash when the config file is missing."),
        *filler(1),
        user(
            "here's what I get:\nTypeError: Cannot read properties of undefined (reading 'path')\n"
            "    at loadConfig (/app/src/config.js:12:5)\n    return binding.readFileUtf8(path, stringToFlags(flags));\n"
            "Node.js v23.4.0"
        ),
        user("continue"),
        user("/mode fast"),
        user("<command-name>/compact</command-name>\n<command-message>compact</command-message>"),
        user("<local-command-stdout>Compacted</local-command-stdout>"),
        user("[Request interrupted by user]"),
        user("dude sleep 5 seconds via bash"),
        *filler(2),
    ]
    summary = summarize_extractive(SummaryRequest(messages=messages))
    goal = section(summary, "## Goal")
    assert goal == ["- Fix the crash when the config file is missing."]
    assert "## Constraints & Preferences" not in summary
    for noise in ("system-reminder", "Co-Authored-By", "/mode", "/compact", "Compacted", "Node.js v23", "binding.read"):
        assert noise not in summary, noise
    assert section(summary, "### In Progress")[0] == "- [ ] dude sleep 5 seconds via bash"


def test_read_user_text_kinds() -> None:
    assert read_user_text("ok").kind == "ack"
    assert read_user_text("Thanks, continue.").kind == "ack"
    assert read_user_text("/compact keep the API notes").kind == "slash"
    assert read_user_text("<system-reminder>be brief</system-reminder>").kind == "injected"
    assert read_user_text("    at Object.<anonymous> (/a/b.js:1:2)\nNode.js v23.4.0").kind == "pasted"
    assert read_user_text("This session is being continued from a previous conversation ...").kind == "summary"
    assert read_user_text("Add a --bbox flag.").kind == "ask"


def test_in_progress_names_the_task_under_way_with_its_last_actions() -> None:
    """The last ask of the span is under way: the tool activity after it is what was being done at the cut."""
    messages = [
        user("Add pagination to the /orders endpoint."),
        *filler(1),
        assistant("Done, pagination is in.", call("e1", "edit", path="api/orders.py", oldText="a", newText="b")),
        result("e1", "ok", name="edit"),
        user("Now port the CSV export to the streaming writer."),
        assistant("I'll start with the writer.", call("e2", "edit", path="export/csv.py", oldText="a", newText="b")),
        result("e2", "ok", name="edit"),
        assistant("", call("t", "bash", command="pytest tests/test_export.py")),
        result("t", "FAILED tests/test_export.py::test_stream - AssertionError: 3 != 4", error=True),
        assistant("Next I'll fix the off-by-one in the row counter."),
    ]
    summary = summarize_extractive(SummaryRequest(messages=messages))
    assert section(summary, "### In Progress") == [
        "- [ ] Now port the CSV export to the streaming writer.",
        "- [ ] Last actions: edited `export/csv.py`; ran `pytest tests/test_export.py` (failed)",
    ]
    assert section(summary, "## Goal") == ["- Add pagination to the /orders endpoint."]
    assert section(summary, "## Next Steps") == ["1. Next I'll fix the off-by-one in the row counter."]
    assert section(summary, "### Blocked") == [
        "- `pytest tests/test_export.py` failed: FAILED tests/test_export.py::test_stream - AssertionError: 3 != 4"
    ]


def test_searches_that_found_nothing_and_user_aborts_are_not_failures() -> None:
    messages = [
        user("Find where the console logging happens and remove it."),
        *filler(1),
        assistant("", call("g", "bash", command='grep -rn "console" src/')),
        result("g", "(no output)\n\nCommand exited with code 1", error=True),
        assistant("", call("g2", "Grep", pattern="console.log")),
        result("g2", "No matches found", error=True, name="Grep"),
        assistant("", call("s", "bash", command="sleep 30")),
        result("s", "Command aborted", error=True),
        assistant("", call("b", "bash", command="npm run build")),
        result("b", "src/app.ts(3,1): error TS2304: Cannot find name 'logger'.", error=True),
    ]
    summary = summarize_extractive(SummaryRequest(messages=messages))
    assert section(summary, "### Blocked") == [
        "- `npm run build` failed: src/app.ts(3,1): error TS2304: Cannot find name 'logger'."
    ]
    # what ran is activity, not a failure to resolve
    assert "Resolve the failure of `grep" not in summary and "failed: Command aborted" not in summary
    assert section(summary, "## Next Steps")[0] == "1. Resolve the failure of `npm run build`"


def test_a_failure_that_later_succeeded_is_not_blocking() -> None:
    messages = [
        user("Make the tests pass."),
        *filler(1),
        assistant("", call("a", "bash", command="CI=1 npm test -- --verbose")),
        result("a", "FAIL src/x.test.ts\nTypeError: x is undefined", error=True),
        assistant("", call("b", "bash", command="npm test")),
        result("b", "all green"),
        assistant("", call("c", "bash", command="python -m tiler.build --zoom 14")),
        result("c", "MemoryError: unable to allocate 3.2 GiB", error=True),
        assistant("", call("d", "bash", command="python manage.py migrate")),
        result("d", "ok"),
    ]
    summary = summarize_extractive(SummaryRequest(messages=messages, prompt_name="claude-code"))
    # `python manage.py` succeeding does not resolve `python -m tiler.build`
    errors = section(summary, "4. Errors and fixes:")
    assert errors == [
        "   - `python -m tiler.build --zoom 14` failed: MemoryError: unable to allocate 3.2 GiB",
        "   - `CI=1 npm test -- --verbose` failed (TypeError: x is undefined), later succeeded",
    ]


def test_a_later_rule_replaces_the_earlier_one_and_rules_are_listed_once() -> None:
    messages = [
        user("Set up the API server. Always bind the server to port 8443. Never log the Authorization header."),
        *filler(1),
        user("Never log the Authorization header."),
        assistant("Understood."),
        user("Actually, bind it to port 8080 instead."),
        user("I'd rather you use pnpm than npm for installs."),
        *filler(2),
        user("Scratch the pnpm preference; npm is fine for installs."),
    ]
    rules = section(summarize_extractive(SummaryRequest(messages=messages)), "## Constraints & Preferences")
    assert rules == [
        "- Never log the Authorization header.",
        "- Actually, bind it to port 8080 instead.",
        "- Scratch the pnpm preference; npm is fine for installs.",
    ]


def test_update_merges_the_previous_summary_item_by_item() -> None:
    previous = """## Goal
- Ship v2 of the API

## Constraints & Preferences
- Never break /v1 clients

## Progress
### Done
- [x] Drafted the schema:
  `orders` and `refunds` tables,
  both keyed by UUID

### In Progress
- [ ] Write the migration

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
        *filler(1),
        assistant("", call("e", "edit", path="api/limits.py", oldText="a", newText="b")),
        result("e", "ok", name="edit"),
    ]
    summary = summarize_extractive(SummaryRequest(kind="update", messages=messages, previous_summary=previous))
    assert section(summary, "## Goal") == ["- Ship v2 of the API"]
    assert section(summary, "## Constraints & Preferences") == ["- Never break /v1 clients"]
    # the multi-line item stays one item; the earlier in-progress work is done now that the user moved on
    assert section(summary, "### Done") == [
        "- [x] Drafted the schema:",
        "  `orders` and `refunds` tables,",
        "  both keyed by UUID",
        "- [x] Write the migration",
    ]
    assert section(summary, "### In Progress")[0] == "- [ ] Now add rate limiting. Never break /v1 clients."
    assert section(summary, "## Key Decisions") == ["- **Use UUIDs**: stable across shards"]
    assert "- `api/limits.py`: edited" in section(summary, "## Critical Context")
    assert "- Staging at staging.example.com:8443" in section(summary, "## Critical Context")
    assert "<read-files>" not in summary and "docs/api.md" not in summary


def test_a_claude_code_summary_in_the_span_is_merged_not_split_into_lines() -> None:
    earlier = (
        "This session is being continued from a previous conversation that ran out of context. "
        "The summary below covers the earlier portion of the conversation.\n\n"
        "<system-reminder>\n<tools-used-before-summary>Bash, Read</tools-used-before-summary>\n</system-reminder>\n"
        "Summary:\n1. Primary Request and Intent:\n   The user wants the importer to accept CSV files.\n\n"
        "7. Pending Tasks:\n   - Support quoted fields\n"
    )
    messages = [user(earlier), user("Go on with the quoted fields."), *filler(1)]
    summary = summarize_extractive(SummaryRequest(messages=messages, prompt_name="claude-code"))
    assert "system-reminder" not in summary and "tools-used-before-summary" not in summary
    assert section(summary, "1. Primary Request and Intent:") == [
        "   - The user wants the importer to accept CSV files."
    ]
    assert "   - Support quoted fields" in section(summary, "9. Optional Next Step:")
    assert section(summary, "8. Current Work:")[0] == "   - Go on with the quoted fields."


def test_codex_and_openclaw_shapes() -> None:
    codex = summarize_extractive(SummaryRequest(messages=MIGRATION, prompt_name="codex"))
    assert section(codex, "## Latest request (verbatim)") == [
        "Good. Email ops@example.com when done, order 20240611 is blocked on this."
    ]
    assert "## Task" in codex and "## Next steps" in codex
    openclaw = summarize_extractive(SummaryRequest(messages=MIGRATION, prompt_name="openclaw-safeguard"))
    headings = [line for line in openclaw.splitlines() if line.startswith("## ")]
    assert headings == [
        "## Decisions",
        "## Open TODOs",
        "## Constraints/Rules",
        "## Pending user asks",
        "## Exact identifiers",
    ]
    asks = section(openclaw, "## Pending user asks")
    assert asks[0] == "- Good. Email ops@example.com when done, order 20240611 is blocked on this."


def test_turn_prefix_uses_pis_turn_sections() -> None:
    messages = [
        user("Refactor the parser in src/parse.rs and keep the public API. Don't touch tests."),
        *filler(1),
        assistant("I'll split it into modules, going with one module per grammar rule."),
        assistant("", call("w", "write", path="src/parse/mod.rs", content="x")),
        result("w", "ok", name="write"),
    ]
    summary = summarize_extractive(SummaryRequest(kind="turn_prefix", messages=messages))
    assert section(summary, "## Original Request") == [
        "Refactor the parser in src/parse.rs and keep the public API. Don't touch tests."
    ]
    assert "- I'll split it into modules, going with one module per grammar rule." in section(
        summary, "## Early Progress"
    )
    context = section(summary, "## Context for Suffix")
    assert "- Don't touch tests." in context and "- `src/parse/mod.rs`: written" in context


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


def test_budget_drops_lowest_priority_items_whole() -> None:
    messages = [user("Audit the links. You must keep the report under 2 pages.")]
    for n in range(40):
        messages += [
            assistant("", call(f"r{n}", "read", path=f"pages/page_{n:03d}.html")),
            result(f"r{n}", LONG_OUTPUT, name="read"),
        ]
    messages.append(user("Now write the report to report.md"))
    small = summarize_extractive(SummaryRequest(messages=messages, max_tokens=120))
    assert len(small) <= 120 * 4
    # the rule and the latest ask survive; read files go first, whole
    assert "- You must keep the report under 2 pages." in small
    assert "- [ ] Now write the report to report.md" in small
    assert all(
        re.fullmatch(r"- `pages/page_\d{3}\.html`: read", line) for line in small.splitlines() if "pages/" in line
    )


def test_claude_code_tool_results_in_user_records_are_results_not_asks() -> None:
    messages = [
        user("Rename the helper in src/util.py"),
        *filler(1),
        assistant("", call("toolu_1", "Edit", file_path="/repo/src/util.py", old_string="a", new_string="b")),
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
    assert section(summary, "### Blocked") == [
        "- `Edit` `/repo/src/util.py` failed: String to replace not found in file."
    ]
    assert section(summary, "### In Progress")[0] == "- [ ] Rename the helper in src/util.py"
    assert "- `/repo/src/util.py`: read" not in summary


def test_a_finished_last_ask_is_done_not_in_progress() -> None:
    """On a split turn the history part ends with a finished step; the step under way is in the turn prefix."""
    messages = [
        user("Step 5: make src/ledger/parse.py handle empty ledgers and keep the CSV order."),
        *filler(1),
        assistant("", call("r", "read", path="src/ledger/report.py")),
        result("r", "ENOENT: no such file", error=True, name="read"),
        assistant("", call("e", "edit", path="src/ledger/report.py", oldText="a", newText="b")),
        result("e", "Successfully replaced 1 block.", name="edit"),
        assistant("Done with step 5: `src/ledger/parse.py` now returns an empty list."),
    ]
    summary = summarize_extractive(SummaryRequest(messages=messages))
    # an ask without a request form is still the ask of its turn
    assert section(summary, "## Goal") == [
        "- Step 5: make src/ledger/parse.py handle empty ledgers and keep the CSV order."
    ]
    assert section(summary, "### Done") == [
        "- [x] Step 5: make src/ledger/parse.py handle empty ledgers and keep the CSV order."
    ]
    assert "### In Progress\n- [ ] Step 5" not in summary
    # the failed read of a file that was then edited is no blocker
    assert "### Blocked" not in summary


def test_codex_agents_md_turn_is_no_goal() -> None:
    agents = (
        "# AGENTS.md instructions for /home/dana/src/snip\n\n<INSTRUCTIONS>\n- Python 3.12, FastAPI.\n"
        "- Run `pytest -q` before declaring anything done.\n</INSTRUCTIONS>"
    )
    messages = [user(agents), user("Make cursors opaque and signed, reject integer cursors."), *filler(1)]
    summary = summarize_extractive(SummaryRequest(messages=messages, prompt_name="codex"))
    assert section(summary, "## Task") == ["- Make cursors opaque and signed, reject integer cursors."]
    assert "AGENTS.md" not in summary and "pytest -q" not in summary


def test_the_code_names_the_work_touched_are_carried_not_every_identifier_seen() -> None:
    """Functions, classes, config keys and flags the user named, the assistant named, or an edit changed."""
    source = "\n".join(f"def helper_{n}(x):\n    return other_name_{n}(x)" for n in range(30))
    messages = [
        user("Add a --dry-run flag to the exporter; the row limit comes from the `export.max_rows` key."),
        assistant("", call("r", "read", path="export/cli.py")),
        result("r", source, name="read"),  # read, not worked on: none of its 60 names is carried
        assistant(
            "The rows are written by `RowWriter.flush()`; the status template is `Saving ${count}` and I ran "
            "`make check`.",
            call(
                "e",
                "edit",
                path="export/cli.py",
                oldText="def parse_args(argv):",
                newText="def parse_args(argv, dry_run):",
            ),
        ),
        result("e", "ok", name="edit"),
        *filler(1),
        user("Keep going with writeBatch too."),
    ]
    summary = summarize_extractive(SummaryRequest(messages=messages))
    names = next(line for line in summary.splitlines() if line.startswith("- Code names worked on: "))
    carried = re.findall(r"`([^`]+)`", names)
    assert set(carried) == {"--dry-run", "export.max_rows", "RowWriter.flush()", "parse_args", "writeBatch"}
    assert "helper_" not in summary and "other_name_" not in summary
    # the same names in Claude Code's files-and-code section and Codex's files
    cc = summarize_extractive(SummaryRequest(messages=messages, prompt_name="claude-code"))
    assert any("`RowWriter.flush()`" in line for line in section(cc, "3. Files and Code Sections:"))
    codex = summarize_extractive(SummaryRequest(messages=messages, prompt_name="codex"))
    assert any("`parse_args`" in line for line in section(codex, "## Files"))


def test_the_offline_summarizer_is_not_built_from_the_audits_rules() -> None:
    """The audit (core/facts.py, core/audit/) judges the summary: the summarizer must not share its extraction."""
    import ast
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "core" / "summarizers"
    for module in sorted(folder.glob("*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        imported = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not {name for name in imported if ".core.facts" in name or ".core.audit" in name}, module.name
