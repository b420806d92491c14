"""Facts a conversation establishes, and whether the agent can still see each one after a compaction.

A fact is a user instruction or constraint, an explicit request, an identifier (path,
URL, hex id, long number, host:port, e-mail, name in backticks), an error message or an
assistant decision. Extraction is rule-based and deterministic so an audit gives the
same answer every time and tests can state the expected facts in advance.

Where facts come from: instructions and requests from what a user typed (sentences
with must / never / always / don't / only / prefer / avoid / make sure …; questions,
polite openers and imperatives), decisions from assistant text ("I'll", "decided",
"going with" …), identifiers from user and assistant text and from tool-call
arguments (paths whole; other short arguments scanned; file contents and patches
skipped), errors from failing tool results, failed commands, errored responses and
error lines a user pasted. Tool-result bodies are not mined for identifiers: a file
read would flood the report with names nobody asked the summary to keep.

Matching rule (documented here because reports depend on it):
- identifiers are retained when their normalized form (lower-cased, quotes/trailing
  punctuation stripped, a leading "./" dropped) occurs as a substring of the normalized
  visible text; pure numbers and hex ids must not touch another letter or digit there;
  an absolute path under the session's working directory also counts when its
  relative form is visible;
- every other kind is retained when (a) its normalized sentence occurs verbatim, or
  (b) the identifiers inside it are all visible, or (c) at least
  `CONTENT_OVERLAP` (0.6) of its content words appear together in one visible segment
  (a line or sentence) or in two adjacent segments of the same text. Facts with fewer
  than three content words need all of them.
  Content words are lower-cased words of 3+ letters outside a stop-word list, lightly
  stemmed (a trailing "s", "es", "ed" or "ing" removed); negations ("not", "never",
  "no", "don't" ...) count as the content word "not" so a constraint and its opposite
  do not match each other by accident.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from cutline.core.models import Entry, Message, TextBlock, ToolCallBlock, ToolResultBlock

FactKind = Literal["instruction", "request", "identifier", "error", "decision"]
FACT_KINDS: tuple[FactKind, ...] = ("instruction", "request", "identifier", "error", "decision")
IdentifierKind = Literal["path", "url", "hex", "number", "host_port", "email", "name"]

CONTENT_OVERLAP = 0.6
# how many best-hit segments are also tried together with a neighbour
PAIRED_CANDIDATES = 16
MAX_FACT_CHARS = 300


class Fact(BaseModel):
    """One thing the conversation established, with the entry it first appeared in."""

    model_config = ConfigDict(defer_build=True)

    kind: FactKind
    text: str
    key: str
    source_entry_id: str | None = None
    # for identifiers: which sort of identifier; for other kinds: None
    identifier_kind: IdentifierKind | None = None
    # normalized identifiers found inside a sentence fact (used by matching rule b)
    identifiers: list[str] = Field(default_factory=list)
    # for identifiers named in prose: the sentence that names them (the audit compares its frame)
    context: str = ""


class FactMatch(BaseModel):
    """The verdict on one fact: retained or not, and which rule decided it."""

    model_config = ConfigDict(defer_build=True)

    fact: Fact
    retained: bool
    rule: Literal["substring", "identifiers", "overlap", "none"] = "none"
    score: float = 0.0


# ---------------------------------------------------------------------------
# Normalization and words
# ---------------------------------------------------------------------------

_STOP_WORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "into",
        "onto",
        "then",
        "than",
        "there",
        "their",
        "them",
        "they",
        "these",
        "those",
        "you",
        "your",
        "yours",
        "our",
        "ours",
        "are",
        "was",
        "were",
        "been",
        "being",
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
        "here",
        "when",
        "where",
        "why",
        "how",
        "what",
        "which",
        "who",
        "whom",
        "its",
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
        "but",
        "not",
        "yet",
        "out",
        "off",
        "per",
        "via",
        "get",
        "got",
        "now",
        "okay",
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
        "i'll",
        "i'm",
        "i've",
        "we'll",
        "we're",
        "i'd",
        "did",
        "does",
        "doing",
        "done",
        "way",
        "thing",
        "things",
        "something",
        "anything",
        "everything",
        "nothing",
    ]
)
NEGATIONS = frozenset(
    {
        "not",
        "never",
        "no",
        "don't",
        "dont",
        "do not",
        "doesn't",
        "didn't",
        "won't",
        "can't",
        "cannot",
        "shouldn't",
        "mustn't",
        "isn't",
        "aren't",
        "without",
    }
)
_WORD = re.compile(r"[a-z][a-z0-9_']*[a-z0-9]|[a-z]")


def stem(word: str) -> str:
    """A word lightly stemmed (-ing, -es, -ed, -s off when three letters stay)."""
    for suffix in ("ing", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    """The lower-cased, lightly stemmed content words of a text (negations become "not")."""
    words: set[str] = set()
    for raw in _WORD.findall(text.lower()):
        word = raw.strip("'")
        if word in NEGATIONS or word.endswith("n't"):
            words.add("not")
            continue
        if len(word) < 3 or word in _STOP_WORDS:
            continue
        words.add(stem(word))
    return words


def has_content_word(text: str) -> bool:
    """Whether `content_words(text)` holds any word, told at the first one (no stemming, no set).

    Why: `sentences` asks it of every part of every message the audit reads.
    """
    for raw in _WORD.findall(text.lower()):
        word = raw.strip("'")
        if word in NEGATIONS or word.endswith("n't") or (len(word) >= 3 and word not in _STOP_WORDS):
            return True
    return False


# the patterns the readers below run on every message, compiled once (a string pattern is looked up in `re`'s cache
# at each call)
_SPACES = re.compile(r"\s+")
_DATE_OR_FRACTION = re.compile(r"[\d/.-]+")
_DOTTED_NUMBER = re.compile(r"[\d.]+")
_TOP_LEVEL_DOMAIN = re.compile(r"\.[A-Za-z]{2,}$")
_LINE_NUMBER = re.compile(r":\d")
_LIST_MARK = re.compile(r"^\s*(?:[-*+>]|\d+[.)]|#+)\s*")
_WORDS = re.compile(r"[A-Za-z][A-Za-z']*")
_SHELL_SEPARATOR = re.compile(r"&&|\|\||;|\|")
_SED_RANGE = re.compile(r"[\d,]+p?")
_NAMES = re.compile(r"\b[A-Za-z][\w.-]*")


def normalize_text(text: str) -> str:
    """Lower-case, unify quotes and collapse whitespace; the form substring checks run on."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return _SPACES.sub(" ", text.lower()).strip()


def normalize_sentence(text: str) -> str:
    """The key of a sentence fact: normalized text without surrounding punctuation or markup."""
    return normalize_text(text).strip(" \t.,;:!?*_>-\"'")


_TRAILING = ".,;:!?)]}>\"'`*"
_LEADING = "([{<\"'`*"


def normalize_identifier(text: str) -> str:
    """The key of an identifier: lower-cased, stripped of quotes and trailing punctuation."""
    key = text.strip().strip(_LEADING).rstrip(_TRAILING).lower()
    if key.startswith("@") and "/" in key:
        key = key[1:]  # pi's `@path` mention names the path
    if key.startswith("./"):
        key = key[2:]
    if key.startswith(("http://", "https://")):
        key = key.rstrip("/")
    return key


# ---------------------------------------------------------------------------
# Identifiers
# ---------------------------------------------------------------------------

_FILE_EXTENSIONS = (
    "py|pyi|js|mjs|cjs|ts|tsx|jsx|json|jsonl|md|rst|txt|toml|yaml|yml|ini|cfg|conf|env|lock|"
    "rs|go|java|kt|swift|c|h|cc|cpp|hpp|cs|rb|php|sh|bash|zsh|fish|ps1|sql|csv|tsv|html|htm|"
    "css|scss|xml|svg|png|jpg|jpeg|gif|pdf|log|tf|proto|vue|svelte|lua|ex|exs|zig|dockerfile|ipynb|db"
)
_URL = re.compile(r"\bhttps?://[^\s<>\"'`)\]]+", re.IGNORECASE)
_EMAIL = re.compile(r"\b[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
_BACKTICK = re.compile(r"`([^`\n]{1,80})`")
_HOST_PORT = re.compile(
    r"(?<![\w./-])((?:localhost|\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)):(\d{2,5})\b"
)
_PATH = re.compile(
    r"(?<![\w@:/.-])((?:~|\.{1,2})?/?(?:[\w.@+-]+/)+[\w.@+-]+/?|[\w-]+(?:\.[\w-]+)*\.(?:"
    + _FILE_EXTENSIONS
    + r"))(?![\w/])",
    re.IGNORECASE,
)
_HEX = re.compile(
    r"(?<![0-9A-Za-z-])(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{8,})(?![\w-])"
)
_NUMBER = re.compile(r"(?<![\w.,])\d{6,}(?![\w])")
# git's file modes (100644, 100755, 120000, 040000, 160000): not identifiers
_FILE_MODE = re.compile(r"(?:100|120|040|160)[0-7]{3}")
_DIGIT = re.compile(r"\d")
_FILE_EXT_ONLY = re.compile(r"\.(?:" + _FILE_EXTENSIONS + r")$", re.IGNORECASE)


def _is_path(candidate: str) -> bool:
    """A slash-containing token counts as a path only if it looks like one ("and/or" does not)."""
    bare = candidate.rstrip("/")
    if "/" not in bare:
        return bool(_FILE_EXT_ONLY.search(bare)) and not bare.replace(".", "").isdigit()
    if _DATE_OR_FRACTION.fullmatch(bare):
        return False  # dates and fractions
    if bare.startswith(("/", "~/", "./", "../")):
        return len(bare) > 2
    return bare.count("/") >= 2 or bool(_FILE_EXT_ONLY.search(bare))


def _is_hex_id(token: str) -> bool:
    if "-" in token:
        return True  # UUID shape
    has_digit = any(c.isdigit() for c in token)
    has_letter = any(c.isalpha() for c in token)
    mixed_case = any(c.isupper() for c in token) and any(c.islower() for c in token)
    return has_digit and has_letter and not mixed_case


class _IdentifierScan:
    """Identifiers found so far in a text, and the spans they claim (later kinds skip claimed spans)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.has_digit = _DIGIT.search(text) is not None
        self.found: list[tuple[int, IdentifierKind, str]] = []
        self.taken: list[tuple[int, int]] = []

    def free(self, m: re.Match[str]) -> bool:
        start, end = m.start(), m.end()
        return all(end <= s or start >= e for s, e in self.taken)

    def add(self, kind: IdentifierKind, m: re.Match[str], value: str) -> None:
        value = value.rstrip(_TRAILING) if kind != "name" else value
        if value:
            self.found.append((m.start(), kind, value))

    def claim(self, kind: IdentifierKind, m: re.Match[str], value: str) -> None:
        self.add(kind, m, value)
        self.taken.append((m.start(), m.end()))


def _scan_marked(scan: _IdentifierScan) -> None:
    """Backticked names (they claim nothing), then URLs and e-mail addresses."""
    text = scan.text
    for m in _BACKTICK.finditer(text) if "`" in text else ():
        scan.add("name", m, m.group(1).strip())
    marked: tuple[tuple[re.Pattern[str], IdentifierKind, str], ...] = ((_URL, "url", "://"), (_EMAIL, "email", "@"))
    for pattern, kind, marker in marked:
        for m in pattern.finditer(text) if marker in text else ():
            if scan.free(m):
                scan.claim(kind, m, m.group(0))


def _is_host(host: str) -> bool:
    """localhost, a dotted number, or a name ending in a top-level domain (not a file name)."""
    if _FILE_EXT_ONLY.search(host):
        return False
    return host == "localhost" or bool(_DOTTED_NUMBER.fullmatch(host)) or bool(_TOP_LEVEL_DOMAIN.search(host))


def _scan_host_ports(scan: _IdentifierScan) -> None:
    text = scan.text
    for m in _HOST_PORT.finditer(text) if scan.has_digit and ":" in text else ():
        if scan.free(m) and _is_host(m.group(1)):
            scan.claim("host_port", m, m.group(0))


_SLASH_LIST = re.compile(r"[A-Za-z]+(?:/[A-Za-z]+)+")


def _noise_path(text: str, m: re.Match[str], value: str) -> bool:
    """A slash-separated word list ("Model/thinking/theme"), or a bare file name with a line number (`_ssl.c:1006`)."""
    if _SLASH_LIST.fullmatch(value) and not _FILE_EXT_ONLY.search(value):
        return True
    return "/" not in value and _LINE_NUMBER.match(text[m.end() : m.end() + 2]) is not None


def _scan_paths(scan: _IdentifierScan) -> None:
    text = scan.text
    for m in _PATH.finditer(text) if "/" in text or "." in text else ():
        value = m.group(1).rstrip(_TRAILING)
        if scan.free(m) and _is_path(value):
            if _noise_path(text, m, value):
                scan.taken.append((m.start(), m.end()))
                continue
            scan.claim("path", m, value)


def _scan_numbers(scan: _IdentifierScan) -> None:
    """Hex ids (not all digits), then plain numbers."""
    if not scan.has_digit:
        return
    for m in _HEX.finditer(scan.text):
        if scan.free(m) and _is_hex_id(m.group(0)) and not m.group(0).isdigit():
            scan.claim("hex", m, m.group(0))
    for m in _NUMBER.finditer(scan.text):
        if scan.free(m) and not _FILE_MODE.fullmatch(m.group(0)):
            scan.claim("number", m, m.group(0))


def find_identifiers(text: str) -> list[tuple[IdentifierKind, str]]:
    """Identifiers in a text, in order of first appearance, each as (kind, original text)."""
    scan = _IdentifierScan(text)
    _scan_marked(scan)
    _scan_host_ports(scan)
    _scan_paths(scan)
    _scan_numbers(scan)
    scan.found.sort(key=lambda item: item[0])
    return [(kind, value) for _, kind, value in scan.found]


# ---------------------------------------------------------------------------
# Sentences
# ---------------------------------------------------------------------------

_FENCE = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[*])")
_INSTRUCTION = re.compile(
    r"\b(must|mustn't|never|always|don't|dont|do not|does not|should|shouldn't|only|prefer|preferably|avoid|"
    r"make sure|ensure|be sure|keep in mind|remember to|no more than|at most|at least|instead of|rather than|"
    r"required|forbidden|not allowed)\b",
    re.IGNORECASE,
)
_REQUEST_OPENERS = re.compile(
    r"^(please|kindly|can you|could you|would you|will you|can we|could we|let's|lets|i want|i'd like|i would like|"
    r"i need|we need|help me|go ahead|now,? |next,? |also,? |then,? |ok,? |okay,? )",
    re.IGNORECASE,
)
_IMPERATIVE_VERBS = frozenset(
    [
        "add",
        "fix",
        "create",
        "write",
        "run",
        "make",
        "update",
        "remove",
        "delete",
        "rename",
        "refactor",
        "implement",
        "check",
        "find",
        "show",
        "explain",
        "list",
        "move",
        "change",
        "use",
        "test",
        "build",
        "deploy",
        "install",
        "look",
        "read",
        "open",
        "try",
        "search",
        "set",
        "give",
        "tell",
        "help",
        "summarize",
        "compare",
        "convert",
        "generate",
        "draft",
        "send",
        "apply",
        "revert",
        "investigate",
        "debug",
        "review",
        "split",
        "merge",
        "rewrite",
        "clean",
        "commit",
        "push",
        "pull",
        "start",
        "stop",
        "restart",
        "stage",
        "print",
        "plot",
        "draw",
        "describe",
        "keep",
        "continue",
        "finish",
        "migrate",
        "replace",
        "extract",
        "parse",
        "format",
        "sort",
        "filter",
        "count",
        "measure",
        "benchmark",
        "profile",
        "document",
        "note",
        "save",
        "load",
        "export",
        "import",
        "upload",
        "download",
        "fetch",
        "scrape",
        "book",
        "schedule",
        "email",
        "reply",
        "call",
        "ask",
        "answer",
        "translate",
        "rank",
        "pick",
        "choose",
        "suggest",
        "recommend",
        "prepare",
        "plan",
        "outline",
        "calculate",
        "estimate",
        "verify",
        "validate",
        "confirm",
        "compile",
        "lint",
        "patch",
        "upgrade",
        "downgrade",
        "configure",
        "enable",
        "disable",
    ]
)
_DECISION = re.compile(
    r"\b(i'll|i will|i'm going to|i am going to|we'll|we will|let me go with|decided|decision|i chose|we chose|"
    r"chose to|choosing|going with|go with|opted|opting|settled on|settle on|i'm switching|switching to|"
    r"instead i'll|the plan is|plan is to)\b"
    # how an error was fixed ("Fixed the rounding error by quantizing …", "resolved by …")
    r"|\b(?:fixed|resolved)\b[^.;]*\bby\b",
    re.IGNORECASE,
)
_ERROR_LINE = re.compile(
    r"(\b\w*(?:error|exception)\b|\bfailed\b|\bfailure\b|\bfatal\b|traceback|not found|no such file|"
    r"permission denied|refused|timed out|timeout|cannot|can't|unable to|segmentation fault|panic)",
    re.IGNORECASE,
)
_PASTED_ERROR = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b:?.*|\berror(?:\[\w+\])?:.*", re.IGNORECASE)


def _prose(text: str) -> str:
    return _FENCE.sub(" ", text)


def sentences(text: str) -> list[str]:
    """Sentences of prose (fenced code left out), split on line breaks and sentence ends."""
    result: list[str] = []
    for raw_line in _prose(text).splitlines():
        line = _LIST_MARK.sub("", raw_line).strip()
        if not line:
            continue
        for raw_part in _SENTENCE_END.split(line):
            part = raw_part.strip()
            if len(part) >= 3 and has_content_word(part):
                result.append(part)
    return result


def _clip(text: str, limit: int = MAX_FACT_CHARS) -> str:
    text = _SPACES.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


_STATEMENT_STARTERS = frozenset(
    [
        "i",
        "i'm",
        "i've",
        "i'll",
        "i'd",
        "we",
        "we're",
        "we've",
        "you",
        "you're",
        "he",
        "she",
        "it",
        "it's",
        "its",
        "they",
        "there",
        "here",
        "this",
        "that",
        "these",
        "those",
        "the",
        "a",
        "an",
        "my",
        "our",
        "your",
        "his",
        "her",
        "their",
        "some",
        "any",
        "all",
        "no",
        "yes",
        "not",
        "none",
        "one",
        "each",
        "every",
        "both",
        "either",
        "neither",
        "and",
        "but",
        "or",
        "so",
        "because",
        "if",
        "when",
        "while",
        "after",
        "before",
        "since",
        "until",
        "though",
        "although",
        "as",
        "at",
        "in",
        "on",
        "of",
        "for",
        "from",
        "with",
        "by",
        "to",
        "into",
        "about",
        "over",
        "under",
        "between",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "am",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "will",
        "would",
        "can",
        "could",
        "should",
        "shall",
        "may",
        "might",
        "must",
        "hi",
        "hey",
        "hello",
        "morning",
        "thanks",
        "thank",
        "ok",
        "okay",
        "sure",
        "great",
        "good",
        "nice",
        "cool",
        "well",
        "also",
        "just",
        "still",
        "maybe",
        "perhaps",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "where",
        "why",
        "how",
        "ah",
        "oh",
        "hmm",
        "huh",
        "wow",
        "btw",
        "fyi",
        "note",
        "last",
        "yesterday",
        "today",
        "tonight",
        "tomorrow",
        "earlier",
        "later",
        "same",
        "such",
    ]
)
_AUXILIARIES = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "has",
        "have",
        "had",
        "does",
        "did",
        "will",
        "would",
        "can",
        "could",
        "should",
        "may",
        "might",
        "must",
        "'s",
    ]
)


def _is_request(sentence: str) -> bool:
    """A question, a polite opener, or an imperative (a known verb, or a base-form first word not followed by an auxiliary)."""
    stripped = sentence.strip().lstrip("*_\"'")
    if stripped.endswith("?"):
        return True
    if _REQUEST_OPENERS.match(stripped):
        return True
    words = _WORDS.findall(stripped)
    if not words:
        return False
    first = words[0].lower()
    if first in _IMPERATIVE_VERBS:
        return True
    if len(words) < 3 or first in _STATEMENT_STARTERS or not stripped[0].isalpha():
        return False
    if first.endswith(("ed", "ing", "ly")) or (first.endswith("s") and not first.endswith("ss")):
        return False
    # "<noun> is …", "<noun> <noun> was …", "<noun> crashed …": a statement, not an order
    head = [w.lower() for w in words[1:5]]
    return not any(w in _AUXILIARIES or (w.endswith("ed") and len(w) > 4) for w in head)


def _sentence_fact(
    kind: FactKind, sentence: str, entry_id: str | None, known: list[tuple[IdentifierKind, str]] | None = None
) -> Fact:
    """A sentence fact; `known` are the identifiers of the whole text it came from (saves scanning it twice)."""
    text = _clip(sentence)
    found = [v for _, v in known if v in sentence] if known is not None else [v for _, v in find_identifiers(sentence)]
    return Fact(
        kind=kind,
        text=text,
        key=normalize_sentence(text),
        source_entry_id=entry_id,
        identifiers=list(dict.fromkeys(normalize_identifier(v) for v in found)),
    )


_TEMPLATE = re.compile(r"\$\{|\{\{|%\(\w+\)s")


def _identifier_facts(
    text: str,
    entry_id: str | None,
    known: list[tuple[IdentifierKind, str]] | None = None,
    prose: bool = False,
    said: list[str] | None = None,
) -> list[Fact]:
    """Identifier facts of a text; `prose`: the text is a message, each identifier keeps the sentence naming it.

    `said` is `sentences(text)` when the caller has it (a message's facts split it once).
    """
    found = known if known is not None else find_identifiers(text)
    lines = (said if said is not None else sentences(text)) if prose and found else []
    return [
        Fact(
            kind="identifier",
            text=value,
            key=normalize_identifier(value),
            source_entry_id=entry_id,
            identifier_kind=kind,
            context=next((_clip(line) for line in lines if value in line), ""),
        )
        for kind, value in found
        if normalize_identifier(value) and not _TEMPLATE.search(value)
    ]


_ERROR_TIERS = (
    # a test runner's verdict, an exception with its message, a compiler's or git's error line
    re.compile(r"^(FAILED\s|[A-Za-z_.]*(?:Error|Exception):\s|error(?:\[\w+\])?:|fatal:)", re.IGNORECASE),
    # a line naming an exception class
    re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b"),
    _ERROR_LINE,
)


# a shell tool's empty field ("Error: (none)", "Stderr: (empty)"): says there was no error
_EMPTY_FIELD = re.compile(r"^[A-Za-z ]{2,20}:\s*\((?:none|empty)\)$", re.IGNORECASE)


def error_text(text: str) -> str:
    """The most telling line of an error output: a verdict or exception line first, then any line naming an error, else the first line."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not _EMPTY_FIELD.match(line.strip())]
    if not lines:
        return ""
    for tier in _ERROR_TIERS:
        for line in lines:
            if tier.search(line):
                return _clip(line, 240)
    return _clip(lines[0], 240)


_NOT_AN_ERROR = re.compile(r"^(?:command )?(?:aborted|interrupted|cancell?ed)(?: by (?:the )?user)?\.?$", re.IGNORECASE)


def _error_fact(text: str, entry_id: str | None) -> Fact | None:
    line = error_text(text)
    if not line or _NOT_AN_ERROR.match(line):
        return None
    fact = _sentence_fact("error", line, entry_id)
    return fact if fact.key else None


_PATH_ARG_KEYS = frozenset(
    {
        "path",
        "file_path",
        "filepath",
        "file",
        "filename",
        "url",
        "uri",
        "directory",
        "dir",
        "cwd",
        "notebook_path",
        "files",
        "paths",
    }
)
# arguments holding file contents or patches: their identifiers belong to the code, not the conversation
_CONTENT_ARG_KEYS = frozenset(
    {
        "content",
        "contents",
        "text",
        "newtext",
        "oldtext",
        "new_string",
        "old_string",
        "new_str",
        "old_str",
        "patch",
        "diff",
        "data",
        "body",
        "input",
        "edits",
    }
)
_MAX_SCANNED_ARG = 2000
# where a command runs (Codex's `workdir`): the session's own directory, not a fact
_PLACE_ARG_KEYS = frozenset({"workdir", "working_directory"})
_COMMAND_ARG_KEYS = frozenset({"command", "cmd"})
# commands whose path arguments are files the agent looked at (a shell command's other words are noise)
_READ_COMMANDS = frozenset({"cat", "head", "tail", "less", "more", "bat", "nl", "sed", "view", "open"})


def _command_paths(value: object, entry_id: str | None) -> list[Fact]:
    """The files a shell command reads (`cat path`, `sed -n '1,80p' path`) and the URLs and hosts it names.

    Why: the other words of a command (`python manage.py migrate`) are not facts anyone asked to keep.
    """
    if isinstance(value, list):
        parts = [v for v in value if isinstance(v, str)]
        command = parts[-1] if len(parts) >= 3 and parts[1] in ("-lc", "-c") else " ".join(parts)
    elif isinstance(value, str):
        command = value
    else:
        return []
    facts = [f for f in _identifier_facts(command, entry_id) if f.identifier_kind in ("url", "host_port", "email")]
    for segment in _SHELL_SEPARATOR.split(command):
        words = segment.split()
        if not words or words[0] not in _READ_COMMANDS:
            continue
        for word in words[1:]:
            word = word.strip("'\"")
            if word.startswith("-") or not word or not (_is_path(word) or "/" in word):
                continue
            if _SED_RANGE.fullmatch(word):
                continue
            facts.append(
                Fact(
                    kind="identifier",
                    text=word,
                    key=normalize_identifier(word),
                    source_entry_id=entry_id,
                    identifier_kind="path",
                )
            )
    return facts


def _tool_call_identifiers(call: ToolCallBlock, entry_id: str | None) -> list[Fact]:
    """Identifiers a tool call names: path-like arguments whole, other short string arguments scanned (file contents skipped)."""
    facts: list[Fact] = []
    args = call.arguments
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            args = {"command": args}
    if not isinstance(args, dict):
        return facts
    for key, value in args.items():
        lowered = key.lower()
        if lowered in _COMMAND_ARG_KEYS:
            facts.extend(_command_paths(value, entry_id))
            continue
        values = [v for v in value if isinstance(v, str)] if isinstance(value, list) else [value]
        for item in values:
            if not isinstance(item, str) or not item.strip():
                continue
            if lowered in _PATH_ARG_KEYS and "\n" not in item and len(item) <= 300:
                kind: IdentifierKind = "url" if item.startswith(("http://", "https://")) else "path"
                facts.append(
                    Fact(
                        kind="identifier",
                        text=item.strip(),
                        key=normalize_identifier(item),
                        source_entry_id=entry_id,
                        identifier_kind=kind,
                    )
                )
            elif lowered not in _CONTENT_ARG_KEYS and lowered not in _PLACE_ARG_KEYS and len(item) <= _MAX_SCANNED_ARG:
                facts.extend(_identifier_facts(item, entry_id))
    return facts


_EXIT_CODE = re.compile(
    r'"exit_code"\s*:\s*([1-9]\d*)|^(?:Exit code|Process exited with code):?\s*([1-9]\d*)', re.MULTILINE
)


def shell_output(text: str) -> str | None:
    """What the command printed, of Codex's JSON shell result (`{"output": "71", "metadata": {…}}`); None for any other text."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    output = value.get("output") if isinstance(value, dict) else None
    return output if isinstance(output, str) else None


def _exit_failure(text: str) -> str | None:
    """The output of a tool result that reports a non-zero exit code (Codex's shell output), else None."""
    if not _EXIT_CODE.search(text[:4000]) and not _EXIT_CODE.search(text[-400:]):
        return None
    output = shell_output(text)
    return output if output is not None and output.strip() else text


def _failing_results(message: Message) -> list[str]:
    """Texts of the failing tool results a message carries."""
    texts: list[str] = []
    if message.role == "toolResult" and message.isError:
        texts.append(message.text() or f"{message.toolName or 'tool'} failed")
    elif message.role == "toolResult":
        failed = _exit_failure(message.text())
        if failed:
            texts.append(failed)
    for block in message.content:
        if message.role != "toolResult" and isinstance(block, ToolResultBlock) and block.isError:
            texts.append("\n".join(b.text for b in block.content if isinstance(b, TextBlock)) or "tool failed")
    if message.role == "bashExecution" and message.exitCode not in (None, 0):
        texts.append(message.output or f"$ {message.command} exited with {message.exitCode}")
    if message.role == "assistant" and message.stopReason == "error" and message.errorMessage:
        texts.append(message.errorMessage)
    return texts


def _own_text(message: Message) -> str:
    """The text a user or assistant wrote themselves (tool results excluded)."""
    return "\n".join(b.text for b in message.content if isinstance(b, TextBlock))


# what a user states that binds the work without a modal word: preferences, revocations, conditions
_STANDING = re.compile(
    r"\b(i'd rather|i would rather|i like|i love|i hate|better than|forget|scratch|disregard|never mind|"
    r"no longer|drop the|ignore the)\b|^(if|when|unless|only when|only if|whenever)\b[^,]*,",
    re.IGNORECASE,
)
# a user's statement of a quantity with its unit ("batches of 500 rows", "times out after 30 seconds")
_QUANTITY_STATEMENT = re.compile(
    r"\b\d[\d,.]*\s*(?:%|ms|s|secs?|seconds?|minutes?|hours?|days?|weeks?|months?|years?|kb|mb|gb|tb|kib|mib|gib|"
    r"rows?|items?|requests?|messages?|tokens?|lines?|files?|users?|retries|attempts?|workers?|tables?)\b|\bport \d{2,5}\b",
    re.IGNORECASE,
)


def _user_facts(message: Message, entry_id: str | None) -> list[Fact]:
    """A user's instructions, requests, identifiers and pasted errors."""
    text = _own_text(message)
    known = find_identifiers(text)
    facts: list[Fact] = []
    said = sentences(text)
    for sentence in said:
        if _INSTRUCTION.search(sentence) or _STANDING.search(sentence):
            facts.append(_sentence_fact("instruction", sentence, entry_id, known))
        elif _is_request(sentence):
            facts.append(_sentence_fact("request", sentence, entry_id, known))
        elif _QUANTITY_STATEMENT.search(sentence):
            facts.append(_sentence_fact("instruction", sentence, entry_id, known))
    facts.extend(_identifier_facts(text, entry_id, known, prose=True, said=said))
    for line in text.splitlines():
        pasted = _PASTED_ERROR.search(line)
        if pasted and len(pasted.group(0)) > 8:
            fact = _error_fact(_SENTENCE_END.split(pasted.group(0))[0], entry_id)
            if fact:
                facts.append(fact)
    return facts


_ACKNOWLEDGEMENT = re.compile(
    r"^(noted|ok|okay|sure|got it|understood|will do|sounds good|alright|all right|right|of course|certainly)\b",
    re.IGNORECASE,
)


def _is_acknowledgement(sentence: str) -> bool:
    """ "Noted, I will do that once the current work is green.": an acknowledgement naming nothing of its own."""
    if not _ACKNOWLEDGEMENT.match(sentence.strip()):
        return False
    rest = _NAMES.findall(sentence)[1:]
    return not find_identifiers(sentence) and not any(w[0].isupper() and w != "I" for w in rest)


def _decision_clauses(sentence: str) -> list[str]:
    """The clauses of a sentence that carry the decision ("Fixed X by Y; tests are green." -> "Fixed X by Y")."""
    clauses = [c.strip() for c in sentence.split(";") if c.strip()]
    chosen = [c for c in clauses if _DECISION.search(c)]
    return chosen if len(clauses) > 1 and chosen else [sentence]


def _assistant_facts(message: Message, entry_id: str | None) -> list[Fact]:
    """An assistant's decisions and the identifiers it wrote or passed to tools."""
    text = _own_text(message)
    known = find_identifiers(text)
    said = sentences(text)
    facts = [
        _sentence_fact("decision", clause, entry_id, known)
        for sentence in said
        if _DECISION.search(sentence) and not _is_acknowledgement(sentence)
        for clause in _decision_clauses(sentence)
    ]
    facts.extend(_identifier_facts(text, entry_id, known, prose=True, said=said))
    for call in message.tool_calls():
        facts.extend(_tool_call_identifiers(call, entry_id))
    return facts


def message_facts(message: Message, entry_id: str | None = None) -> list[Fact]:
    """Every fact one message establishes, in the order they appear."""
    role = message.role
    if role == "user":
        facts = _user_facts(message, entry_id)
    elif role == "assistant":
        facts = _assistant_facts(message, entry_id)
    elif role == "bashExecution":
        facts = _command_paths(message.command or "", entry_id)
    elif role == "custom" and message.display:
        facts = _identifier_facts(_own_text(message), entry_id)
    else:
        facts = []
    for failure in _failing_results(message):
        fact = _error_fact(failure, entry_id)
        if fact:
            facts.append(fact)
    return facts


class Deduped:
    """Facts added one at a time, those with the same kind and key collapsed to the first occurrence (`dedupe`).

    Why a class: the audit gathers the facts of 100,000 entries as it reads them, a block at a time.
    """

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str], int] = {}
        self.facts: list[Fact] = []

    def add(self, fact: Fact) -> None:
        marker = (fact.kind, fact.key)
        if not fact.key:
            return
        at = self._seen.get(marker)
        if at is not None:
            first = self.facts[at]
            if fact.context and not first.context:
                # the first mention was a tool call; keep the sentence a later message named it in
                self.facts[at] = first.model_copy(update={"context": fact.context})
            return
        self._seen[marker] = len(self.facts)
        self.facts.append(fact)


def dedupe(facts: Iterable[Fact]) -> list[Fact]:
    """Facts with the same kind and key collapsed to the first occurrence."""
    deduped = Deduped()
    for fact in facts:
        deduped.add(fact)
    return deduped.facts


def entry_facts(entry: Entry) -> list[Fact]:
    """The facts of one message entry as `extract_facts` takes them (summary records and meta records give none)."""
    if entry.message is None or entry.isCompactSummary or entry.isMeta:
        return []
    if entry.message.role in ("compactionSummary", "branchSummary", "system"):
        return []
    return message_facts(entry.message, entry.id)


def extract_facts(entries: Iterable[Entry]) -> list[Fact]:
    """Deduplicated facts of the message entries given (summary records and meta records skipped)."""
    deduped = Deduped()
    for entry in entries:
        for fact in entry_facts(entry):
            deduped.add(fact)
    return deduped.facts


_SUMMARY_SECTION_KINDS: tuple[tuple[re.Pattern[str], FactKind], ...] = (
    (re.compile(r"constraint|preference|instruction|rule", re.IGNORECASE), "instruction"),
    (re.compile(r"decision", re.IGNORECASE), "decision"),
    (re.compile(r"goal|request|next step|task|original request|in progress", re.IGNORECASE), "request"),
    (re.compile(r"error|failure|blocked|problem|issue", re.IGNORECASE), "error"),
)


def summary_facts(summary: str, source_entry_id: str | None = None) -> list[Fact]:
    """Facts a summary states: its bullets by section (constraints, decisions, goals, errors) and its identifiers.

    Why: when an update compaction rewrites a summary, what the new one drops from the
    old one is lost for good; this turns the old summary into facts to check.
    """
    facts: list[Fact] = []
    kind: FactKind | None = None
    for raw in _prose(summary).splitlines():
        line = raw.strip()
        if not line:
            continue
        heading = re.match(r"^(#+\s*|\*\*)(.+?)(\*\*)?:?$", line)
        if heading and not line.startswith(("- ", "* ")):
            title = heading.group(2)
            kind = next((k for pattern, k in _SUMMARY_SECTION_KINDS if pattern.search(title)), None)
            continue
        if line.startswith("<") and line.endswith(">"):
            continue  # <read-files> style markers
        body = re.sub(r"^\s*(?:[-*+>]|\d+[.)]|\[[ xX]\])\s*", "", line).strip()
        if not body or not content_words(body):
            continue
        if kind is not None:
            facts.append(_sentence_fact(kind, body, source_entry_id))
        elif _INSTRUCTION.search(body):
            facts.append(_sentence_fact("instruction", body, source_entry_id))
    facts.extend(_identifier_facts(summary, source_entry_id))
    return dedupe(facts)


# ---------------------------------------------------------------------------
# Matching
# ---------------------------------------------------------------------------


class VisibleText:
    """What the agent still sees, indexed for the matching rule (substring text + per-segment word sets)."""

    def __init__(self, texts: Sequence[str], cwd: str | None = None) -> None:
        self.text = "\n".join(normalize_text(t) for t in texts if t)
        self.cwd = cwd.rstrip("/").lower() + "/" if cwd and cwd.strip("/") else None
        self._segments: list[set[str]] = []
        self._owner: list[int] = []  # which text each segment belongs to
        self._index: dict[str, list[int]] = {}
        for number, text in enumerate(texts):
            for line in (text or "").splitlines():
                for part in _SENTENCE_END.split(line):
                    words = content_words(part)
                    if not words:
                        continue
                    position = len(self._segments)
                    self._segments.append(words)
                    self._owner.append(number)
                    for word in words:
                        self._index.setdefault(word, []).append(position)

    def has_identifier(self, key: str) -> bool:
        """Whether a normalized identifier occurs in the visible text (numbers and hex ids on their own)."""
        if not key:
            return False
        if re.fullmatch(r"[0-9a-f-]+", key):
            return re.search(r"(?<![0-9a-z])" + re.escape(key) + r"(?![0-9a-z])", self.text) is not None
        if key in self.text:
            return True
        # an absolute path under the session's working directory also counts when named relative to it
        return bool(
            self.cwd and key.startswith(self.cwd) and len(key) > len(self.cwd) and key[len(self.cwd) :] in self.text
        )

    def best_overlap(self, words: set[str]) -> float:
        """The largest share of `words` that one visible segment, or two adjacent ones of the same text, hold.

        Why two: a summary often splits one instruction over two sentences ("Take X off
        the hot path. Buffer it in memory."). Only the segments with the most hits are
        paired, which keeps this linear in practice.
        """
        if not words:
            return 0.0
        hits: Counter[int] = Counter()
        for word in words:
            for position in self._index.get(word, ()):
                hits[position] += 1
        if not hits:
            return 0.0
        best = max(hits.values())
        for position, _ in sorted(hits.items(), key=lambda item: (-item[1], item[0]))[:PAIRED_CANDIDATES]:
            for a, b in ((position - 1, position), (position, position + 1)):
                if a >= 0 and b < len(self._segments) and self._owner[a] == self._owner[b]:
                    best = max(best, len(words & (self._segments[a] | self._segments[b])))
        return best / len(words)


def match_fact(fact: Fact, visible: VisibleText) -> FactMatch:
    """Decide whether one fact is still visible, by the rule in this module's docstring."""
    if fact.kind == "identifier":
        found = visible.has_identifier(fact.key)
        return FactMatch(fact=fact, retained=found, rule="substring" if found else "none", score=1.0 if found else 0.0)
    if fact.key and fact.key in visible.text:
        return FactMatch(fact=fact, retained=True, rule="substring", score=1.0)
    if fact.identifiers and all(visible.has_identifier(key) for key in fact.identifiers):
        return FactMatch(fact=fact, retained=True, rule="identifiers", score=1.0)
    words = content_words(fact.text)
    score = visible.best_overlap(words)
    needed = 1.0 if len(words) < 3 else CONTENT_OVERLAP
    retained = bool(words) and score >= needed
    return FactMatch(fact=fact, retained=retained, rule="overlap" if retained else "none", score=round(score, 3))


def match_facts(facts: Iterable[Fact], visible_texts: Sequence[str], cwd: str | None = None) -> list[FactMatch]:
    """Verdicts for many facts against the texts the agent still sees (`cwd`: the session's working directory)."""
    visible = VisibleText(visible_texts, cwd)
    return [match_fact(fact, visible) for fact in facts]


_CARRIED_SECTION_KINDS: tuple[tuple[re.Pattern[str], FactKind], ...] = (
    *_SUMMARY_SECTION_KINDS,
    (
        re.compile(r"context|current work|concept|identifier|reference|files|progress|done", re.IGNORECASE),
        "instruction",
    ),
)
# a section title: "## Title", "**Title**", "1. Primary Request and Intent:", "Progress and key decisions:"
_CARRIED_HEADING = re.compile(
    r"^(?:#+\s*(?P<a>.+?)|\*\*(?P<b>.+?)\*\*:?|\d+\.\s+(?P<c>[A-Z][^:]{2,60}):|(?P<d>[A-Z][^:.]{2,60}):)$"
)


def carried_facts(summary: str, source_entry_id: str | None = None) -> list[Fact]:
    """Every statement a previous summary carries, by section, for the audit of the summary that replaces it.

    Unlike `summary_facts` (what a summarizer carries on), every line of every section
    counts, whatever the agent's layout (pi's checkpoint, Claude Code's numbered sections,
    Codex's handoff, OpenClaw's): a fact the earlier summary stated and the update drops
    is lost for good. Wrapper sentences ("This session is being continued …") and the
    sections every summary restates for its own moment (goal, next step, in progress)
    are skipped.
    """
    facts: list[Fact] = []
    kind: FactKind = "instruction"
    transient = False
    statements: list[str] = []
    for raw in _prose(summary).splitlines():
        line = raw.strip()
        if not line or (line.startswith("<") and line.endswith(">")):
            continue
        heading = _CARRIED_HEADING.match(line)
        if heading and not line.startswith(("- ", "* ")):
            title = next(g for g in heading.groups() if g)
            kind = next((k for pattern, k in _CARRIED_SECTION_KINDS if pattern.search(title)), "instruction")
            transient = _TRANSIENT_SECTION.search(title) is not None
            continue
        if transient:
            continue  # the goal and the work in hand: every summary states its own
        if _WRAPPER.match(line) or _FRAGMENT.match(line):
            continue
        statements.append(line)
        body = re.sub(r"^\s*(?:[-*+>]|\d+[.)]|\[[ xX]\])\s*", "", line).strip()
        if body and content_words(body) and body.lower() not in ("(none)", "none"):
            facts.append(_sentence_fact(kind, body, source_entry_id))
    facts.extend(_identifier_facts("\n".join(statements), source_entry_id, prose=True))
    return dedupe(facts)


# sections whose content the next summary restates for its own moment (the goal, the next step, work in progress)
_TRANSIENT_SECTION = re.compile(
    r"^(goal|optional next step|next step|in progress)\b|primary request|preserved verbatim|recent turns", re.IGNORECASE
)
# not statements: JSON fragments, placeholders, empty markers of a summary's sections
_FRAGMENT = re.compile(
    r"^(?:[\"{}\[\]]|\[non-text content|none\.?$|none captured\.?$|no prior history\.?$|\(none\)$)", re.IGNORECASE
)
_WRAPPER = re.compile(
    r"^(this session is being continued|the summary below covers|summary:$|please continue the conversation|"
    r"continue the conversation from where|the messages after this summary|"
    r"if you need specific details|another language model started|the conversation history before this point)",
    re.IGNORECASE,
)
