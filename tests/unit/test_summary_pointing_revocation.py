"""A revoking word that points back at a thing ("Ignore it, I'll delete it.") states no rule (issue 23).

"Ignore …", "forget …", "scratch …" at the start of a sentence usually revoke an earlier rule
("Ignore the lint warnings in generated code from now on."); followed by "it", "that", "this" they
point back at something just said (pi-coding-session's leftover `.envrc`), and a summary's
Constraints section must not list them.
"""

from __future__ import annotations

from cutline.core.models import Message, TextBlock
from cutline.core.summarizers.base import SummaryRequest
from cutline.core.summarizers.extractive import parse_summary, summarize_extractive


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text=text)])


def say(text: str) -> Message:
    return Message(role="assistant", content=[TextBlock(text=text)], stopReason="stop")


def test_ignore_it_about_a_file_is_no_constraint_but_ignore_the_rule_is() -> None:
    # the user says the leftover file does not matter: no rule in force (pi-coding-session's .envrc)
    messages = [
        user("Add per-key overrides to the rate limiter config. Never log the API keys."),
        say("The `.envrc` exports an int override; unless you want it, I'll switch to a structured model."),
        user(
            "Ah, that .envrc is from when I prototyped this last month. Ignore it, I'll delete it. "
            "Go with the structured override."
        ),
        say("Done."),
        user("Ignore the lint warnings in generated code from now on."),
    ]
    summary = summarize_extractive(SummaryRequest(messages=messages))
    rules = " ".join(text for key, text in parse_summary(summary) if key == "constraints").lower()
    assert "never log the api keys" in rules
    assert "ignore the lint warnings" in rules
    assert "ignore it" not in rules, summary
