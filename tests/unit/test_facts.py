"""Fact extraction and the matching rule, on hand-written messages whose facts are known."""

from __future__ import annotations

from cutline.core.facts import (
    Fact,
    content_words,
    extract_facts,
    find_identifiers,
    match_facts,
    message_facts,
    normalize_identifier,
    summary_facts,
)
from cutline.core.models import Entry, Message, TextBlock, ToolCallBlock, ToolResultBlock


def _user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text=text)])


def _assistant(text: str, calls: list[ToolCallBlock] | None = None) -> Message:
    return Message(role="assistant", content=[TextBlock(text=text), *(calls or [])])


def _kinds(facts: list[Fact]) -> dict[str, list[str]]:
    result: dict[str, list[str]] = {}
    for fact in facts:
        result.setdefault(fact.kind, []).append(fact.text)
    return result


def test_user_message_yields_instructions_requests_and_identifiers() -> None:
    facts = message_facts(
        _user(
            "Please fix the login bug in src/auth/login.py. Never push to main directly. "
            "The staging API runs at localhost:8080. Why is the build slow?"
        ),
        "u1",
    )
    kinds = _kinds(facts)
    assert kinds["instruction"] == ["Never push to main directly."]
    assert kinds["request"] == ["Please fix the login bug in src/auth/login.py.", "Why is the build slow?"]
    assert kinds["identifier"] == ["src/auth/login.py", "localhost:8080"]
    assert all(f.source_entry_id == "u1" for f in facts)
    # a plain statement is neither an instruction nor a request
    assert not any("staging API runs" in f.text for f in facts if f.kind != "identifier")


def test_each_identifier_kind_is_found_and_lookalikes_are_not() -> None:
    text = (
        "See https://example.com/docs/api/, mail jane.doe@example.org, id a3f9c2d1e5, "
        "order 48213377, host db.internal.example.com:5432, name `parse_config`, file ~/notes/todo.md "
        "and README.md; but not and/or, 2024/01/02, 12:30, 12345, deadbeefcafe or app.py:12"
    )
    found = find_identifiers(text)
    assert ("url", "https://example.com/docs/api/") in found
    assert ("email", "jane.doe@example.org") in found
    assert ("hex", "a3f9c2d1e5") in found
    assert ("number", "48213377") in found
    assert ("host_port", "db.internal.example.com:5432") in found
    assert ("name", "parse_config") in found
    assert ("path", "~/notes/todo.md") in found
    assert ("path", "README.md") in found
    values = [v for _, v in found]
    for lookalike in ("and/or", "2024/01/02", "12:30", "12345", "deadbeefcafe"):
        assert lookalike not in values
    # a bare file name with a line number is a source-line ref (`_ssl.c:1006`): noise, neither a path nor a host:port
    assert not any("app.py" in v for _, v in found)


def test_assistant_decisions_and_tool_call_paths() -> None:
    message = _assistant(
        "I looked at the code. I'll use SQLite for the cache. We decided to go with FastAPI.",
        [
            ToolCallBlock(id="c1", name="read", arguments={"path": "app/server.py"}),
            ToolCallBlock(id="c2", name="bash", arguments={"command": "curl http://localhost:3000/health"}),
        ],
    )
    kinds = _kinds(message_facts(message, "a1"))
    assert kinds["decision"] == ["I'll use SQLite for the cache.", "We decided to go with FastAPI."]
    assert "app/server.py" in kinds["identifier"]
    assert "http://localhost:3000/health" in kinds["identifier"]
    # assistant prose is not mined for user instructions or requests
    assert "instruction" not in kinds and "request" not in kinds


def test_failing_tool_results_become_error_facts() -> None:
    pi_result = Message(
        role="toolResult",
        toolCallId="c1",
        toolName="bash",
        isError=True,
        content=[TextBlock(text="running tests\nModuleNotFoundError: No module named 'yaml'\n")],
    )
    ok_result = Message(
        role="toolResult",
        toolCallId="c2",
        toolName="bash",
        isError=False,
        content=[TextBlock(text="Error: this is just output")],
    )
    claude_result = Message(
        role="user",
        content=[
            ToolResultBlock(toolCallId="c3", isError=True, content=[TextBlock(text="File does not exist: /tmp/x.txt")])
        ],
    )
    bash = Message(role="bashExecution", command="make build", output="make: *** [build] Error 2", exitCode=2)
    assert [f.text for f in message_facts(pi_result) if f.kind == "error"] == [
        "ModuleNotFoundError: No module named 'yaml'"
    ]
    assert [f for f in message_facts(ok_result) if f.kind == "error"] == []
    assert [f.text for f in message_facts(claude_result) if f.kind == "error"] == ["File does not exist: /tmp/x.txt"]
    assert [f.text for f in message_facts(bash) if f.kind == "error"] == ["make: *** [build] Error 2"]


def test_pasted_error_in_user_text() -> None:
    facts = message_facts(
        _user("It crashes with:\n```\nTraceback (most recent call last):\nValueError: bad value 42\n```"), "u9"
    )
    assert [f.text for f in facts if f.kind == "error"] == ["ValueError: bad value 42"]


def test_extract_facts_dedupes_and_skips_summaries() -> None:
    entries = [
        Entry(id="e1", type="message", message=_user("Never use sudo.")),
        Entry(id="e2", type="message", message=_user("never use sudo")),
        Entry(id="e3", type="message", message=_user("Always run `make lint`."), isCompactSummary=True),
        Entry(id="e4", type="message", message=Message(role="compactionSummary", summary="Never delete data/")),
    ]
    facts = extract_facts(entries)
    assert [(f.kind, f.text, f.source_entry_id) for f in facts] == [("instruction", "Never use sudo.", "e1")]


def test_identifier_matching_is_exact_after_normalization() -> None:
    facts = [
        Fact(kind="identifier", text="./src/App.py", key=normalize_identifier("./src/App.py"), identifier_kind="path"),
        Fact(kind="identifier", text="48213377", key="48213377", identifier_kind="number"),
        Fact(kind="identifier", text="a3f9c2d1", key="a3f9c2d1", identifier_kind="hex"),
        Fact(
            kind="identifier",
            text="https://x.io/a/",
            key=normalize_identifier("https://x.io/a/"),
            identifier_kind="url",
        ),
    ]
    verdicts = match_facts(
        facts, ["Edited `src/app.py`; order 482133771 shipped; commit a3f9c2d1e5; docs at https://x.io/a"]
    )
    assert [v.retained for v in verdicts] == [True, False, False, True]


def test_sentence_matching_by_overlap_both_directions() -> None:
    instruction = Fact(
        kind="instruction", text="Never push to the main branch directly.", key="never push to the main branch directly"
    )
    request = Fact(
        kind="request",
        text="Please migrate the billing tables to Postgres.",
        key="please migrate the billing tables to postgres",
    )
    summary_keeps = "## Constraints & Preferences\n- Do not push directly to main branch\n## Goal\n- Migrate billing tables to Postgres"
    summary_drops = "## Goal\n- Improve the login page\n## Progress\n- Pushed a fix for the main menu"
    kept = match_facts([instruction, request], [summary_keeps])
    assert [(v.retained, v.rule) for v in kept] == [(True, "overlap"), (True, "overlap")]
    dropped = match_facts([instruction, request], [summary_drops])
    assert [v.retained for v in dropped] == [False, False]


def test_words_spread_over_segments_do_not_match() -> None:
    fact = Fact(
        kind="decision", text="I'll cache the parsed tokens in Redis.", key="i'll cache the parsed tokens in redis"
    )
    spread = "We parsed the file.\nTokens are counted later.\nRedis is not installed.\nThe cache is cold."
    assert match_facts([fact], [spread])[0].retained is False
    assert match_facts([fact], ["Decision: cache parsed tokens in Redis"])[0].retained is True


def test_negation_keeps_opposites_apart() -> None:
    fact = Fact(kind="instruction", text="Don't use tabs.", key="don't use tabs")
    assert match_facts([fact], ["Use tabs everywhere"])[0].retained is False
    assert match_facts([fact], ["- never use tabs"])[0].retained is True
    assert content_words("Don't use tabs") == {"not", "tab"}


def test_identifiers_inside_a_sentence_carry_it() -> None:
    fact = message_facts(_user("Only edit config/prod.yaml after review."), "u1")[0]
    assert fact.kind == "instruction" and fact.identifiers == ["config/prod.yaml"]
    verdict = match_facts([fact], ["Files touched: config/prod.yaml"])[0]
    assert verdict.retained and verdict.rule == "identifiers"


def test_summary_facts_by_section() -> None:
    summary = (
        "## Goal\nShip the importer for `orders.csv`.\n\n## Constraints & Preferences\n- Keep memory under 2 GB\n"
        "## Key Decisions\n- **Parser**: use the csv module\n## Progress\n### Done\n- [x] Wrote tests\n"
        "<read-files>\nsrc/io.py\n</read-files>"
    )
    kinds = _kinds(summary_facts(summary, "c1"))
    assert kinds["request"] == ["Ship the importer for `orders.csv`."]
    assert kinds["instruction"] == ["Keep memory under 2 GB"]
    assert kinds["decision"] == ["**Parser**: use the csv module"]
    assert set(kinds["identifier"]) == {"orders.csv", "src/io.py"}


def test_imperatives_beyond_the_verb_list_and_statements_that_are_not() -> None:
    facts = message_facts(
        _user(
            "Morning. We're cutting ledger 2.4.0 today. Fan the release checklist out to subagents. "
            "Tests fail on main. Deployed yesterday to prod. Bump the version."
        ),
        "u1",
    )
    assert [f.text for f in facts if f.kind == "request"] == [
        "Fan the release checklist out to subagents.",
        "Bump the version.",
    ]


def test_tool_call_arguments_name_identifiers_but_file_contents_do_not() -> None:
    message = _assistant(
        "",
        [
            ToolCallBlock(
                id="c1",
                name="sessions_spawn",
                arguments={
                    "task": "Check `integration/payments` for run sub_85fed2c4",
                    "files": ["tests/conftest.py", "ci.yml"],
                },
            ),
            ToolCallBlock(
                id="c2",
                name="write",
                arguments={"path": "notes.md", "content": "see /etc/hosts and https://example.org"},
            ),
        ],
    )
    identifiers = [f.text for f in message_facts(message, "a1") if f.kind == "identifier"]
    assert identifiers == ["integration/payments", "85fed2c4", "tests/conftest.py", "ci.yml", "notes.md"]


def test_error_line_prefers_verdicts_and_exceptions() -> None:
    from cutline.core.facts import error_text

    pytest_output = (
        "F..\n=== FAILURES ===\n    assert r.status_code == 200\nE       assert 404 == 200\n"
        "E        +  where 404 = <Response [404 Not Found]>.status_code\n\ntests/test_export.py:7: AssertionError\n"
        "FAILED tests/test_export.py::test_export_route_not_shadowed - assert 404 == 200\n1 failed, 2 passed"
    )
    assert (
        error_text(pytest_output) == "FAILED tests/test_export.py::test_export_route_not_shadowed - assert 404 == 200"
    )
    traceback = "Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\nKeyError: 'id'"
    assert error_text(traceback) == "KeyError: 'id'"
    assert error_text("warning: unused\nerror[E0382]: borrow of moved value") == "error[E0382]: borrow of moved value"
    assert error_text("permission denied while opening /etc/shadow") == "permission denied while opening /etc/shadow"
    assert error_text("exit 3") == "exit 3"


def test_claude_code_style_tool_result_error_yields_one_fact() -> None:
    message = Message(
        role="toolResult",
        toolName="Bash",
        toolCallId="t",
        isError=True,
        content=[
            ToolResultBlock(
                toolCallId="t",
                isError=True,
                content=[TextBlock(text="ls: cannot access 'x': No such file or directory")],
            )
        ],
    )
    assert [f.text for f in message_facts(message) if f.kind == "error"] == [
        "ls: cannot access 'x': No such file or directory"
    ]


def test_absolute_path_under_cwd_matches_its_relative_form() -> None:
    fact = Fact(
        kind="identifier",
        text="/home/dana/src/snip/src/snip/app.py",
        key="/home/dana/src/snip/src/snip/app.py",
        identifier_kind="path",
    )
    assert match_facts([fact], ["edited src/snip/app.py"], cwd="/home/dana/src/snip")[0].retained is True
    assert match_facts([fact], ["edited src/snip/app.py"])[0].retained is False
    assert match_facts([fact], ["edited snip/app.py"], cwd="/home/dana/src/snip")[0].retained is False


def test_narrative_sentences_are_not_requests() -> None:
    facts = message_facts(
        _user(
            "Last night one API client hammered the links endpoint. Ah, that .envrc is from last month. "
            "Same branch is fine, separate commit. Client code crashed twice. Ignore it, I'll delete it. "
            "Replay the incident against a local setup."
        ),
        "u1",
    )
    assert [f.text for f in facts if f.kind == "request"] == [
        "Ignore it, I'll delete it.",
        "Replay the incident against a local setup.",
    ]


def test_a_request_split_over_two_summary_sentences_still_matches() -> None:
    fact = Fact(
        kind="request",
        text="Take click counting off the hot path: buffer clicks in memory and flush in batches.",
        key="x",
    )
    split = (
        "## Goal\nTake click counting off the redirect hot path. Buffer increments in memory and flush them in batches."
    )
    assert match_facts([fact], [split])[0].retained is True
    # neither sentence alone holds 60% of the request's words
    assert match_facts([fact], ["Take click counting off the redirect hot path."])[0].retained is False
    # the same two sentences in different texts (summary vs a kept message) are not paired
    apart = ["Take click counting off the redirect hot path.", "Buffer increments in memory and flush them in batches."]
    assert match_facts([fact], apart)[0].retained is False
