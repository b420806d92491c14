"""Four verdicts per fact: kept, reworded (with the closest passage), lost, contradicted.

A fact of the summarized part is compared with what the agent still sees, passage by
passage (a line or sentence of the summary or a kept message, or two adjacent ones):

- **kept**: its sentence occurs verbatim, or (an identifier) the identifier occurs in one
  of its forms (`@path` or `path`, absolute or relative to the session's directory);
- **contradicted** (checked before anything but a verbatim match): a passage about the same
  thing states it otherwise: another number or unit for the same quantity ("port 8080"
  for "port 8443", "5000 rows" for "500 rows", "30 minutes" for "30 seconds"); a flipped
  negation or modality ("Always log X" for "Never log X", "may run" for "must not run");
  a reversed choice ("B instead of A" for "A instead of B"); another name in the same
  role (the same sentence frame with another identifier, or another object after the same
  "using"/"by"/"in"); an open task stated as done, a fixed error as still failing or an
  unresolved one as fixed;
- **reworded**: enough of its content is in one passage (specific tokens, identifiers,
  numbers with units and proper names count more than plain words; an error needs its
  telling tokens: test name, error code, exception class); a path of which only the file
  name is visible is reworded too (partly kept);
- **lost**: none of that.

Comparison tokens are lower-cased words lightly stemmed, identifiers kept whole (paths,
dotted or underscored names, flags, numbers with their unit), with a few synonyms folded
(repository/repo, configuration/settings/config, database/db). Clear rewordings that tokens alone
miss (a name's plural, an error's label, a number in words, a quoted phrase, a path in a folder a
passage names) are rewording.py's.
"""

from __future__ import annotations

import difflib
import heapq
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from operator import neg
from typing import Literal

from cutline.core.audit.rewording import (
    _NUMBER_NAMES,
    _NUMBER_WORDS,
    SECONDS_PER_UNIT,
    digits_for_words,
    error_label,
    name_plural,
    quoted_keywords,
    same_number,
    times_as_one,
    within_named_folder,
)
from cutline.core.facts import NEGATIONS, normalize_sentence, normalize_text, stem

Verdict = Literal["kept", "reworded", "lost", "contradicted"]

REWORDED_OVERLAP = 0.55
TOPICAL_OVERLAP = 0.5
FLIP_OVERLAP = 0.75
SPECIFIC_WEIGHT = 2.5
CANDIDATES = 12

_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "than",
        "that",
        "this",
        "these",
        "those",
        "there",
        "here",
        "to",
        "of",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "into",
        "onto",
        "as",
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
        "done",
        "have",
        "has",
        "had",
        "having",
        "will",
        "would",
        "shall",
        "should",
        "could",
        "can",
        "may",
        "might",
        "must",
        "just",
        "also",
        "very",
        "too",
        "any",
        "all",
        "each",
        "every",
        "some",
        "such",
        "own",
        "same",
        "other",
        "more",
        "most",
        "less",
        "about",
        "above",
        "below",
        "over",
        "under",
        "again",
        "once",
        "when",
        "where",
        "why",
        "how",
        "what",
        "which",
        "who",
        "whom",
        "its",
        "it",
        "it's",
        "his",
        "her",
        "hers",
        "him",
        "she",
        "he",
        "we",
        "me",
        "my",
        "mine",
        "our",
        "ours",
        "you",
        "your",
        "yours",
        "they",
        "them",
        "their",
        "let",
        "let's",
        "lets",
        "please",
        "make",
        "sure",
        "only",
        "always",
        "prefer",
        "avoid",
        "use",
        "using",
        "used",
        "yet",
        "out",
        "off",
        "per",
        "via",
        "get",
        "got",
        "now",
        "okay",
        "ok",
        "yes",
        "well",
        "like",
        "want",
        "need",
        "needs",
        "needed",
        "going",
        "go",
        "goes",
        "i",
        "i'll",
        "i'm",
        "i've",
        "we'll",
        "we're",
        "i'd",
        "way",
        "thing",
        "things",
        "something",
        "anything",
        "everything",
        "nothing",
        "so",
        "up",
        "one",
        "new",
        "todo",
        "before",
        "after",
        "whatever",
        "instead",
        "rather",
    ]
)
# the fact extraction's negations (core/facts.py), plus words that forbid
_NEGATORS = NEGATIONS | frozenset(["neither", "nor", "nothing", "nobody", "off-limits", "forbidden"])
_PERMIT = frozenset(["may", "can", "allowed", "fine", "ok", "okay", "whenever"])
_SYNONYMS = {
    "repository": "repo",
    "repositories": "repo",
    "configuration": "config",
    "settings": "config",
    "setting": "config",
    "database": "db",
    "databases": "db",
    "directory": "dir",
    "folder": "dir",
}
_REVOKE = frozenset(
    [
        "forget",
        "scratch",
        "drop",
        "disregard",
        "ignore",
        "revoke",
        "revoked",
        "withdrawn",
        "withdraw",
        "taken",
        "back",
        "never-mind",
        "preference",
        "wish",
        "fine",
        "instead",
        "after",
    ]
)
_ROLE_MARKERS = ("using", "via", "by", "in", "from", "with", "to", "into", "on", "at", "as")
_DONE = re.compile(
    r"\((?:done|completed|finished)\)|\balready\b|\bwas (?:\w+ed|done|written|built)\b|\bwere (?:\w+ed|done)\b|"
    r"\bis done\b|\bcompleted\b|^(?:added|wrote|implemented|documented|finished)\b|\bhas been \w+ed\b"
)
_OPEN = re.compile(r"\b(?:todo|still|pending|open|remaining|outstanding|to do|needs?|not yet|next)\b")
# an attempt that did not succeed ("scp of a test build was refused"): what was asked is not done
_FAILED = re.compile(
    r"\b(?:failed|fails|refused|rejected|denied|errored|aborted|timed out|could not|couldn't|cannot|can't|did not|"
    r"didn't)\b"
)
_FIXED = re.compile(r"(?<!not )(?<!un)\b(?:fixed|resolved|passes|passing|green|works now)\b")
_UNFIXED = re.compile(r"\bstill (?:fail|fails|failing|broken|throws|panics|errors)\b|\bnot fixed\b|\bunresolved\b")

_QUANTITY = re.compile(
    r"(?<![\w.:/-])(\d[\d,]*(?:\.\d+)?)(k)?\s*-?\s*"
    r"(%|ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|"
    r"b|bytes?|kb|mb|gb|tb|kib|mib|gib|tib|[a-z]{3,})\b"
)
_PORT = re.compile(r"\bport:?\s+(\d{2,5})\b")
_UNIT_DIMENSION = {
    **dict.fromkeys(["ms", "millisecond", "milliseconds"], ("time", "ms")),
    **dict.fromkeys(["s", "sec", "secs", "second", "seconds"], ("time", "s")),
    **dict.fromkeys(["min", "mins", "minute", "minutes"], ("time", "min")),
    **dict.fromkeys(["h", "hr", "hrs", "hour", "hours"], ("time", "h")),
    **dict.fromkeys(["day", "days"], ("time", "day")),
    **dict.fromkeys(["week", "weeks"], ("time", "week")),
    **dict.fromkeys(["month", "months"], ("time", "month")),
    **dict.fromkeys(["year", "years"], ("time", "year")),
    **dict.fromkeys(["b", "byte", "bytes"], ("size", "b")),
    **{u: ("size", u) for u in ("kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib")},
    "%": ("ratio", "%"),
}
_TIME_ZONES = frozenset(["utc", "gmt", "cet", "cest", "est", "edt", "pst", "pdt", "bst", "ist", "jst"])
# words after a number that are not its unit
_NOT_UNITS = frozenset(
    [
        "and",
        "or",
        "but",
        "the",
        "for",
        "with",
        "from",
        "into",
        "than",
        "that",
        "this",
        "are",
        "was",
        "were",
        "has",
        "had",
        "not",
        "passed",
        "failed",
        "errors",
        "error",
        "tests",
        "test",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "is",
    ]
)


# ---------------------------------------------------------------------------
# Tokens
# ---------------------------------------------------------------------------

_SPLIT = re.compile(r"[\s,;()\[\]{}<>\"`*|]+")
_EDGE = ".:;!?'\"`*_-)(=#"


_DIGIT = re.compile(r"\d")
# the token patterns, compiled once (they run for every token of every passage and fact)
_PUNCT_NAME = re.compile(r"[/_.:=@$]")
_CAMEL = re.compile(r"[a-z][A-Z]|^[A-Z]{2,}[a-z]*[A-Z]|^[A-Z][a-z]+[A-Z]")
_HYPHENATED = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")
_NUMBER_WORD = re.compile(r"\d[\d,.]*-[A-Za-z]+")
_SLASHED = re.compile(r"[A-Za-z]+(?:/[A-Za-z]+)+")
_PLAIN_WORD = re.compile(r"[a-z][a-z'-]*")
_SPECIFIC_FORM = re.compile(r"[/_.:=@$\d]")
_PLAIN_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def is_specific(raw: str) -> bool:
    """An identifier-like token: a path, a dotted/underscored/camel name, a flag, a number, a quoted or proper name."""
    core = raw.strip(_EDGE)
    if not core:
        return False
    if raw.startswith("--") or (raw.startswith("'") and raw.endswith("'") and len(core) > 2):
        return True
    if _DIGIT.search(core):
        return True
    if _PUNCT_NAME.search(core.rstrip(".")):
        return True
    if _CAMEL.search(core):
        return True
    return core.isupper() and len(core) >= 3


@dataclass(frozen=True)
class Token:
    """One comparison token: its normal form, whether it is specific, and its surface text."""

    norm: str
    specific: bool
    raw: str


def _parts(raw_piece: str, starts: bool) -> list[tuple[str, bool]]:
    """A piece of the text between separators, cut into its words with whether each starts a sentence (`starts`:
    whether the piece does; its capital then says nothing)."""
    out: list[tuple[str, bool]] = []
    parts = raw_piece.split("::") if "::" in raw_piece else [raw_piece]
    for part in parts:
        core = part.strip(_EDGE)
        if _HYPHENATED.fullmatch(core) and core.lower() not in _NEGATORS:
            # hyphenated words ("partial-refund", "Redis-based"): their parts
            out.extend((p, starts and n == 0) for n, p in enumerate(core.split("-")))
        elif _NUMBER_WORD.fullmatch(core):
            number, word = core.split("-", 1)
            out.extend([(number, starts), (word, False)])
        elif _SLASHED.fullmatch(core):
            out.extend((p, False) for p in core.split("/"))  # "requests/minute"
        else:
            out.append((part, starts))
        starts = False
    return out


_ABBREVIATIONS = (
    ("SSE", re.compile(r"\bSSE\b"), "server-sent events"),
    ("2", re.compile(r"\be2e\b", re.IGNORECASE), "end-to-end"),
    ("DB", re.compile(r"\bDB\b"), "database"),
    ("LB", re.compile(r"\bLB\b"), "load balancer"),
)


_LABEL = re.compile(r"(?<![\w#])#\d+\b")
_SENTENCE_STOPS = (".", ":", "!", "?", ";")


def tokens(text: str, keep_stop: bool = False) -> list[Token]:
    """The comparison tokens of a text, in order (stop words dropped unless `keep_stop`).

    `Passages.toks` keeps them for one audit: the same passage is read for many facts.
    """
    out: list[Token] = []
    # a quoted message's escaped quotes, and "#2"-style labels (a counter, not a quantity); each pattern only where its
    # literal part is (it cannot match elsewhere)
    text = times_as_one(text.replace('\\"', '"'))  # "48 hours" and "two days" alike (rewording.py)
    if "#" in text:
        text = _LABEL.sub(" ", text)
    for literal, pattern, expansion in _ABBREVIATIONS:
        if literal in text:
            text = pattern.sub(expansion, text)
    starts = True
    for raw_piece in _SPLIT.split(text):
        if not raw_piece:
            continue
        for tok, stop in _piece_tokens(raw_piece, starts):
            if keep_stop or not stop:
                out.append(tok)
        starts = raw_piece.endswith(_SENTENCE_STOPS)
    return out


@lru_cache(maxsize=1 << 15)
def _piece_tokens(raw_piece: str, starts: bool) -> tuple[tuple[Token, bool], ...]:
    """The tokens of a piece of text between separators (`starts`: whether it starts a sentence), each with whether
    it is a stop word (left out unless `keep_stop`). Made once per piece: a long audit tokenizes the same words in
    many passages and facts (the tokens are frozen; the tuple is shared)."""
    out: list[tuple[Token, bool]] = []
    for piece, first in _parts(raw_piece, starts):
        if piece:
            core = piece.strip(_EDGE).strip(".,:;!?'\"`*()")
            if piece.startswith("--"):
                core = "--" + core.lstrip("-")
            if piece.startswith("@") and len(core) > 1:
                core = core.lstrip("@")
            if not core:
                continue
            lower = core.lower()
            if lower.endswith("()"):
                lower = lower[:-2]
            if lower.endswith("'s"):
                lower = lower[:-2]
            proper = core[:1].isupper() and not first and len(core) > 2
            title_case = core[:1].isupper() and core[1:].islower()
            specific = (is_specific(piece) and not (first and title_case)) or proper
            if lower in _NEGATORS or lower.endswith("n't"):
                out.append((Token("not", False, core), False))
                continue
            stop = lower in _STOP or (len(lower) < 3 and not _DIGIT.search(lower))
            norm = _SYNONYMS.get(lower, lower)
            if _PLAIN_WORD.fullmatch(norm) and not specific_form(norm) and not proper:
                norm = stem(norm.replace("'", ""))
            out.append((Token(norm, specific and lower not in _STOP, core), stop))
    return tuple(out)


def specific_form(norm: str) -> bool:
    return bool(_SPECIFIC_FORM.search(norm))


def _basename(norm: str) -> str:
    return norm.rstrip("/").rsplit("/", 1)[-1]


# ---------------------------------------------------------------------------
# Quantities, polarity, choices
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str
    dimension: str

    def text(self) -> str:
        number = int(self.value) if self.value == int(self.value) else self.value
        return f"port {number}" if self.unit == "port" else f"{number} {self.unit}"


def quantities(text: str) -> list[Quantity]:
    """Numbers with their unit ("500 rows", "2 MB", "30 s", "port 8443"); bare numbers are left out."""
    if not _DIGIT.search(text):
        return []
    lower = text.lower()
    found: list[Quantity] = []
    for m in _PORT.finditer(lower):
        found.append(Quantity(float(m.group(1)), "port", "port"))
    for m in _QUANTITY.finditer(lower):
        number, kilo, unit = m.group(1), m.group(2), m.group(3)
        if unit in _NOT_UNITS or unit in _TIME_ZONES or lower[max(0, m.start() - 5) : m.start()].endswith("port "):
            continue
        try:
            value = float(number.replace(",", ""))
        except ValueError:
            continue
        if kilo:
            value *= 1000
        singular = unit[:-1] if unit.endswith("s") and len(unit) > 3 else unit
        dimension, canonical = _UNIT_DIMENSION.get(unit, (singular, singular))
        found.append(Quantity(value, canonical, dimension))
    return found


def _has_amount(amounts: Sequence[Quantity], q: Quantity) -> bool:
    """Whether `amounts` hold `q`, a duration in any unit ("90 days" for the fact's words made "7776000s seconds" by
    `times_as_one`)."""
    if q in amounts:
        return True
    per = SECONDS_PER_UNIT.get(q.unit)
    return per is not None and any(
        p.unit in SECONDS_PER_UNIT and abs(p.value * SECONDS_PER_UNIT[p.unit] - q.value * per) < 1e-6 for p in amounts
    )


def _quantity_conflict(fact: Sequence[Quantity], passage: Sequence[Quantity]) -> str | None:
    """ "<passage quantity> instead of <fact quantity>" when the passage gives the same kind of quantity otherwise."""
    for q in fact:
        if _has_amount(passage, q):  # "1.5 days" is "36 hours"
            continue
        other = next((p for p in passage if p.dimension == q.dimension), None)
        if other is not None and (other.value, other.unit) != (q.value, q.unit):
            return f"{other.text()} instead of {q.text()}"
    return None


# words and phrases that keep something from happening ("keep the header out of the logs", "redact it")
_EXCLUDING = frozenset(
    ["avoid", "exclude", "excluded", "redact", "redacted", "omit", "omitted", "prohibited", "banned"]
)
_KEEP_OUT = re.compile(r"\b(?:keep|keeps|kept|stay|stays|leave|leaves)\b[^.;,]{0,40}\bout of\b")


# a verb that says its object did not happen ("transactions that fail to match"): a negation of what follows
_FAIL_TO = re.compile(r"\bfail(?:s|ed|ing)? to\b")


def _negated(text: str) -> bool:
    """Whether a text says not to do something in so many words (a negation, "avoid", "keep … out of", "fail to")."""
    lower = text.lower()
    found = set(re.findall(r"[a-z][a-z'-]*", lower))
    return bool(
        found & _NEGATORS or found & _EXCLUDING or "n't" in lower or _KEEP_OUT.search(lower) or _FAIL_TO.search(lower)
    )


# a word that negates the word after it ("don't *touch*", "never *text*", "can't be *read*", "fail to *match*")
_NEGATES_NEXT = re.compile(r"\b(?:not|never|no|without|cannot|avoid|\w+n't|fail(?:s|ed|ing)? to)\b")


def _governed(clause: str) -> str | None:
    """The word a clause's first negation governs: the first content word after it ("touch" of "How about we don't
    touch the tariff sheet?"); None when there is no such negation or nothing after it ("must open nothing")."""
    found = _NEGATES_NEXT.search(clause.lower().replace("\u2019", "'"))
    if found is None:
        return None
    after = tokens(clause[found.end() :])
    return after[0].norm if after else None


def _names_word(norms: Iterable[str], word: str) -> bool:
    """Whether a clause's norms hold `word` in some form ("touches" for "touch", "opens" for "open")."""
    stem_ = word[: max(4, len(word) - 2)]
    return any(
        n == word or (len(n) >= 4 and len(word) >= 4 and (n.startswith(stem_) or word.startswith(n))) for n in norms
    )


def polarity(text: str) -> str:
    """ "negative" (never / must not / don't / without …; a rule that something stays as it is, "leave X alone", is one:
    it says not to change X), "permissive" (may / can …) or "positive"."""
    lower = text.lower()
    if _negated(lower) or _PRESERVE.search(lower):
        return "negative"
    if set(re.findall(r"[a-z][a-z'-]*", lower)) & _PERMIT:
        return "permissive"
    return "positive"


Toks = Callable[[str, bool], list[Token]]


def _plain_tokens(text: str, keep_stop: bool) -> list[Token]:
    return tokens(text, keep_stop)


_INSTEAD = re.compile(r"(.{3,80}?)\b(?:instead of|rather than)\b(.{3,80})")
_OVER = re.compile(r"(.{3,80}?)\bover\b(.{3,80})")
_COMMA_NOT = re.compile(r"(.{3,80}?)(?:,|\(|\s-+)\s*not\s+(.{3,80})")
_NOT_ONLY = re.compile(r"\b(?:do not|don't|never)\b(.{3,80}?)[;,]\s*only\b(.{3,80})")


def _choice(text: str, toks: Toks = _plain_tokens) -> tuple[set[str], set[str]] | None:
    """(chosen, rejected) content words of "A instead of B", "A rather than B", "A over B", "A, not B", "not B; only A"."""
    lower = text.lower()
    # "instead of" and "rather than" say a choice; "over" only when neither does ("stream over WebSockets instead of …");
    # each pattern is tried only when its literal words are in the text: a pattern with a lazy lead tries up to 80
    # lengths at every position, which on a long passage without the words costs far more than the look-up
    m = (
        (_INSTEAD.search(lower) if "instead of" in lower or "rather than" in lower else None)
        or (_OVER.search(lower) if "over" in lower else None)
        or (_COMMA_NOT.search(lower) if "not" in lower else None)
    )
    if m is None:
        flipped = _NOT_ONLY.search(lower) if "only" in lower else None
        if flipped is None:
            return None
        before = [t.norm for t in toks(flipped.group(2), False)][:4]
        after = [t.norm for t in toks(flipped.group(1), False)][-4:]
        return (set(before), set(after)) if before and after else None
    before = [t.norm for t in toks(m.group(1), False)][-4:]
    after = [t.norm for t in toks(m.group(2), False)][:4]
    if not before or not after:
        return None
    return set(before), set(after)


@lru_cache(maxsize=256)
def _choice_of(text: str) -> tuple[set[str], set[str]] | None:
    """`_choice` of a fact's text, made once while its candidates are compared (do not change the sets); any `Toks`
    gives the same tokens (`Passages.toks` keeps `tokens`' own), so the plain one is used."""
    return _choice(text)


# ---------------------------------------------------------------------------
# Passages
# ---------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[A-Z`\"'(\[*])")


@dataclass
class Passage:
    text: str
    owner: int
    toks: list[Token]
    norms: set[str]
    basenames: set[str]
    amounts: list[Quantity] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.amounts:
            self.amounts = quantities(self.text)

    def choice(self, toks: Toks) -> tuple[set[str], set[str]] | None:
        """`_choice` of the passage's text, made once (a passage is compared with every fact; do not change the sets)."""
        if "_choice" not in self.__dict__:
            self.__dict__["_choice"] = _choice(self.text, toks)
        found: tuple[set[str], set[str]] | None = self.__dict__["_choice"]
        return found

    def statement(self) -> str:
        """`_statement` of the passage's text, made once (a passage is compared with many facts)."""
        found: str | None = self.__dict__.get("_statement")
        if found is None:
            found = self.__dict__["_statement"] = _statement(self.text)
        return found

    def by_prefix(self) -> dict[str, tuple[str, ...]]:
        """The passage's alphabetic norms by their first three letters (for `_near`), made once."""
        groups: dict[str, tuple[str, ...]] | None = self.__dict__.get("_by_prefix")
        if groups is None:
            lists: dict[str, list[str]] = {}
            for norm in self.norms:
                if norm.isalpha():
                    lists.setdefault(norm[:3], []).append(norm)
            groups = self.__dict__["_by_prefix"] = {k: tuple(v) for k, v in lists.items()}
        return groups

    def clause_words(self, toks: Toks) -> list[tuple[str, set[str]]]:
        """The passage's clauses with their norms (`_flip`'s), made once (do not change them)."""
        found: list[tuple[str, set[str]]] | None = self.__dict__.get("_clause_words")
        if found is None:
            found = self.__dict__["_clause_words"] = [
                (c, {t.norm for t in toks(c, False)}) for c in _clauses(self.text)
            ]
        return found

    def frame_norms(self) -> list[str]:
        """Its norms in order without "not" and time stamps (`_substitution`'s frame), made once (do not change it)."""
        found: list[str] | None = self.__dict__.get("_frame")
        if found is None:
            found = self.__dict__["_frame"] = [
                t.norm for t in self.toks if t.norm != "not" and not _STAMP.fullmatch(t.norm)
            ]
        return found

    def path_tails(self) -> frozenset[str]:
        """What follows a "/" in the passage's paths ("b/c.py" and "c.py" of "a/b/c.py"), made once."""
        tails = self.__dict__.get("_tails")
        if tails is None:
            tails = frozenset(n[i + 1 :] for n in self.norms if "/" in n for i, c in enumerate(n) if c == "/")
            self.__dict__["_tails"] = tails
        return tails


# texts whose tokens `Passages.toks` keeps at most: the facts' own texts (and their clauses) pass through it too, each
# once, so an unbounded cache held the tokens of every fact of a long audit (9,875 texts, ~50 MB at 100,000 entries)
TOKENS_KEPT = 2_000
# `Passages.candidates` answers kept (the oldest let go first): those of the fact being judged
CANDIDATES_KEPT = 8


@dataclass
class Passages:
    """What the agent still sees, cut into passages and indexed by token."""

    texts: Sequence[str]
    cwd: str | None = None
    items: list[Passage] = field(default_factory=list)
    index: dict[str, list[int]] = field(default_factory=dict)
    whole: str = ""
    # the summarized conversation's own statements (normal form -> their order): a passage restating one says
    # something the conversation said too, not another version of the fact judged (see `restated`)
    said: dict[str, int] = field(default_factory=dict)
    _merged: dict[int, list[Passage]] = field(default_factory=dict)
    _tokens: dict[tuple[str, bool], list[Token]] = field(default_factory=dict)
    _words: dict[str, list[int]] = field(default_factory=dict)
    _candidates: dict[tuple[str, ...], list[int]] = field(default_factory=dict)
    _probes: dict[tuple[str, bool], Probe] = field(default_factory=dict)
    _alphabetic: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _slashed: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        self.whole = "\n".join(normalize_text(t) for t in self.texts if t)
        for number, text in enumerate(self.texts):
            for part in sentences(text or ""):
                if part:
                    toks = tokens(part)
                    if not toks:
                        continue
                    position = len(self.items)
                    norms = {t.norm for t in toks}
                    self.items.append(Passage(part, number, toks, norms, {_basename(n) for n in norms if "/" in n}))
                    for norm in norms:
                        self.index.setdefault(norm, []).append(position)

    def candidates(self, norms: Iterable[str]) -> list[int]:
        """Passages sharing the most tokens with `norms`, best first (do not change the list).

        The last few answers are kept: a fact's contradiction check and its overlap step ask with the same tokens
        (unless a revoking word was left out), and each count reads every passage a common word hits.
        """
        key = tuple(norms)
        kept = self._candidates
        found = kept.get(key)
        if found is None:
            if len(kept) >= CANDIDATES_KEPT:
                del kept[next(iter(kept))]
            index = self.index
            hits = Counter(chain.from_iterable(index.get(norm, ()) for norm in key))
            # the best CANDIDATES by (most hits, first position): a heap, not a sort of every passage hit (a common
            # word hits most passages of a long summary)
            found = kept[key] = [p for _, p in heapq.nsmallest(CANDIDATES, zip(map(neg, hits.values()), hits.keys()))]
        return found

    def merged(self, position: int) -> list[Passage]:
        """The passage alone, then with its neighbours of the same text (made once per passage)."""
        done = self._merged.get(position)
        if done is None:
            done = self._merged[position] = self._merge(position)
        return done

    def _merge(self, position: int) -> list[Passage]:
        item = self.items[position]
        out = [item]
        for other in (position - 1, position + 1):
            if 0 <= other < len(self.items) and self.items[other].owner == item.owner:
                near = self.items[other]
                first, second = (near, item) if other < position else (item, near)
                out.append(
                    Passage(
                        f"{first.text} {second.text}",
                        item.owner,
                        first.toks + second.toks,
                        first.norms | second.norms,
                        first.basenames | second.basenames,
                    )
                )
        return out

    def probe(self, tok: Token) -> Probe:
        """What `_match_weight(tok, passage, self.cwd)` needs for any passage of these (see `Probe`), made once per
        norm and specificity. Exact only for these passages: the forms are looked for among their norms."""
        key = (tok.norm, tok.specific)
        found = self._probes.get(key)
        if found is None:
            found = self._probes[key] = self._probe(tok.norm, tok.specific)
        return found

    def _probe(self, norm: str, specific: bool) -> Probe:
        forms: set[str] = set()
        # `_match_weight`'s checks in its order; each that looks in the passage's norms is a set of forms here
        value = norm.replace(",", "")
        number = float(value) if _PLAIN_NUMBER.fullmatch(value) else None
        dimension = _UNIT_DIMENSION.get(norm) or _UNIT_DIMENSION.get(norm + "s")
        unit = dimension[1] if dimension is not None else None
        if not specific and len(norm) >= 3 and norm.isalpha():
            forms.update(_near_forms(norm, self._alphabetic_norms().get(norm[:3], ())))
        if specific and norm.isalpha() and len(norm) >= 3:  # `name_plural`'s forms
            forms.add(norm + "s")
            if norm.endswith("s") and len(norm) >= 4:
                forms.add(norm[:-1])
        count = None
        if norm in _NUMBER_WORDS:
            count = _NUMBER_WORDS[norm]
            forms.add(str(count))
        elif norm.isdigit() and len(norm) <= 2 and (word := _NUMBER_NAMES.get(int(norm))) is not None:
            forms.add(word)
        file = None
        if "/" in norm:
            cwd = self.cwd
            rel = norm[len(cwd) :] if cwd and norm.startswith(cwd) else norm
            forms.update(n for n in self._slashed_norms() if n.endswith("/" + rel) or n == rel or rel.endswith("/" + n))
            file = _basename(norm)
        elif specific and len(norm) >= 5:
            forms.update(n for n in self._slashed_norms() if n.endswith("/" + norm))
        forms.discard(norm)
        rest = (
            None
            if number is None and unit is None and count is None and file is None
            else _Amounts(number, unit, count, file)
        )
        return Probe(norm, SPECIFIC_WEIGHT if specific else 1.0, frozenset(forms), rest)

    def _alphabetic_norms(self) -> dict[str, tuple[str, ...]]:
        """The vocabulary's alphabetic norms by their first three letters (`Passage.by_prefix` of every passage)."""
        if not self._alphabetic and self.index:
            lists: dict[str, list[str]] = {}
            for norm in self.index:
                if norm.isalpha():
                    lists.setdefault(norm[:3], []).append(norm)
            self._alphabetic.update((k, tuple(v)) for k, v in lists.items())
        return self._alphabetic

    def _slashed_norms(self) -> tuple[str, ...]:
        if self._slashed is None:
            self._slashed = tuple(n for n in self.index if "/" in n)
        return self._slashed

    def overlap_probes(self, fact_toks: Sequence[Token]) -> tuple[list[Probe], float]:
        """The probes `probed_overlap` reads for `overlap(fact_toks, …)`: one per norm (its first token's), "not" left
        out; and their total weight (0 when none)."""
        seen: dict[str, Token] = {}
        for tok in fact_toks:
            if tok.norm != "not":
                seen.setdefault(tok.norm, tok)
        probes = [self.probe(tok) for tok in seen.values()]
        total = 0.0
        for probe in probes:
            total += probe.weight
        return probes, total

    def shared_probes(self, fact_toks: Sequence[Token]) -> list[Probe]:
        """The probes `probed_shared` reads for `_shared(fact_toks, …)`: one per norm (its last token's)."""
        return [self.probe(tok) for tok in {t.norm: t for t in fact_toks}.values()]

    def has_identifier(self, key: str) -> bool:
        """Whether an identifier occurs in the visible text, in one of its forms."""
        key = key.lower().lstrip("@")
        if not key:
            return False
        if re.fullmatch(r"[0-9a-f-]+", key):
            return self._holds(key, re.compile(r"(?<![0-9a-z])" + re.escape(key) + r"(?![0-9a-z])"))
        if self._holds(key):
            return True
        if self.cwd and key.startswith(self.cwd) and len(key) > len(self.cwd):
            return self._holds(key[len(self.cwd) :])
        return False

    def _holds(self, needle: str, pattern: re.Pattern[str] | None = None) -> bool:
        """Whether a passage holds `needle` (lower case), looked up by its rarest word instead of reading every
        passage (an identifier has no spaces: it is inside one passage; its words are whole words there, or it is
        another identifier: `notes.txt` is not kept by `mynotes.txt`)."""
        words = _WORD.findall(needle)
        if not words:
            return needle in self.whole
        postings = min((self._word_index().get(w, []) for w in words), key=len)
        for position in postings:
            text = normalize_text(self.items[position].text)
            if (pattern.search(text) is not None) if pattern is not None else needle in text:
                return True
        return False

    def _word_index(self) -> dict[str, list[int]]:
        if not self._words:
            for position, item in enumerate(self.items):
                for word in set(_WORD.findall(item.text.lower())):
                    self._words.setdefault(word, []).append(position)
        return self._words

    def toks(self, text: str, keep_stop: bool = False) -> list[Token]:
        """`tokens`, kept for this audit (a passage is compared with many facts; do not change the list).

        At most `TOKENS_KEPT` texts are kept: past them the cache starts again (see there).
        """
        key = (text, keep_stop)
        done = self._tokens.get(key)
        if done is None:
            if len(self._tokens) >= TOKENS_KEPT:
                self._tokens.clear()
            done = self._tokens[key] = tokens(text, keep_stop)
        return done

    def know(self, statements: Iterable[tuple[str, int]]) -> None:
        """Record the summarized conversation's statements (text, order) for `restated`."""
        for text, order in statements:
            norm = _statement(text)
            if norm:
                self.said[norm] = max(order, self.said.get(norm, -1))

    def restated(self, passage: Passage) -> int | None:
        """The order of the conversation's statement the passage repeats word for word, if any."""
        return self.said.get(passage.statement())

    def line_with(self, needle: str) -> str:
        """The first passage holding `needle` (any case), looked up by its rarest word rather than read through."""
        needle = needle.lower()
        words = _WORD.findall(needle)
        if not words:
            return next((item.text for item in self.items if needle in item.text.lower()), "")
        # its inner words are whole words of the passage; its first and last may be parts of longer ones ("etry.py"
        # in "retry.py"): those are tried as whole words first, then the passages are read through
        inner = words[1:-1] or words
        postings = min((self._word_index().get(w, []) for w in inner), key=len)
        found = next((self.items[p].text for p in postings if needle in self.items[p].text.lower()), "")
        if found or words[1:-1]:
            return found
        return next((item.text for item in self.items if needle in item.text.lower()), "")


_WORD = re.compile(r"[a-z0-9]+")


def sentences(text: str) -> Iterator[str]:
    """A text's sentences as passages are cut: line by line, list markers and headings off, then at sentence ends."""
    for line in text.splitlines():
        body = re.sub(r"^\s*(?:[-*+>]|\d+[.)]|#+|\[[ xX]\])\s*", "", line).strip()
        yield from _SENTENCE_END.split(body)


def _statement(text: str) -> str:
    """A statement's normal form for `Passages.restated`: lower case, no markup quotes, no closing punctuation."""
    text = _LEAD_LABEL.sub("", normalize_text(text.replace("`", "").replace("**", "")))
    return text.strip(" \t.,;:!?*_>-\"'")


# a line's leading label ("Assistant:", "User said:", "- **Decision**:"): who or what, not the statement
_LEAD_LABEL = re.compile(r"^[\w ]{1,24}:\s+")


def passages(texts: Sequence[str], cwd: str | None = None) -> Passages:
    """Index the visible texts (`cwd`: the session's working directory, for relative paths)."""
    base = cwd.rstrip("/").lower() + "/" if cwd and cwd.strip("/") else None
    # each audit starts with nothing kept from an earlier one (pieces' tokens, facts' clauses and choices, passages'
    # states): its work is then its own, whatever ran before it in the process
    for cached in (_piece_tokens, _choice_of, _clause_words, _states):
        cached.cache_clear()
    return Passages(texts, base)


# ---------------------------------------------------------------------------
# Judging one fact
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    rule: str
    score: float = 0.0
    closest: str = ""
    reason: str = ""


def _near(word: str, passage: Passage) -> bool:
    """A plain word in another form ("cache"/"cach", "listen"/"listener", "run"/"runn"): one is a short extension of the other.

    Only the passage's alphabetic norms with the word's first three letters can be one
    (`Passage.by_prefix`), so only those are read, not every norm of a long passage.
    """
    if len(word) < 3 or not word.isalpha():
        return False
    groups = passage.__dict__.get("_by_prefix") or passage.by_prefix()
    for other in groups.get(word[:3], ()):
        short, long_ = (word, other) if len(word) <= len(other) else (other, word)
        if long_.startswith(short[: max(3, len(short) - 1)]) and len(long_) - len(short) <= 3 and len(short) >= 3:
            return True
    return False


def _match_weight(tok: Token, passage: Passage, cwd: str | None) -> float:
    """How much of `tok` the passage holds: 1 (the token, or the same path in another form), 0.5 (the file name only), 0."""
    if tok.norm in passage.norms:
        return 1.0
    if passage.amounts:
        value = tok.norm.replace(",", "")
        if _PLAIN_NUMBER.fullmatch(value) and any(q.value == float(value) for q in passage.amounts):
            return 1.0
        unit = _UNIT_DIMENSION.get(tok.norm) or _UNIT_DIMENSION.get(tok.norm + "s")
        if unit is not None and any(q.unit == unit[1] for q in passage.amounts):
            return 1.0
    if not tok.specific and _near(tok.norm, passage):
        return 1.0
    if tok.specific and name_plural(tok.norm, passage.norms):
        return 1.0  # "URLs" for "URL": a name's plural (names are not stemmed)
    if same_number(tok.norm, passage.norms, (q.value for q in passage.amounts)):
        return 1.0  # "three" for "3"
    if "/" in tok.norm:
        rel = tok.norm[len(cwd) :] if cwd and tok.norm.startswith(cwd) else tok.norm
        if any(n.endswith("/" + rel) or n == rel or rel.endswith("/" + n) for n in passage.norms if "/" in n):
            return 1.0
        if _basename(tok.norm) in passage.norms or _basename(tok.norm) in passage.basenames:
            return 0.5
    elif tok.specific and len(tok.norm) >= 5 and tok.norm in passage.path_tails():
        return 1.0
    return 0.0


def overlap(fact_toks: Sequence[Token], passage: Passage, cwd: str | None) -> float:
    """The weighted share of the fact's tokens in the passage (specific tokens weigh more)."""
    seen: dict[str, Token] = {}
    for tok in fact_toks:
        if tok.norm != "not":
            seen.setdefault(tok.norm, tok)
    if not seen:
        return 0.0
    norms = passage.norms
    total = got = 0.0
    for tok in seen.values():
        weight = SPECIFIC_WEIGHT if tok.specific else 1.0
        total += weight
        got += weight * (1.0 if tok.norm in norms else _match_weight(tok, passage, cwd))  # its first test, inlined
    return got / total


# ---------------------------------------------------------------------------
# The same weights, each token's other forms looked up once per audit
# ---------------------------------------------------------------------------
#
# `overlap` and `_shared` run for every token of every fact against each of ~36 candidate passages, and nearly every
# token a passage lacks is then looked for in another form (`_match_weight`: a near form, a name's plural, a number in
# words, a path written otherwise) and not found. Every passage `Passages` compares is one of its own items or two
# neighbours merged, so its norms are among the items' norms (the vocabulary, `Passages.index`): a token's forms that
# `_match_weight` would find by reading a passage's norms are found once, among the vocabulary's (`Passages.probe`),
# and each passage is then asked whether it holds any of them (one set test). Only what a passage's quantities say
# (a number's value, a unit, a number in words) and a path's file name (0.5) are asked of each passage.


@dataclass(frozen=True, slots=True)
class _Amounts:
    """What of a token's `_match_weight` a passage's quantities and file names tell (the rest is `Probe.forms`)."""

    number: float | None  # a plain number: 1 when a quantity of the passage has its value
    unit: str | None  # a unit's word: 1 when a quantity of the passage has that unit
    count: int | None  # a number in words: 1 when a quantity of the passage has its value
    file: str | None  # a path's file name: 0.5 when it is among the passage's norms or file names

    def weight(self, passage: Passage) -> float:
        amounts = passage.amounts
        if amounts:
            if self.number is not None and any(q.value == self.number for q in amounts):
                return 1.0
            if self.unit is not None and any(q.unit == self.unit for q in amounts):
                return 1.0
            if self.count is not None and any(q.value == self.count for q in amounts):
                return 1.0
        if self.file is not None and (self.file in passage.norms or self.file in passage.basenames):
            return 0.5
        return 0.0


@dataclass(frozen=True, slots=True)
class Probe:
    """A token's `_match_weight` against any passage of one `Passages`: 1 when the passage's norms hold its norm or one
    of `forms`, else what `amounts` tells (None: nothing)."""

    norm: str
    weight: float  # the token's weight in `overlap`
    forms: frozenset[str]
    amounts: _Amounts | None

    def match(self, passage: Passage) -> float:
        """`_match_weight(tok, passage, cwd)` for a passage of the `Passages` that made the probe."""
        norms = passage.norms
        if self.norm in norms or (self.forms and not self.forms.isdisjoint(norms)):
            return 1.0
        return 0.0 if self.amounts is None else self.amounts.weight(passage)


def _near_forms(word: str, alphabetic: Iterable[str]) -> Iterator[str]:
    """The words of `alphabetic` (alphabetic, with `word`'s first three letters) that `_near` takes for `word`."""
    for other in alphabetic:
        short, long_ = (word, other) if len(word) <= len(other) else (other, word)
        if long_.startswith(short[: max(3, len(short) - 1)]) and len(long_) - len(short) <= 3 and len(short) >= 3:
            yield other


def probed_overlap(probes: Sequence[Probe], total: float, passage: Passage) -> float:
    """`overlap(fact_toks, passage, cwd)` from the fact's `Passages.overlap_probes` (`probes`, `total`)."""
    if not total:
        return 0.0
    norms = passage.norms
    got = 0.0
    for probe in probes:
        if probe.norm in norms or (probe.forms and not probe.forms.isdisjoint(norms)):
            got += probe.weight
        elif probe.amounts is not None:
            got += probe.weight * probe.amounts.weight(passage)
    return got / total


def probed_shared(probes: Sequence[Probe], passage: Passage, enough: int) -> bool:
    """Whether `_shared(fact_toks, passage, cwd) >= enough`, from the fact's `Passages.shared_probes`."""
    norms = passage.norms
    found = 0
    for probe in probes:
        if (
            probe.norm in norms
            or (probe.forms and not probe.forms.isdisjoint(norms))
            or (probe.amounts is not None and probe.amounts.weight(passage) > 0)
        ):
            found += 1
            if found >= enough:
                return True
    return False


_STAMP = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?|\d{4}-\d{2}-\d{2}(?:t[\d:.]+z?)?")


def _variant(x: str, y: str) -> bool:
    return x in y or y in x or x[:5] == y[:5]


def _substitution(fact_toks: Sequence[Token], passage: Passage) -> str | None:
    """The same sentence frame with something else in one place: another name, flag, path or object."""
    # times and dates are when something was said (OpenClaw stamps every prompt), not what
    a = [t.norm for t in fact_toks if t.norm != "not" and not _STAMP.fullmatch(t.norm)]
    b = passage.frame_norms()
    if len(a) < 2:
        return None
    # the matching blocks hold only tokens the passage has: too few of them, and no frame is shared (no diff needed)
    present = len([x for x in a if x in passage.norms])
    if present / len(a) < (0.5 if len(a) <= 4 else 0.6) or (present < 2 and len(a) > 2):
        return None
    # the frame is where the fact's words are: from the first of them, as long as the fact and a little more (a long
    # line's other sentences are not its frame, and diffing them made the work grow with the passage)
    mine = set(a)
    start = next((i for i, y in enumerate(b) if y in mine), 0)
    b = b[max(0, start - 2) : start + len(a) + 6]
    # the fact's words the frame holds bound what the diff can match: too few, and it is not made (the same answer)
    window = set(b)
    can_match = len([x for x in a if x in window])
    if can_match / len(a) < (0.5 if len(a) <= 4 else 0.6) or (can_match < 2 and len(a) > 2):
        return None
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    matched = sum(block.size for block in matcher.get_matching_blocks())
    if matched / len(a) < (0.5 if len(a) <= 4 else 0.6) or (matched < 2 and len(a) > 2):
        return None
    # with one token of frame, only a structural name (a dotted, underscored or numbered one) can stand in another's place
    structural = matched >= 2
    specific = {t.norm for t in fact_toks if t.specific}
    passage_specific = {t.norm for t in passage.toks if t.specific}
    ops = matcher.get_opcodes()
    inner = [o for o in ops if o[0] != "equal"]
    amounts = quantities(" ".join(t.raw for t in fact_toks))
    same_amounts = bool(amounts) and all(_has_amount(passage.amounts, q) for q in amounts)
    for n, (op, i1, i2, j1, j2) in enumerate(ops):
        if op != "replace":
            continue
        gone = [x for x in a[i1:i2] if x not in passage.norms and not within_named_folder(x, passage.text)]
        new = [y for y in b[j1:j2] if y not in a]
        plain_variant = any(_variant(x, y) for x in gone for y in new if x.isalpha() and y.isalpha())
        if not gone or not new or plain_variant:
            continue
        swapped = any(x in specific for x in gone) and any(y in passage_specific for y in new)
        if swapped and (structural or (any(map(specific_form, gone)) and any(map(specific_form, new)))):
            return f"{' '.join(new)} instead of {' '.join(gone)}"
        framed = 0 < n < len(ops) - 1 and ops[n - 1][0] == "equal" and ops[n + 1][0] == "equal"
        wide = max(i2 - i1, j2 - j1) >= 2
        # another object in the same frame ("add a circuit breaker" for "add retry with jitter"); not when what the
        # fact states is its numbers and the passage holds them all ("Tile cache TTL: 90 days" for "The tile cache
        # keeps entries for 90 days": other words around the same quantity)
        one_place = len(inner) == 1 and i2 - i1 <= 3 and j2 - j1 <= 3 and matched / len(a) >= 0.6
        if framed and wide and one_place and not same_amounts:
            return f"{' '.join(new)} instead of {' '.join(gone)}"
    return None


def _role_swap(
    fact_text: str, passage_text: str, toks: Toks = _plain_tokens, norms: AbstractSet[str] | None = None
) -> str | None:
    """The same frame and the same role word ("using", "by", "in" …) followed by something else entirely.

    `norms`: the passage's `Passage.norms`, when `passage_text` is one passage's own text: a frame word that cannot be
    among its words rules the frame out before the passage is read (`_may_hold`).
    """
    fact_words = toks(fact_text, True)
    roles = []
    for i, tok in enumerate(fact_words):
        if tok.norm not in _ROLE_MARKERS:
            continue
        frame = [t.norm for t in fact_words[:i] if t.norm not in _STOP and t.norm != "not"]
        tail = [t.norm for t in fact_words[i + 1 :] if t.norm not in _STOP][:3]
        if len(frame) < 2 or not tail:
            continue
        if norms is None or all(_may_hold(norms, f) for f in frame[-3:]):
            roles.append((tok, frame, tail))
    if not roles:
        return None  # no role word with a frame the passage can hold: the passage is not read
    passage_words = toks(passage_text, True)
    for tok, frame, tail in roles:
        for j, other in enumerate(passage_words):
            if other.norm != tok.norm:
                continue
            before = {t.norm for t in passage_words[:j]}
            after = [t.norm for t in passage_words[j + 1 :] if t.norm not in _STOP][:3]
            framed = all(f in before for f in frame[-3:]) and after and not set(after) & set(tail)
            if framed and not set(tail) & {t.norm for t in passage_words}:
                return f"{' '.join(after)} instead of {' '.join(tail)}"
    return None


# the norms a word `tokens` drops (a stop word, or shorter than three letters) can have: a passage's `norms` lack them
# though its words kept with the stop words (`toks(text, True)`) hold them
_STOP_FORMS = _STOP | frozenset(
    stem(w.replace("'", "")) for w in _STOP if _PLAIN_WORD.fullmatch(w) and not specific_form(w)
)


def _may_hold(norms: AbstractSet[str], norm: str) -> bool:
    """Whether a passage's words kept with the stop words can hold `norm`, told from its `Passage.norms`."""
    return norm in norms or norm in _STOP_FORMS or len(norm) < 3


def _flip(
    fact_text: str,
    fact_toks: Sequence[Token],
    passage: Passage,
    cwd: str | None,
    toks: Toks = _plain_tokens,
    probed: tuple[list[Probe], float] | None = None,
) -> str | None:
    """The same statement with its negation or modality turned around (`probed`: `Passages.overlap_probes` of the
    fact's plain tokens, when the passage is one of those `Passages`)."""
    plain = [t for t in fact_toks if not t.specific]
    if len(plain) < 2:
        return None
    if (probed_overlap(*probed, passage) if probed is not None else overlap(plain, passage, cwd)) < FLIP_OVERLAP:
        return None
    if _choice_of(fact_text) is not None and passage.choice(toks) is not None:
        return None  # "A instead of B" and "A (not B)": the choices are compared, a "not" before B is no flip
    # clause by clause: each clause of the fact against the passage's clauses that say most of it (a quoted error's
    # "Cannot …" elsewhere in the line says nothing; "push to origin only, never to upstream" restates "do not push
    # to upstream; only push to origin" clause for clause); a flip when none of them has the fact clause's polarity
    words = {t.norm for t in plain}
    theirs_all = passage.clause_words(toks)
    for clause, clause_words in _clause_words(fact_text):
        mine_words = clause_words & words
        best = max([len(mine_words & theirs) for _, theirs in theirs_all], default=0)
        if best == 0:
            continue
        # a passage clause that says less than half of the fact's clause is about something else ("decides whether a
        # gate opens" for "A pass that can't be read must open nothing")
        if 2 * best < len(mine_words):
            continue
        mine = polarity(clause)
        best_clauses = [(c, said) for c, said in theirs_all if len(mine_words & said) == best]
        theirs = {polarity(c) for c, _ in best_clauses}
        if mine not in theirs and (mine == "negative" or "negative" in theirs):
            # the opposite names what the negation is about: "Hands off the tariff sheet" says nothing of touching it,
            # so it does not turn "don't touch the tariff sheet" around ("Touch the tariff sheet" would)
            if mine == "negative":
                governed, other = _governed(clause), set().union(*(said for _, said in best_clauses))
            else:
                negative = [c for c, _ in best_clauses if polarity(c) == "negative"]
                governed, other = _governed(negative[0]), set(clause_words)
            if governed is not None and not _names_word(other, governed):
                continue
            return f"\u201c{passage.text.strip()}\u201d states the opposite"
    return None


@lru_cache(maxsize=256)
def _clause_words(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """A fact's clauses with their norms, made once while its candidates are compared (any `Toks` gives the same
    tokens: `Passages.toks` keeps `tokens`' own)."""
    return tuple((c, frozenset(t.norm for t in tokens(c, False))) for c in _clauses(text))


def _clauses(text: str) -> list[str]:
    # a colon joins a statement to its reason ("Do not bump the MSRV: Debian ships 1.70."): two clauses
    return [c for c in re.split(r"[;,:]\s+|\s+[-\u2013\u2014]+\s+", text) if c.strip()]


_EACH = re.compile(r"\b(each|every|per)\b")
_ALL = re.compile(r"\b(single|shared|for all|one \w+ for all|all of them)\b")


def _quantifier_flip(
    fact_text: str,
    fact_toks: Sequence[Token],
    passage: Passage,
    cwd: str | None,
    probed: tuple[list[Probe], float] | None = None,
) -> str | None:
    """ "one per X" stated as "one for all X" (or the other way round); `probed`: `Passages.overlap_probes` of
    `fact_toks`, when the passage is one of those `Passages`."""
    plain = [t for t in fact_toks if not t.specific]
    if len(plain) < 2:
        return None
    if (probed_overlap(*probed, passage) if probed is not None else overlap(fact_toks, passage, cwd)) < FLIP_OVERLAP:
        return None
    mine, theirs = fact_text.lower(), passage.text.lower()
    if _EACH.search(mine) and _ALL.search(theirs) and not _EACH.search(theirs):
        return "one for all instead of one each"
    if _ALL.search(mine) and _EACH.search(theirs) and not _ALL.search(theirs):
        return "one each instead of one for all"
    return None


def _reversed_choice(fact_text: str, passage: Passage, toks: Toks = _plain_tokens) -> str | None:
    mine = _choice_of(fact_text)
    theirs = passage.choice(toks)
    if mine is None or theirs is None:
        return None
    chosen, rejected = mine[0] - mine[1], mine[1] - mine[0]
    p_chosen, p_rejected = theirs
    reversed_ = len(p_chosen & rejected) + len(p_rejected & chosen)
    same = len(p_chosen & chosen) + len(p_rejected & rejected)
    if reversed_ > same and p_chosen & rejected and p_rejected & chosen:
        return "the choice is reversed"
    return None


@dataclass(frozen=True)
class FactView:
    """What the comparison needs of a fact: its text, its role and state."""

    text: str
    kind: str
    identifiers: tuple[str, ...] = ()
    # the sentence an identifier was named in (for "another name in the same role")
    context: str = ""
    # an open task (a TODO or request): a passage stating it done contradicts it
    open_task: bool = False
    # an error: "fixed" or "open" (a passage stating the other contradicts it)
    error_state: str | None = None
    # how an error was fixed: kept when a passage says the same thing was fixed, even without the how
    fix: bool = False
    # its place among the conversation's statements (Passages.know); -1 when unknown
    order: int = -1


def judge(fact: FactView, seen: Passages) -> Judgement:
    """The verdict on one fact (see the module docstring)."""
    if fact.kind == "identifier":
        return _judge_identifier(fact, seen)
    return _judge_sentence(fact, seen)


def _judge_identifier(fact: FactView, seen: Passages) -> Judgement:
    key = fact.text.lower().lstrip("@").rstrip(".,;:")
    if key.endswith("()"):
        key = key[:-2]
    if seen.has_identifier(key):
        return Judgement("kept", "identifier", 1.0, seen.line_with(_basename(key)))
    line = _unschemed_url_line(key, seen)
    if line:
        return Judgement("reworded", "url-parts", 1.0, line, "the URL is written as host:port with its path beside it")
    if fact.context:
        contradiction = _contradiction(FactView(fact.context, "context", order=fact.order), seen)
        if contradiction is not None:
            return contradiction
    host = _URL_HOST.match(key)
    if host is not None and "." in host.group(1) and seen.has_identifier(host.group(1)):
        line = seen.line_with(host.group(1))
        return Judgement("reworded", "host", 0.5, line, "only the host is visible")
    if "/" in key and " " not in key:
        name = _basename(key)
        if len(name) >= 5 and "." in name:
            line = seen.line_with(name)
            if line and re.search(r"(?<![\w./@-])" + re.escape(name) + r"(?![\w-])", line.lower()):
                return Judgement("reworded", "file-name", 0.5, line, "only the file name is visible")
    line = _arguments_line(key, seen)
    if line:
        return Judgement("reworded", "arguments", 1.0, line, "what the command acts on is named together")
    return Judgement("lost", "none", 0.0)


# a URL's host ("meter.local" of "http://meter.local/api/v1/counter")
_URL_HOST = re.compile(r"^[a-z][a-z0-9+.-]*://([^/:?#\s]+)")
# a URL's host with its port, and its path ("192.168.7.20:1880" and "/hives" of "http://192.168.7.20:1880/hives")
_URL_PARTS = re.compile(r"^[a-z][a-z0-9+.-]*://([^/?#\s]+)(/[^?#\s]*)?$")


def _unschemed_url_line(key: str, seen: Passages) -> str:
    """For a URL, the passage that writes it without its scheme: its host (with the port, if any) and, on the same
    line, its path ("Node-RED gateway: 192.168.7.20:1880 (/hives)" for "http://192.168.7.20:1880/hives"); "" when
    none does (a passage with the host but another path or none is judged as before: half kept, or another name)."""
    parts = _URL_PARTS.match(key)
    if parts is None or "." not in parts.group(1) or not seen.has_identifier(parts.group(1)):
        return ""
    line = seen.line_with(parts.group(1))
    path = (parts.group(2) or "").rstrip("/")
    if path and not re.search(r"(?<![\w./-])" + re.escape(path) + r"(?![\w-])", line.lower()):
        return ""
    return line


# the fewest words a command's arguments must have for them alone to say what it did
_ARGUMENT_WORDS = 2


def _arguments_line(command: str, seen: Passages) -> str:
    """For a command of a program and its arguments (`cp ratings.db /tmp/r.db`, `apt install libpq-dev`), the passage
    that names every word of its arguments, in any form (a path as written elsewhere, "installing" for "install"),
    the program itself said otherwise or not at all ("recompute on a copy in /tmp (`--db /tmp/r.db`)" with "ratings.db",
    "needs libpq-dev before …" with "installing"); "" when there is none or the arguments are fewer than two words."""
    words = command.split()
    if len(words) < 2:
        return ""
    wanted = {t.norm: t for t in tokens(" ".join(words[1:]))}
    if len(wanted) < _ARGUMENT_WORDS:
        return ""
    probes = [seen.probe(t) for t in wanted.values()]
    for position in seen.candidates(wanted):
        for passage in seen.merged(position)[:1]:
            if all(probe.match(passage) >= 1.0 for probe in probes):
                return passage.text
    return ""


def _shared(fact_toks: Sequence[Token], passage: Passage, cwd: str | None) -> int:
    norms = passage.norms
    return sum(
        1 for t in {t.norm: t for t in fact_toks}.values() if t.norm in norms or _match_weight(t, passage, cwd) > 0
    )


def _contradiction(fact: FactView, seen: Passages, fact_toks: list[Token] | None = None) -> Judgement | None:
    """A passage about the same thing that states it otherwise, if any (`fact_toks`: `tokens(fact.text)` when made)."""
    if fact_toks is None:
        fact_toks = tokens(fact.text)
    if not fact_toks:
        return None
    fact_q = quantities(digits_for_words(fact.text))  # "three retries" is 3 retries (rewording.py)
    wordy = [t for t in _message(fact, fact_toks) if not _DIGIT.search(t.norm)]
    # `overlap(wordy, …) if _shared(wordy, …) >= 2 else 0.0`, each token's other forms looked up once (`Probe`)
    shared = seen.shared_probes(wordy)
    probes, total = seen.overlap_probes(wordy)
    plain_probes = seen.overlap_probes([t for t in fact_toks if not t.specific])  # `_flip`'s
    all_probes = seen.overlap_probes(fact_toks)  # `_quantifier_flip`'s
    for position in seen.candidates(t.norm for t in fact_toks):
        for passage in seen.merged(position)[:1]:
            topical = probed_overlap(probes, total, passage) if probed_shared(shared, passage, 2) else 0.0
            if fact.error_state is not None and _telling(fact_toks) & passage.norms:
                topical = max(topical, 1.0)  # an error is named by its telling tokens (test name, code, class)
            reason = None
            # a passage repeating another statement of the conversation word for word: the agent did or said both
            # ("I'll read `a.py` first." then "I'll read `b.py` first."), so another name in the same role is no
            # contradiction; another number, choice or polarity is one only when the repeated statement came first
            # (a later statement updates the earlier one)
            restated = seen.restated(passage)
            if fact_q and topical >= TOPICAL_OVERLAP and not _updated(fact, restated):
                reason = _quantity_conflict(fact_q, passage.amounts)
            if restated is None:
                reason = (
                    reason
                    or _substitution(_framed(fact, fact_toks, passage), passage)
                    or _role_swap(fact.text, passage.text, seen.toks, passage.norms)
                )
            if not _updated(fact, restated):
                reason = reason or _reversed_choice(fact.text, passage, seen.toks)
                if fact.error_state is None:  # an error's "could not create X" is what failed, not a rule to flip
                    reason = reason or _flip(fact.text, fact_toks, passage, seen.cwd, seen.toks, plain_probes)
                reason = reason or _quantifier_flip(fact.text, fact_toks, passage, seen.cwd, all_probes)
            if reason is None and topical >= TOPICAL_OVERLAP:
                reason = _state_conflict(fact, passage.text)
            if reason is not None:
                return Judgement("contradicted", "contradiction", round(topical, 3), passage.text, reason)
    return None


# "Recompute of 2025 failed: database is locked.": a passage naming what failed before the error's message
_FAILED_LABEL = re.compile(r"\b(?:failed|fails|errored|stopped|crashed|aborted|refused|broke)\s*:\s+\S")


def _framed(fact: FactView, fact_toks: list[Token], passage: Passage) -> list[Token]:
    """The fact's tokens whose frame `_substitution` compares: an error's message without its label
    ("sqlite3.OperationalError" of "sqlite3.OperationalError: database is locked") where the passage puts a label of
    its own before the same message ("Recompute of 2025 failed: database is locked."): what failed stands where the
    exception's name stood, and is no other name in its place."""
    if fact.error_state is None or ": " not in fact.text or not _FAILED_LABEL.search(passage.text.lower()):
        return fact_toks
    message = tokens(fact.text.split(": ", 1)[1])
    return message if len(message) >= 2 else fact_toks


def _updated(fact: FactView, restated: int | None) -> bool:
    """Whether the passage repeats a statement the conversation made after this fact (or this fact itself)."""
    return restated is not None and restated >= fact.order >= 0


def _state_conflict(fact: FactView, passage: str) -> str | None:
    if not fact.open_task and fact.error_state is None:
        return None  # no state to contradict
    done, open_, fixed, unfixed = _states(passage)
    if done:
        # a done word the task itself says ("keeping the old GUIDs for already published episodes") states nothing of
        # it; a passive done form states the task done only when its verb is one of the task's words ("the harbour
        # server was reinstalled" is no "Deploy it to the harbour server." done; "the key was rotated" is "rotate
        # the key" done)
        own = fact.text.lower()
        own_norms = {t.norm for t in tokens(fact.text)}
        done = any(m.group(0) not in own and _done_of(m.group(0), own_norms) for m in _DONE.finditer(passage.lower()))
    if fact.open_task and done and not open_ and not _FAILED.search(passage.lower()):
        return "an open task is stated as done"
    if fact.error_state == "open" and fixed and not unfixed:
        return "an unresolved error is stated as fixed"
    if fact.error_state == "fixed" and unfixed:
        return "a fixed error is stated as still failing"
    return None


_PASSIVE_DONE = re.compile(r"^(?:was|were|has been) (\w+)$")


def _done_of(said: str, task_norms: AbstractSet[str]) -> bool:
    """Whether a done form `_DONE` found speaks of the task: any form but a passive one, or a passive one whose verb
    is a word of the task (in any form) or "done"."""
    passive = _PASSIVE_DONE.match(said)
    if passive is None or passive.group(1) == "done":
        return True
    verb = tokens(passive.group(1))
    return bool(verb) and _names_word(task_norms, verb[0].norm)


@lru_cache(maxsize=4096)
def _states(passage: str) -> tuple[bool, bool, bool, bool]:
    """Whether a passage's text states something done, open, fixed, still failing (read once per text: a passage is
    compared with many facts)."""
    lower = passage.lower()
    return tuple(p.search(lower) is not None for p in (_DONE, _OPEN, _FIXED, _UNFIXED))  # type: ignore[return-value]


def _telling(fact_toks: Sequence[Token]) -> set[str]:
    """An error's telling tokens: specific ones other than generic error words."""
    generic = {"error", "errors", "failed", "assert", "assertionerror", "typeerror", "valueerror", "exception"}
    return {t.norm for t in fact_toks if t.specific and t.norm not in generic and len(t.norm) >= 4}


def _quoted_message(error: str, seen: Passages) -> str:
    """The passage that quotes an error's message, the words after its last ": " (two or more: "scp hit 'Read-only
    file system'" for `scp: dest open "/opt/irrig/bin/controller": Read-only file system`), else "": the message
    quoted says which failure it was, without the path or the program that printed it."""
    if ": " not in error:
        return ""
    message = error.rsplit(": ", 1)[1].strip().strip("'\"`.").lower()
    if len(message.split()) < 2:
        return ""
    for quote in ("'", '"', "`"):
        line = seen.line_with(f"{quote}{message}{quote}")
        if line:
            return line
    return ""


def judge_kept(fact: FactView, seen: Passages, skip: Callable[[str], bool] | None = None) -> Judgement:
    """Kept, reworded or lost, the contradiction checks left out (for a statement of the assistant's own: its answer
    to a question names too little of what it settles to be read as stated otherwise); `skip`: passages (by their
    text) that cannot keep it, each read alone (not merged with its neighbours: a neighbour's words are not its own)."""
    return _judge_sentence(fact, seen, contradictions=False, skip=skip)


def _message(fact: FactView, fact_toks: list[Token]) -> list[Token]:
    """An error's tokens without its label ("fatal runtime error:", rewording.py) when two words more are left."""
    label = error_label(fact.text) if fact.kind == "error" else set()
    if not label:
        return fact_toks
    message = [t for t in fact_toks if t.norm not in label and t.raw.lower() not in label]
    return message if len({t.norm for t in message}) >= 2 else fact_toks


def _as_said(fact: FactView, fact_toks: list[Token]) -> list[Token]:
    """The tokens by which a rewording is scored (rewording.py): an error's label ("fatal runtime error:") left out
    when the message has two words more, a quoted phrase counted as a quoted word is (its longest word specific)."""
    fact_toks = _message(fact, fact_toks)
    quoted = quoted_keywords(fact.text)
    if not quoted:
        return fact_toks
    return [Token(t.norm, True, t.raw) if not t.specific and t.raw.lower() in quoted else t for t in fact_toks]


def _judge_sentence(
    fact: FactView, seen: Passages, contradictions: bool = True, skip: Callable[[str], bool] | None = None
) -> Judgement:
    key = normalize_sentence(fact.text)
    if key and key in seen.whole and (skip is None or not skip(seen.line_with(key[:60]))):
        line = seen.line_with(key[:60])
        state = _state_conflict(fact, line.lower().replace(key[:60], " ")) if line else None
        if state is not None:
            return Judgement("contradicted", "contradiction", 1.0, line, state)
        return Judgement("kept", "substring", 1.0, line)
    all_toks = tokens(fact.text)  # made once for both steps, not kept past the fact (facts are many)
    contradiction = _contradiction(fact, seen, all_toks) if contradictions else None
    if contradiction is not None:
        return contradiction
    fact_toks = [t for t in all_toks if t.norm not in _REVOKE or t.specific]
    if not fact_toks:
        return Judgement("lost", "none", 0.0)
    scored = _as_said(fact, fact_toks)
    best, best_text = 0.0, ""
    probes, total = seen.overlap_probes(scored)  # `overlap(scored, passage, seen.cwd)`, the forms looked up once
    for position in seen.candidates(t.norm for t in fact_toks):
        for passage in seen.merged(position) if skip is None else seen.merged(position)[:1]:
            if skip is not None and skip(passage.text):
                continue
            score = probed_overlap(probes, total, passage)
            if score > best:
                best, best_text = score, passage.text
    if fact.fix:
        named = _telling(fact_toks)
        for position in seen.candidates(named):
            item = seen.items[position]
            if named & item.norms and re.search(r"\b(fixed|resolved|fix)\b", item.text, re.IGNORECASE):
                return Judgement("reworded", "fix", round(best, 3), item.text)
    telling = _telling(fact_toks) if fact.kind == "error" else set()
    said = _error_judgement(fact, telling, seen, best, best_text) if telling else None
    return said if said is not None else _by_overlap(fact, scored, seen, best, best_text)


def _error_judgement(
    fact: FactView, telling: set[str], seen: Passages, best: float, best_text: str
) -> Judgement | None:
    """An error judged by its telling tokens (`_telling`) or its message quoted; None when only its label's code is
    telling (its words may say it: `_by_overlap`)."""
    quoted = _quoted_message(fact.text, seen)
    if quoted:
        return Judgement("reworded", "error-message", round(best, 3), quoted, "its message is quoted")
    hit = next(
        (p for p in seen.candidates(telling) if telling & seen.items[p].norms),
        None,
    )
    if hit is not None and (best >= 0.25 or len(telling & seen.items[hit].norms) >= 1):
        return Judgement("reworded", "error-signature", round(best, 3), seen.items[hit].text)
    if not telling <= error_label(fact.text):  # only the label's code ("error[E0463]:"): the words may say it
        return Judgement("lost", "none", round(best, 3), best_text)
    return None


def _by_overlap(fact: FactView, scored: Sequence[Token], seen: Passages, best: float, best_text: str) -> Judgement:
    """Reworded when the best passage holds enough of the fact's words (`best`: its overlap), or keeps a rule that
    something stays as it is (`_preserved`); else lost."""
    needed = REWORDED_OVERLAP if len(scored) >= 3 else 0.99
    # a rule not to do something is kept by a passage that says not to as well ("No new columns on fct_revenue"), not
    # by one that only names the same things ("Fix fct_revenue so the numbers match.")
    said_not = fact.kind not in _RULE_KINDS or not _negated(fact.text) or polarity(best_text) == "negative"
    if best >= needed and said_not:
        return Judgement("reworded", "overlap", round(best, 3), best_text)
    line = _preserved(fact, scored, seen)
    if line:
        return Judgement("reworded", "preserved", round(best, 3), line, "it keeps the same thing as it is")
    return Judgement("lost", "none", round(best, 3), best_text)


# the kinds of fact a user's rule is ("Do not X", "Could you not X?")
_RULE_KINDS = frozenset(["instruction", "request"])
# a rule that something stays as it is, however it is put: "Would you mind keeping X as it is?", "Could X stay exactly
# as they are?", "Leave X untouched", "X: leave them unchanged", "Don't modify X", "without touching X"
_PRESERVE = re.compile(
    r"\b(?:keep|keeps|keeping|kept|leave|leaves|leaving|left|stay|stays|staying|remain|remains)\b[^.;?!]{0,60}?"
    r"\b(?:as (?:it|they) (?:is|are)|as-is|alone|untouched|unchanged|the same|intact)\b|"
    r"\b(?:don't|do not|not|never|no|without|avoid)\s+(?:touch|touching|chang\w*|edit\w*|modif\w*|alter\w*)\b|"
    r"\b(?:untouched|unchanged|intact)\b"
)
# the words that say it (tokens' norms), and the polite frame around a rule asked as a question
_PRESERVE_NORMS = frozenset(
    t.norm
    for t in tokens(
        "keep keeping kept leave leaving left stay stays staying remain remains exactly untouched unchanged alone same "
        "intact touch touching change changing changes edit editing modify modifying alter mind please"
    )
)


def _preserved(fact: FactView, scored: Sequence[Token], seen: Passages) -> str:
    """A passage that keeps a rule that something stays as it is (`_PRESERVE`): it says so too, in whatever words, and
    names what stays as the rule does (the rule's other words, at least two, as `overlap` counts them: all of two, or
    REWORDED_OVERLAP of three or more); else ""."""
    thing = [t for t in scored if t.norm not in _PRESERVE_NORMS]
    if len(thing) < 2 or not _PRESERVE.search(fact.text.lower()):
        return ""
    needed = REWORDED_OVERLAP if len(thing) >= 3 else 0.99
    probes, total = seen.overlap_probes(thing)
    for position in seen.candidates(t.norm for t in thing):
        for passage in seen.merged(position):
            if _PRESERVE.search(passage.text.lower()) and probed_overlap(probes, total, passage) >= needed:
                return passage.text
    return ""
