"""Facts a span states only implicitly, as a careful model still keeps them.

The user's sentences and the assistant's cue-marked decisions say most of what an agent
needs; four kinds of fact are never said that way:

- a **measurement**: a number only in a tool's short output, which the assistant's next
  text points back to ("That is the full build.") or which carries a unit (`41.9 ms`);
- a **learnt constraint**: a failing tool result, and the assistant's next text saying
  what it means for the work ("this box cannot reach …, so we have to …");
- a **conclusion**: the user asks which way to go, and the assistant answers directly,
  in prose, without looking anything up or saying it will look first;
- a **file's role**: the assistant's sentence that starts with a file just touched and
  says what it is for ("src/x.py is the entry point that …").

Each test here looks at one output or one text; the reader (`session_state`) decides
which output and which text, once per message, and clips what it keeps (to the limits here).
"""

from __future__ import annotations

import re

from cutline.core.summarizers import cues

# a measurement: this many non-blank lines of output at most, of which this many are kept
MAX_MEASURE_OUTPUT_LINES = 6
MAX_MEASURE_OUTPUT_CHARS = 600
MAX_MEASURE_LINES = 3
MAX_MEASURE_CHARS = 160
MAX_ROLE_CHARS = 160
MAX_LEARNT_CHARS = 240
# what the assistant makes of a failure is said at once: only its text's start is read, its first sentences
LEARNT_SCAN_CHARS = 400
LEARNT_SENTENCES = 2
MAX_CONCLUSION_CHARS = 220
MIN_CONCLUSION_WORDS = 4
# a text that points back at the output it follows: short, and opens with a pointing word
MAX_REFERRING_CHARS = 200

_DIGIT = re.compile(r"\d")
_UNIT = re.compile(
    r"\d(?:[\d.,]*\d)?\s?(?:ns|µs|us|ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|"
    r"[kmgt]i?b|bytes|%|rps|qps|fps|req/s|ops/s)(?![\w/])",
    re.IGNORECASE,
)
# a pass/fail verdict ("31 passed in 2.07s"): what a run's failure or success already says, not a measurement
_VERDICT = re.compile(r"\b(?:pass(?:ed|es)?|fail(?:ed|s|ures?)?|errors?|skipped|success\w*|ok)\b", re.IGNORECASE)
# what the agent program wraps a command's output in (Codex: "Chunk ID: …", "Wall time: 0.0 seconds", "Process
# exited with code 0", "Original token count: 3"), and exit-status lines: not the command's own output
_HARNESS = re.compile(
    r"(?:chunk id|wall time|process exited|original token count|exit(?:ed)? (?:code|status)|command exited)\b",
    re.IGNORECASE,
)
_POINTING = re.compile(r"^\W*(?:that|that's|this|there|here|these|those)\b", re.IGNORECASE)
# what a limitation or a requirement sounds like, in `cues.words_of` form (one search, as the cues are)
_LIMIT_PHRASES = (
    "cannot|can't|can not|can only|only|not available|unavailable|no access|not allowed|isn't allowed|"
    "not permitted|has to|have to|must|unsafe|read only|require|requires|required|not possible|impossible|"
    "won't work|doesn't work|not supported|unsupported|no new|without"
)
_LIMITS = cues.phrases_search(tuple(f" {phrase} " for phrase in _LIMIT_PHRASES.split("|")))
# a question of which way to go: its own sentence (up to its "?") says "or", "which" or asks for the fix or the way
_WHAT_CHOICE = re.compile(r"what(?:'s| is| would be)? the (?:best |right )?(?:fix|approach|plan|way|option|solution)\b")
# "could you check whether X or Y?" asks for work, not for a choice
_ASKS_FOR_WORK = ("can you", "could you", "would you", "will you", "please")
# a which-way question is short: only the ask's end is read, so a long ask costs no more than a short one
MAX_CHOICE_CHARS = 300
_PREAMBLE = re.compile(r"^\W*first\b", re.IGNORECASE)
_LEADING_VERB = re.compile(r"^(?:is|are)\s+", re.IGNORECASE)


def measure_lines(output: str) -> str:
    """A short output's lines that hold a number and are no pass/fail verdict, joined ("" when the output is long
    or holds none)."""
    if len(output) > MAX_MEASURE_OUTPUT_CHARS or output.count("\n") > 2 * MAX_MEASURE_OUTPUT_LINES:
        return ""
    if not _DIGIT.search(output):
        return ""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if len(lines) > MAX_MEASURE_OUTPUT_LINES:
        return ""
    kept = [line for line in lines if _DIGIT.search(line) and not _VERDICT.search(line) and not _HARNESS.match(line)]
    return "; ".join(kept[:MAX_MEASURE_LINES])


def has_unit(text: str) -> bool:
    """Whether a text holds a number with its unit (`214.37 seconds`, `41.9 ms`, `12%`)."""
    return _UNIT.search(text) is not None


def points_back(text: str) -> bool:
    """Whether an assistant's text is a short remark on what came before it ("That is the full build.")."""
    return len(text) <= MAX_REFERRING_CHARS and _POINTING.match(text) is not None


def limitation(said: list[tuple[str, str]]) -> str:
    """The first sentence of the first two saying what cannot or must be done (not a plan of the assistant's), or "".

    `said`: (sentence, its `cues.words_of` form) pairs, as `session_state.said` gives them."""
    for sentence, normed in said[:LEARNT_SENTENCES]:
        if _LIMITS.search(normed) and not cues.is_plan(normed) and not sentence.rstrip().endswith("?"):
            return sentence
    return ""


def asks_to_choose(ask: str) -> bool:
    """Whether the user's ask ends on a question of which way to go ("X or Y?", "which one?", "what do you
    recommend")."""
    tail = ask[-MAX_CHOICE_CHARS:]
    if "?" not in tail and "ecommend" not in tail and "uggest" not in tail:
        return False  # most asks: no question and no call for advice
    tail = tail.lower()
    if "recommend" in tail or "suggest" in tail:
        return True
    for before in tail.split("?")[:-1]:  # each question: the text up to its "?", from its sentence's start
        question = before[max(before.rfind("."), before.rfind("!"), before.rfind("\n")) + 1 :].strip()
        spaced = f" {question} "
        choice = " or " in spaced or "which" in spaced or ("what" in spaced and _WHAT_CHOICE.search(spaced))
        if choice and not question.startswith(_ASKS_FOR_WORK):
            return True
    return False


def conclusion(said: list[tuple[str, str]]) -> str:
    """A direct answer's first sentences, or "" when the text only says what it will look at first or asks back.

    `said`: (sentence, its `cues.words_of` form) pairs, as `session_state.said` gives them."""
    if not said or _PREAMBLE.match(said[0][0]):
        return ""
    for sentence, normed in said:
        if sentence.rstrip().endswith("?") or cues.is_plan(normed):
            return ""
    sentences = [sentence for sentence, _ in said]
    out = sentences[0]
    for more in sentences[1:]:
        if len(out) + 1 + len(more) > MAX_CONCLUSION_CHARS:
            break
        out += " " + more
    return out if len(out.split()) >= MIN_CONCLUSION_WORDS else ""  # "Sure." or "Good question." answers nothing


def file_role(sentence: str, path: str) -> str:
    """What a sentence opening with `path` says the file is for ("" when it does not open with it)."""
    text = sentence.lstrip("`*_ ")
    if not text.startswith(path):
        return ""
    rest = text[len(path) :].lstrip("`*_")
    if not rest[:1].isspace():
        return ""
    rest = _LEADING_VERB.sub("", rest.strip())
    return rest if len(rest) >= 12 else ""
