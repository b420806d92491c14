"""From a fact to its evidence: where it sits in its source text, and the summary's passage closest to it.

Why: the audit says a fact was lost, or kept only because enough of its words appear
somewhere; a person checking that verdict wants to see the fact in the entry it came
from and, beside it, what the summary says that comes nearest. Pure functions over
strings, so the screen and the tests ask the same question.
"""

from __future__ import annotations

import difflib
import itertools
import re
from typing import Literal

from pydantic import BaseModel

from cutline.core.facts import content_words, normalize_text

# a passage is a sentence of a line of the summary
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# below this share of the fact's words (and a weak character likeness) nothing is "close"
MIN_WORD_SHARE = 0.2
MIN_LIKENESS = 0.5

Verbatim = Literal["verbatim", "not found verbatim", "lost"]


class Passage(BaseModel):
    """A stretch of the summary: its text, where it is (character offsets) and how much of the fact it holds."""

    text: str
    start: int
    end: int
    word_share: float
    likeness: float


def verbatim_label(retained: bool, rule: str) -> Verbatim:
    """How a fact's verdict reads: found as written, kept only through its words or identifiers, or lost."""
    if not retained:
        return "lost"
    return "verbatim" if rule in ("substring", "identifier") else "not found verbatim"


def _segments(summary: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of each sentence of each non-blank line of `summary`."""
    spans: list[tuple[int, int]] = []
    offset = 0
    for line in summary.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        pieces = _SENTENCE_END.split(body)
        cursor = offset
        for piece in pieces:
            at = summary.find(piece, cursor) if piece else cursor
            if piece.strip():
                lead = len(piece) - len(piece.lstrip())
                spans.append((at + lead, at + len(piece.rstrip())))
            cursor = at + len(piece)
        offset += len(line)
    return spans


def _likeness(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, normalize_text(a), normalize_text(b), autojunk=False).ratio()


def _scored(fact: str, words: set[str], summary: str, span: tuple[int, int]) -> tuple[float, float, int, int]:
    text = summary[span[0] : span[1]]
    share = len(words & content_words(text)) / len(words) if words else 0.0
    return share, _likeness(fact, text), span[0], span[1]


def closest_passage(fact: str, summary: str) -> Passage | None:
    """The sentence of `summary` (or two adjacent ones) nearest to `fact`; None when nothing comes close.

    Nearest = the largest share of the fact's content words, then the greatest
    character likeness, then the earlier passage, so the answer is stable. Two
    adjacent passages count together only when they hold more of the fact than
    either alone (a summary often splits one instruction over two sentences).
    """
    words = content_words(fact)
    singles = [_scored(fact, words, summary, span) for span in _segments(summary)]
    pairs = [
        _scored(fact, words, summary, (a[2], b[3]))
        for a, b in itertools.pairwise(singles)
        if words and len(words & content_words(summary[a[2] : b[3]])) / len(words) > max(a[0], b[0])
    ]
    candidates = singles + pairs
    if not candidates:
        return None
    share, likeness, start, end = max(candidates, key=lambda c: (round(c[0], 6), round(c[1], 6), -c[2]))
    if share < MIN_WORD_SHARE and likeness < MIN_LIKENESS:
        return None
    return Passage(text=summary[start:end], start=start, end=end, word_share=share, likeness=likeness)


def find_span(needle: str, body: str) -> tuple[int, int] | None:
    """Where `needle` occurs in `body`, case and runs of whitespace ignored; else its longest opening of 3+ words."""
    words = needle.rstrip("…").split()
    while words:
        pattern = r"\s+".join(re.escape(word) for word in words)
        found = re.search(pattern, body, flags=re.IGNORECASE)
        if found is not None:
            return found.start(), found.end()
        if len(words) <= 3:
            return None
        words = words[:-1]  # a fact clipped or re-punctuated: the longest opening that is there
    return None
