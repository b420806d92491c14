"""Clear rewordings are kept in other words (core/audit/rewording.py), and each rule's near miss stays lost and a
contradiction stays contradicted. Sentences written for these tests, not taken from the truth set."""

from __future__ import annotations

from cutline.core.audit.compare import FactView, judge, passages
from cutline.core.audit.report import audit_compaction
from cutline.core.audit.rewording import (
    digits_for_words,
    error_label,
    name_plural,
    quoted_keywords,
    same_number,
    within_named_folder,
)
from tests.support.audit_builders import SessionBuilder


def _verdict(fact: str, summary: str, kind: str = "instruction", error_state: str | None = None) -> str:
    return judge(FactView(fact, kind, error_state=error_state), passages([summary])).verdict


def test_a_names_plural_is_the_name() -> None:
    assert _verdict("Can you keep the URLs stable?", "Keep the URL stable.", "request") == "reworded"
    assert _verdict("Pin the test run to four GPUs.", "Test run pinned to 4 GPU.") == "reworded"
    # near miss: the name alone, without what is to be done with it
    assert _verdict("Can you keep the URLs stable?", "The URL list is in the wiki.", "request") == "lost"
    # the plural does not hide a flipped rule
    assert _verdict("Never expose the admin APIs publicly.", "Expose the admin API publicly.") == "contradicted"
    assert name_plural("urls", {"url"}) and name_plural("gpu", {"gpus"})
    assert not name_plural("us", {"u"}) and not name_plural("v2s", {"v2"})


def test_an_errors_label_is_not_what_failed() -> None:
    error = "fatal runtime error: segmentation fault"
    assert _verdict(error, "The parser hits a segmentation fault on empty input.", "error", "open") == "reworded"
    # near miss: one word of the failure is not the failure
    assert _verdict(error, "The input segmentation is done by the parser.", "error", "open") == "lost"
    assert _verdict(error, "Another fatal runtime error showed up.", "error", "open") == "lost"
    # an open failure stated as fixed is still a contradiction
    assert _verdict(error, "The segmentation fault is fixed now.", "error", "open") == "contradicted"
    assert error_label(error) == {"fatal", "runtime", "error"}
    assert error_label("ERROR: permission denied") == {"error"}
    assert error_label("cache miss: key not found") == set()  # not a label of error words


def test_a_number_in_words_is_the_number() -> None:
    fact = "The nightly import retries three times before paging anyone."
    assert _verdict(fact, "Nightly import: retries 3 times, then pages.", "decision") == "reworded"
    assert _verdict("Keep 4 replicas of the queue.", "Keep four replicas of the queue.") == "reworded"
    # another number is not the same one: a quantity in words stated otherwise is a contradiction
    assert _verdict("Keep the nightly import at three retries.", "Nightly import: 5 retries.") == "contradicted"
    assert _verdict("Keep logs for thirty days.", "Logs are kept for 90 days.") == "contradicted"
    assert digits_for_words("Three retries, one day, twenty") == "3 retries, one day, twenty"
    assert same_number("three", {"3"}, ()) and same_number("twelve", set(), [12.0]) and same_number("7", {"seven"}, ())
    assert not same_number("three", {"30"}, [13.0]) and not same_number("one", {"1"}, ())


def test_a_quoted_phrase_weighs_as_a_quoted_word() -> None:
    fact = "Queries for 'blue lamp' return stale listings."
    assert _verdict(fact, "Make the 'blue lamp' query fresh.", "request") == "reworded"
    # near miss: the literal named without what is wrong with it
    assert _verdict(fact, "Stock the blue lamp.", "request") == "lost"
    assert quoted_keywords("Results for 'usb hub' and \"red shoe box\" and 'x'") == {"usb", "shoe"}


def test_a_path_in_a_folder_the_passage_names_is_not_another_name() -> None:
    failure = "FAIL test/billing/invoice.test.ts"
    said = "`npx vitest test/billing` fails: expected totalCents 1999, got 2000."
    assert _verdict(failure, said, "error", "open") == "reworded"
    # near miss: the failure dropped, its folder named for something else
    assert _verdict(failure, "test/billing has a new fixture.", "error", "open") == "lost"
    # another file of the same folder is still another name
    assert _verdict(failure, "FAIL test/billing/refund.test.ts", "error", "open") == "contradicted"
    assert within_named_folder("test/billing/invoice.test.ts", "`npx vitest test/billing` fails")
    assert not within_named_folder("test/billing/invoice.test.ts", "test/billing2 fails")
    assert not within_named_folder("src/a.py", "src fails")
    assert not within_named_folder("test/billing/invoice.test.ts", "test/billing/refund.test.ts")


def _pointer_session(summary: str) -> list[str]:
    b = SessionBuilder()
    b.user("Is the slow part the import or the export?")
    b.assistant("Let me time the import.", calls=[("t1", "bash", {"command": "make import-timed"})])
    b.result("t1", "import: 2,314 records\nimport finished in 487.25 seconds")
    b.assistant("That is the whole import.")
    b.user("Speed up the import.")
    b.assistant("On it.", id="kept")
    b.compaction(summary, "kept", id="c1")
    return [f.text for f in audit_compaction(b.session(), "c1").lost]


def test_a_remark_pointing_at_an_output_is_kept_with_the_output() -> None:
    pointer = "That is the whole import."
    kept = "- `make import-timed`: import finished in 487.25 seconds\n- Speed up the import."
    assert pointer not in _pointer_session(kept)
    assert pointer not in _pointer_session("- Import: 2314 records in 8 minutes.\n- Speed up the import.")
    # near miss: the output's numbers gone, the remark with them
    assert pointer in _pointer_session("- The import was timed.\n- Speed up the import.")
