"""Under a tight budget the offline summary keeps the task before the rules (issue 23).

A span that states forty rules filled the budget with them, and the goal, ranked below a
rule, was the first thing dropped: the summary then told the agent every rule and not what
it was doing (the generated 10k-entry session's summary had no Goal section).
"""

from __future__ import annotations

import random

from cutline.core.models import Message
from cutline.core.summarizers.base import SummaryRequest
from cutline.core.summarizers.extractive import MAX_TARGET_CHARS, summarize_extractive
from tests.support.summary_messages import assistant, filler, user

GOAL_ASK = "Please migrate the billing exports from the cron job to the new event queue."
# rules that share most of their words replace each other: each rule here takes 18 of these at random, so all stand
SUBJECTS = [
    "invoice",
    "amber",
    "basalt",
    "cedar",
    "dolphin",
    "ember",
    "falcon",
    "garnet",
    "harbor",
    "indigo",
    "juniper",
    "kestrel",
    "lantern",
    "meadow",
    "nickel",
    "orchid",
    "pebble",
    "quartz",
    "raven",
    "saffron",
    "timber",
    "umber",
    "velvet",
    "walnut",
    "yarrow",
    "zephyr",
    "anchor",
    "beacon",
    "copper",
    "dune",
    "fjord",
    "glacier",
    "hazel",
    "iris",
    "jasper",
    "kelp",
    "lagoon",
    "marble",
    "nectar",
    "opal",
    "prairie",
    "quill",
    "ridge",
    "sable",
    "tundra",
    "violet",
    "willow",
    "xenon",
    "yucca",
    "zinnia",
    "acorn",
    "birch",
    "canyon",
    "delta",
    "estuary",
    "fern",
    "grove",
    "heron",
    "islet",
]


def _span(rules: int) -> list[Message]:
    messages = [user(GOAL_ASK), assistant("Starting with the export job."), *filler(0)]
    for n in range(rules):
        messages.append(user("Never delete the " + " ".join(random.Random(n).sample(SUBJECTS, 18)) + " fixtures."))
        messages.append(assistant("Understood, those fixtures stay."))
        messages.extend(filler(n + 1))
    messages.append(user("Now run the export once against the staging queue."))
    return messages


def test_the_goal_outlasts_the_rules_when_they_fill_the_budget() -> None:
    summary = summarize_extractive(SummaryRequest(prompt_name="pi-checkpoint", messages=_span(len(SUBJECTS))))
    rules = summary.count("Never delete the ")
    assert rules < len(SUBJECTS), "the rules must overflow the budget for this test to mean anything"
    assert len(summary) <= MAX_TARGET_CHARS
    assert "## Goal" in summary
    assert "migrate the billing exports" in summary


def test_with_room_for_all_the_rules_both_stay() -> None:
    summary = summarize_extractive(SummaryRequest(prompt_name="pi-checkpoint", messages=_span(5)))
    assert "migrate the billing exports" in summary
    assert summary.count("Never delete the ") == 5
