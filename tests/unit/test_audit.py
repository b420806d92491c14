"""Audits of hand-built compactions whose lost facts, warnings and cut reasons are known in advance."""

from __future__ import annotations

import pytest

from cutline.core.audit.report import audit_compaction, reproducing_ranges
from cutline.core.config.settings import CompactionSettings
from cutline.core.engine.plan import index_path
from cutline.core.errors import CutlineError, NotFoundError
from tests.support.audit_builders import SessionBuilder, sized
from tests.support.paths import TESTS


def _setup_session() -> SessionBuilder:
    b = SessionBuilder()
    b.user("Never use sudo. Please set up the project in ~/work/alpha.", id="u1")
    b.assistant("I'll use poetry for dependencies.", calls=[("c1", "bash", {"command": "poetry install"})], id="a1")
    b.result("c1", "bash: poetry: command not found", error=True, id="t1")
    b.assistant("Poetry is missing, so we decided to go with pipx.", id="a2")
    b.user("Now run the tests in tests/unit.", id="u3")
    b.assistant("All 12 tests pass.", id="a3")
    return b


def test_lost_facts_known_in_advance() -> None:
    b = _setup_session()
    b.compaction(
        "## Constraints & Preferences\n- Never use sudo\n## Progress\n- Project set up in ~/work/alpha", "u3", id="c1"
    )
    report = audit_compaction(b.session(), "c1")
    assert report.summarized_entry_ids == ["u1", "a1", "t1", "a2"]
    assert report.kept_entry_ids == ["u3", "a3"]
    lost = {(f.kind, f.text, f.source_entry_id) for f in report.lost}
    assert lost == {
        ("decision", "I'll use poetry for dependencies.", "a1"),
        ("decision", "Poetry is missing, so we decided to go with pipx.", "a2"),
        ("error", "bash: poetry: command not found", "t1"),
    }
    kept = {(f.kind, f.text) for f in report.facts if f.retained}
    assert kept == {
        ("instruction", "Never use sudo."),
        ("request", "Please set up the project in ~/work/alpha."),
        ("identifier", "~/work/alpha"),
    }
    assert (report.retention_of("decision").kept, report.retention_of("decision").total) == (0, 2)
    assert (report.retention_of("instruction").kept, report.retention_of("instruction").total) == (1, 1)
    assert report.retention_of("request").score == 1.0
    assert report.retention_of("error").score == 0.0
    assert list(report.lost_by_kind()) == ["error", "decision"]
    codes = [w.code for w in report.warnings]
    assert "tool-failures-vanished" in codes
    assert "last-exchange-summarized" not in codes  # u3 is kept


def test_summary_that_keeps_everything_loses_nothing() -> None:
    b = _setup_session()
    b.compaction(
        "Never use sudo. Set up ~/work/alpha.\nDecision: use poetry for dependencies; poetry missing, decided to go with pipx.\n"
        "Tool failures: bash: poetry: command not found (ran `poetry install`)",
        "u3",
        id="c1",
    )
    report = audit_compaction(b.session(), "c1")
    assert report.lost == []
    assert all(r.score in (1.0, None) for r in report.retention)
    assert not report.warnings


def test_displaced_last_exchange_flagged_and_recovered_by_injection() -> None:
    def build(summary: str) -> SessionBuilder:
        b = SessionBuilder()
        b.user("Start the service.", id="u1")
        b.assistant("Started.", id="a1")
        b.user("Rename the table `orders_v2` to `orders`, then stop.", id="u2")
        b.assistant("On it.", calls=[("c1", "bash", {"command": "psql -c 'alter table'"})], id="a2")
        b.result("c1", "ALTER TABLE", id="t1")
        b.assistant("", calls=[("c2", "bash", {"command": "echo ok"})], id="a3")
        b.result("c2", "ok", id="t2")
        b.compaction(summary, "a3", id="c1")
        return b

    plain = audit_compaction(build("## Goal\n- start the service").session(), "c1")
    warning = plain.warning("last-exchange-summarized")
    assert warning is not None and warning.recovered is False
    assert warning.entry_ids == ["u2", "a2"]
    missing = plain.warning("latest-request-not-visible")
    assert missing is not None and "orders_v2" in missing.message

    injected = (
        "## Goal\n- start the service\n\n## Last Exchange (Verbatim)\n"
        "> **User:** Rename the table `orders_v2` to `orders`, then stop.\n> **Assistant:** On it."
    )
    recovered = audit_compaction(build(injected).session(), "c1")
    warning = recovered.warning("last-exchange-summarized")
    assert warning is not None and warning.recovered is True
    assert recovered.warning("latest-request-not-visible") is None


def test_previous_summary_dropped_by_update() -> None:
    b = SessionBuilder()
    b.user("Build the importer.", id="u1")
    b.assistant("Done.", id="a1")
    b.compaction(
        "## Constraints & Preferences\n- Keep memory under 2 GB\n## Key Decisions\n- **Format**: parse with the csv module\n"
        "## Critical Context\n- customer id 99812734",
        "a1",
        id="c1",
    )
    b.user("Add a progress bar.", id="u2")
    b.assistant("Added.", id="a2")
    b.user("Ship it.", id="u3")
    b.assistant("Shipped.", id="a3")
    b.compaction(
        "## Constraints & Preferences\n- Keep memory under 2 GB\n## Progress\n- Added a progress bar", "u3", id="c2"
    )
    report = audit_compaction(b.session(), "c2")
    dropped = {(f.kind, f.text, f.source_entry_id) for f in report.lost if f.origin == "previous_summary"}
    assert dropped == {
        ("decision", "**Format**: parse with the csv module", "c1"),
        ("identifier", "99812734", "c1"),
        # every line a previous summary carried counts, whatever its section
        ("instruction", "customer id 99812734", "c1"),
    }
    warning = report.warning("previous-summary-dropped")
    assert warning is not None and warning.entry_ids == ["c1"]
    assert "3 of 4" in warning.message
    # the earlier summary's entry is part of what the second compaction replaced
    assert "c1" in report.summarized_entry_ids and "a1" in report.summarized_entry_ids
    assert report.retention_of("instruction").kept == 1


def test_broken_tool_pair_in_rebuilt_context() -> None:
    b = SessionBuilder()
    b.user("List files.", id="u1")
    b.assistant("", calls=[("c1", "bash", {"command": "ls"})], id="a1")
    b.result("c1", "a b", id="t1")
    b.assistant("Two files.", id="a2")
    # a hand-made compaction keeping from the tool result: its call is gone
    b.compaction("listed files", "t1", id="c1")
    report = audit_compaction(b.session(), "c1")
    warning = report.warning("broken-tool-pairs")
    assert warning is not None and "t1" in warning.entry_ids


def test_usage_far_above_estimate() -> None:
    b = SessionBuilder()
    b.user(sized("Summarize the logs.", 100), id="u1")
    b.assistant(sized("Reading.", 100), usage=900, id="a1")  # API saw 900 before and during a1
    b.user(sized("Go on.", 100), id="u2")
    b.assistant(sized("More.", 100), id="a2")
    b.compaction("logs", "u2", id="c1")
    report = audit_compaction(b.session(), "c1")
    warning = report.warning("usage-exceeds-estimate")
    assert warning is not None
    # prompt tokens 900 against chars4 of u1 = 100
    assert "900" in warning.message and "100" in warning.message and "9.00x" in warning.message


def test_why_finds_the_keep_recent_values_that_reproduce_the_cut() -> None:
    b = SessionBuilder()
    for i in range(3):
        b.user(sized(f"Question {i}", 100), id=f"u{i}")
        b.assistant(sized(f"Answer {i}", 100), id=f"a{i}")
    b.compaction("qa", "u2", id="c1")
    session = b.session()
    path = session.active_path()[:-1]
    # walk from a2: 100 at a2 (cut a2), 200 at u2 (cut u2), 300 at a1 (cut a1) ...
    assert reproducing_ranges(index_path(path), 0, 4) == [(101, 200)]
    assert reproducing_ranges(index_path(path), 0, 5) == [(1, 100)]
    assert reproducing_ranges(index_path(path), 0, 0) == [(501, 10**9)]
    report = audit_compaction(session, "c1")
    assert report.why.reproduced is True
    assert report.why.reproducing_ranges == [(101, 200)]
    assert report.why.keep_recent_tokens == 200  # the end of the range nearest the default 20000
    assert report.why.cut_entry_id == "u2"
    assert "101\u2013200" in report.why.text
    # with a keepRecentTokens inside the range the configured value itself is used
    inside = audit_compaction(session, "c1", CompactionSettings(keepRecentTokens=150))
    assert inside.why.keep_recent_tokens == 150 and "re-planned with keepRecentTokens 150" in inside.why.text


def test_whole_history_compaction_keeps_nothing() -> None:
    b = SessionBuilder()
    b.user("Deploy to https://staging.example.com today.", id="u1")
    b.assistant("Deployed.", id="a1")
    b.compaction("Deployed the app.", None, tokens_before=150000, id="c1")
    report = audit_compaction(b.session("claude_code"), "c1")
    assert report.kept_entry_ids == []
    assert [f.text for f in report.lost] == [
        "Deploy to https://staging.example.com today.",
        "https://staging.example.com",
    ]
    assert "Claude Code compactions replace the whole history" in report.why.text
    assert report.why.reproduced is None


def test_bad_targets_are_one_line_errors() -> None:
    b = _setup_session()
    with pytest.raises(NotFoundError, match="holds no compaction"):
        audit_compaction(b.session())
    with pytest.raises(NotFoundError, match="no entry"):
        audit_compaction(b.session(), "nope")
    with pytest.raises(CutlineError, match="not a compaction"):
        audit_compaction(b.session(), "u1")


def test_default_target_is_latest_compaction() -> None:
    b = _setup_session()
    b.compaction("first", "u3", id="c1")
    b.user("More.", id="u4")
    b.assistant("Ok.", id="a4")
    b.compaction("second", "u4", id="c2")
    assert audit_compaction(b.session()).target_id == "c2"


def test_reproducing_ranges_after_a_previous_compaction() -> None:
    b = SessionBuilder()
    b.user(sized("old question", 300), id="u0")
    b.assistant(sized("old answer", 300), id="a0")
    b.compaction("old", "a0", id="c0")
    for i in range(1, 3):
        b.user(sized(f"Question {i}", 100), id=f"u{i}")
        b.assistant(sized(f"Answer {i}", 100), id=f"a{i}")
    b.compaction("new", "u2", id="c1")
    path = b.session().active_path()[:-1]
    # the window starts at a0 (the previous firstKept); the walk from a2: 100 a2, 200 u2, 300 a1, 400 u1, 700 a0
    index = index_path(path)
    assert reproducing_ranges(index, 1, 5) == [(101, 200)]
    assert reproducing_ranges(index, 1, 1) == [(401, 10**9)]
    report = audit_compaction(b.session(), "c1")
    assert report.why.reproduced is True and report.why.reproducing_ranges == [(101, 200)]


def test_compare_two_summaries_of_one_cut() -> None:
    from cutline.core.audit.report import compare

    def audit(summary: str):
        b = _setup_session()
        b.compaction(summary, "u3", id="c1")
        return audit_compaction(b.session(), "c1")

    good = audit(
        "Never use sudo. Set up ~/work/alpha. We use poetry for dependencies.\nError: bash: poetry: command not found"
    )
    poor = audit("Set up ~/work/alpha.")
    result = compare(good, poor)
    # the failure is copied without what it led to (pipx): not kept by either (issue 23, round 3: the audit's
    # test_a_failed_command_copied_without_what_it_taught_is_not_kept)
    assert [(k.kind, k.a.kept, k.b.kept) for k in result.retention] == [
        ("instruction", 1, 0),
        ("request", 1, 1),
        ("identifier", 1, 1),
        ("error", 0, 0),
        ("decision", 1, 0),
    ]
    assert [f.text for f in result.lost_only_in_b] == [
        "Never use sudo.",
        "I'll use poetry for dependencies.",
    ]
    assert [f.text for f in result.lost_only_in_a] == []
    assert "-Never use sudo. Set up ~/work/alpha. We use poetry for dependencies." in result.summary_diff
    assert result.b_warnings == ["tool-failures-vanished"] and result.a_warnings == []
    text = result.text()
    assert "instruction  1/1 (100%)" in text and "tool-failures-vanished" in text


def test_first_kept_entry_missing_from_the_path() -> None:
    b = _setup_session()
    b.compaction("Never use sudo.", "gone", id="c1")
    report = audit_compaction(b.session(), "c1")
    assert report.kept_entry_ids == []
    assert report.warning("first-kept-missing") is not None
    assert report.why.reproduced is False and "is not on the path before the compaction" in report.why.text
    # everything before the compaction was summarized, including the last exchange
    assert report.warning("last-exchange-summarized").entry_ids == ["u3", "a3"]


@pytest.mark.parametrize(
    ("name", "compaction", "first_kept", "ranges"),
    [
        # bounds checked against pi 0.73.1's own planner (pi-oracle) on the file cut before the
        # compaction: lo-1 and hi+1 cut elsewhere, lo and hi cut at first_kept
        ("previous-compactions", "00000031", "0000001f", [(3073, 3207)]),
        ("already-compacted", "00000019", "0000000d", [(1677, 1778)]),
        ("hook-compaction", "00000019", "00000011", [(1481, 1585)]),
    ],
)
def test_reproducing_ranges_match_pi_on_golden_sessions(
    name: str, compaction: str, first_kept: str, ranges: list
) -> None:

    from cutline.core.agents import read_session

    session = read_session(TESTS / "golden" / "sessions" / f"{name}.jsonl")
    report = audit_compaction(session, compaction)
    assert report.first_kept_entry_id == first_kept
    assert report.why.reproducing_ranges == ranges
    assert report.why.reproduced is True


def test_compare_table_wraps_a_long_warning_within_its_column() -> None:
    """ "last-exchange-summarized (recovered)" (36 chars) used to push the B column out of line."""
    from cutline.core.audit.report import Comparison

    result = Comparison(
        a_id="c1",
        b_id="c2",
        a_target="compaction",
        b_target="compaction",
        summary_similarity=0.5,
        a_summary_chars=10,
        b_summary_chars=20,
        a_warnings=["last-exchange-summarized (recovered)", "tool-failures-vanished"],
        b_warnings=["latest-request-not-visible"],
    )
    lines = result.text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("warnings"))
    assert lines[start : start + 3] == [
        "warnings     last-exchange-summarized           latest-request-not-visible",
        "             (recovered)",
        "             tool-failures-vanished",
    ]
    assert all(len(line) <= 12 + 1 + 34 + 1 + 34 for line in lines if not line.startswith("summaries"))
