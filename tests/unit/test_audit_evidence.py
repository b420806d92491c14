"""The audit's way from a fact to its evidence: the summary's closest passage, the fact's place in its source."""

from __future__ import annotations

from cutline.core.audit.evidence import closest_passage, find_span, verbatim_label

SUMMARY = """## Goal
Build the ledger importer.

## Constraints
- Never write to the production database. Use the staging copy at db/staging.sqlite.
- Keep the CSV parser streaming; do not load whole files.
"""


def test_the_closest_passage_is_the_sentence_holding_most_of_the_facts_words() -> None:
    passage = closest_passage("Never touch the production database", SUMMARY)
    assert passage is not None
    assert passage.text == "- Never write to the production database."
    assert SUMMARY[passage.start : passage.end] == passage.text
    assert passage.word_share == 0.75


def test_two_adjacent_sentences_count_together_only_when_they_hold_more() -> None:
    passage = closest_passage("Never touch the production database, use the staging copy", SUMMARY)
    assert passage is not None
    assert passage.text == "- Never write to the production database. Use the staging copy at db/staging.sqlite."


def test_nothing_close_is_none() -> None:
    assert closest_passage("deploy to kubernetes on friday", SUMMARY) is None
    assert closest_passage("anything", "") is None


def test_ties_go_to_the_earlier_passage() -> None:
    summary = "Run the tests.\nRun the tests.\n"
    passage = closest_passage("run the tests", summary)
    assert passage is not None and passage.start == 0


def test_a_fact_is_found_in_its_source_ignoring_case_and_whitespace() -> None:
    body = "Please,\nNEVER write to the   production database again."
    assert find_span("never write to the production database", body) == (8, 48)
    clipped = "never write to the production database and some words the source does not have…"
    assert find_span(clipped, body) == (8, 48)
    assert find_span("something else entirely here", body) is None


def test_verdicts_read_as_verbatim_not_found_verbatim_or_lost() -> None:
    assert verbatim_label(True, "substring") == "verbatim"
    assert verbatim_label(True, "overlap") == "not found verbatim"
    assert verbatim_label(True, "identifiers") == "not found verbatim"
    assert verbatim_label(False, "none") == "lost"
