"""An opening remark told from the task by the conversation's shape, not by its words.

People open with all sorts of things: "Long time no see!", "so I've been meaning to ask",
"Happy Friday!", a line about their week. No word list holds them all (`user_text`'s
vocabulary catches the common greetings). What they share is where they stand:

- the first ask of the span is short (one line, a few words);
- the assistant answered it without a tool call (it offered help; it did no work);
- the next user message asks for something (a request form: an imperative, a question, "please …")
  and shares no content word with it;
- no later ask and no file the work touched takes its content words up.

Then it was an opening and the goal is the ask after it. A short first message that is the
task fails one of these: the assistant sets to work at once (a tool call), or asks which one is
meant and the user's answer asks for nothing new ("The totals snapshot one."), or the work that
follows names what it said (`tests/cart/CartTotals.test.tsx` after "fix the flaky cart test").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# a first ask longer than this is not a passing remark
MAX_OPENING_WORDS = 12
MAX_OPENING_CHARS = 100

# words that carry no subject of their own (articles, pronouns, auxiliaries, their contractions)
_FUNCTION_WORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "but",
        "so",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "by",
        "as",
        "about",
        "like",
        "into",
        "out",
        "up",
        "off",
        "over",
        "than",
        "then",
        "too",
        "also",
        "just",
        "very",
        "really",
        "still",
        "again",
        "already",
        "only",
        "even",
        "ever",
        "yet",
        "now",
        "here",
        "there",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "it's",
        "i",
        "i'm",
        "i've",
        "i'll",
        "i'd",
        "me",
        "my",
        "we",
        "we're",
        "our",
        "us",
        "you",
        "you're",
        "your",
        "they",
        "them",
        "their",
        "he",
        "she",
        "his",
        "her",
        "what",
        "what's",
        "which",
        "who",
        "how",
        "why",
        "where",
        "when",
        "that's",
        "there's",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "can",
        "could",
        "will",
        "would",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "not",
        "no",
        "yes",
        "all",
        "any",
        "some",
        "one",
    ]
)
_WORD = re.compile(r"[a-z0-9][a-z0-9']*")
# a path's words: its parts split at non-letters and at camelCase humps ("CartTotals.test.tsx": cart, totals, test, tsx)
_PATH_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def _stem(word: str) -> str:
    """A word with a plural or third-person "s" dropped, so "tests" and "test" are one."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def content_words(text: str) -> frozenset[str]:
    """The words of a text that say what it is about: function words and words under three letters left out."""
    return frozenset(
        _stem(w.strip("'")) for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _FUNCTION_WORDS
    )


def may_open(typed: str) -> bool:
    """Whether a first ask is short enough to be a passing remark: one line, a few words."""
    return "\n" not in typed and len(typed) <= MAX_OPENING_CHARS and len(_WORD.findall(typed)) <= MAX_OPENING_WORDS


@dataclass
class Opening:
    """The span's first ask while it may still turn out to be an opening remark."""

    ask: str  # as it went into the asks
    typed: str
    words: frozenset[str]
    task: str = ""  # the ask that set the task after it (empty until one did)

    def next_ask(self, words: frozenset[str], ask: str, *, requested: bool, quiet_reply: bool) -> bool:
        """The user's next ask: whether this may still be an opening (and that ask the task).

        `quiet_reply`: the assistant answered the first ask without a tool call; `requested`: the next
        message asks for something in a request form.
        """
        if self.task:  # a later ask: taking its words up makes it the task after all
            return not words & self.words
        if quiet_reply and requested and ask and not words & self.words:
            self.task = ask
            return True
        return False

    def settled(self, paths: Iterable[str]) -> bool:
        """At the span's end: an opening when a task followed and no file the work touched names its words."""
        if not self.task:
            return False
        if not self.words:
            return True
        return not any(_stem(part.lower()) in self.words for path in paths for part in _PATH_PART.findall(path))
