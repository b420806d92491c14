"""What a span of conversation leaves an agent to continue from, read in one pass.

The goal, the asks, the rules still in force, decisions, TODOs, the files touched and
what happened to each, the tool failures still open at the end, the assistant's last
stated plan and what was under way. Every message is read once; every list kept here
is either a dict keyed by what it holds or bounded, so the work is linear in the span.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from cutline.core.agents.light import (
    LightBlock,
    LightMessage,
    LightModelMessage,
    LightText,
    LightToolCall,
    LightToolResult,
)
from cutline.core.models import Message, TextBlock, ToolCallBlock, ToolResultBlock
from cutline.core.summarizers import cues, implicit_facts, sentence_function
from cutline.core.summarizers.code_names import USER_WEIGHT, CodeNames
from cutline.core.summarizers.opening_shape import Opening, content_words, may_open
from cutline.core.summarizers.user_text import SUMMARY_OPENINGS, is_acknowledgement, read_user_text

# how many of each kind a summary can use; older ones are dropped as newer ones arrive
MAX_RULES = 40
MAX_DECISIONS = 12
MAX_TODOS = 10
MAX_ASKS = 12
MAX_ERRORS = 6
MAX_ITEM_CHARS = 300
MAX_LATEST_ASK_CHARS = 800
MAX_ACTIVITY = 4
MAX_MEASURES = 3
# the words the kept rules' subjects are numbered over: a rule's mask stays a few machine words long
MAX_SUBJECT_BITS = 2048
# what a span replaces is counted up to here (the summary's budget stops growing long before)
REPLACED_CHARS_COUNTED = 1_000_000

# words that say how a rule applies, not what it is about
_MODAL_WORDS = frozenset(
    [
        "must",
        "never",
        "always",
        "dont",
        "don't",
        "do",
        "not",
        "does",
        "should",
        "avoid",
        "prefer",
        "make",
        "sure",
        "ensure",
        "only",
        "allowed",
        "permitted",
        "actually",
        "instead",
        "rather",
        "use",
        "keep",
        "from",
        "now",
        "no",
        "longer",
        "anymore",
    ]
)
# a final answer that says the asked work is finished
_COMPLETED = re.compile(
    r"^\W*(?:done|finished|completed|all set|all done|implemented|that's done|it's done|fixed)\b", re.IGNORECASE
)
_ABORTED = re.compile(
    r"(aborted|interrupted by user|request interrupted|doesn't want to proceed|user rejected|rejected by (?:the )?user|"
    r"operation was cancel+ed|cancel+ed by (?:the )?user)",
    re.IGNORECASE,
)
# a piece of each of `_ABORTED`'s phrases, lower-cased: a text whose lower-cased form holds none of them says none of
# the phrases, unless it holds one of the four characters a case-insensitive search takes for an ASCII letter
# ("İ" and "ı" for "i", "ſ" for "s", the Kelvin sign for "k"; no other character is one, nor lower-cases to one
# but "İ" and the Kelvin sign: checked over every code point)
_ABORTED_PIECES = ("abort", "interrupt", "proceed", "reject", "cancel")
_FOLDS_TO_ASCII = ("\u0130", "\u0131", "\u017f", "\u212a")
_NO_MATCH = re.compile(r"^(?:no (?:matches|files|results)(?: found)?\.?|\(no output\)|no output)$", re.IGNORECASE)
_EXIT_LINE = re.compile(r"^(?:command )?(?:exited with|exit) (?:code|status)\s*:?\s*\d+\.?$", re.IGNORECASE)
_SEARCH_PROGRAMS = frozenset({"grep", "rg", "ag", "ack", "egrep", "fgrep", "find", "fd", "git grep", "ls", "test", "["})
_SEARCH_TOOLS = frozenset({"grep", "glob", "find", "ls", "search", "search_files", "list_files"})


def _aborted(text: str) -> bool:
    """Whether the text says the call or turn was aborted, rejected or cancelled (`_ABORTED`).

    Why: the search is case-insensitive, ~25 us over a 400-character output; a few `in`
    tests on the lower-cased text rule it out for most (the errored results of a long span).
    """
    if text.isascii() or not any(char in text for char in _FOLDS_TO_ASCII):
        lowered = text.lower()
        if not any(piece in lowered for piece in _ABORTED_PIECES):
            return False
    return _ABORTED.search(text) is not None


READ_TOOLS = frozenset({"read", "view", "cat", "read_file", "notebookread"})
WRITE_TOOLS = frozenset({"write", "create", "write_file", "create_file"})
EDIT_TOOLS = frozenset({"edit", "multiedit", "str_replace", "str_replace_editor", "notebookedit", "replace"})
PATCH_TOOLS = frozenset({"apply_patch"})
_PATH_KEYS = ("path", "file_path", "filepath", "notebook_path", "file", "filename")
_COMMAND_KEYS = ("command", "cmd")
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$", re.MULTILINE)
_ENV_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")


# the line of an error output that says what went wrong, by how telling it is (the summarizer's own reading,
# not the audit's: the audit judges the summary)
_ERROR_LINES = (
    re.compile(r"^(?:\w+\.)*\w*(?:Error|Exception)\b|^(?:error|fatal|panic)\b|^FAILED\b|^E\s{2,}", re.IGNORECASE),
    re.compile(
        r"\b(?:error|exception|failed|failure|fatal|not found|no such|denied|refused|cannot|can't|could not|"
        r"unable to|timed? ?out|invalid)\b",
        re.IGNORECASE,
    ),
)


def error_text(output: str) -> str:
    """The line of an error output that says what went wrong (an error or verdict line first), clipped."""
    lines = [line.strip() for line in output[:20_000].splitlines() if line.strip()]
    for pattern in _ERROR_LINES:
        for line in lines:
            if pattern.search(line):
                return clip(line, 240)
    return clip(lines[0], 240) if lines else ""


def clip(text: str, limit: int = MAX_ITEM_CHARS) -> str:
    """Whitespace collapsed; cut at a word boundary with an ellipsis when longer than `limit`."""
    text = " ".join(text.split())  # what `\s+` matches is what `str.split` splits at
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + " \u2026"


def short_ask(text: str, limit: int = 220) -> str:
    """An ask in a sentence or two: its first sentences up to `limit` characters."""
    said = sentences(text) or [text]
    out = said[0]
    for more in said[1:]:
        if len(out) + 1 + len(more) > limit:
            break
        out += " " + more
    return clip(out, limit)


@dataclass
class FileRecord:
    """What happened to one file: reads, writes, edits, and whether the last change failed."""

    path: str
    reads: int = 0
    writes: int = 0
    edits: int = 0
    deleted: bool = False
    last_failure: str = ""
    order: int = 0
    role: str = ""  # what the assistant said the file is for (`implicit_facts.file_role`)

    @property
    def modified(self) -> bool:
        return bool(self.writes or self.edits or self.deleted)

    def describe(self) -> str:
        parts: list[str] = []
        if self.deleted:
            parts.append("deleted")
        if self.writes:
            parts.append("written" if self.writes == 1 else f"written {self.writes}x")
        if self.edits:
            parts.append("edited" if self.edits == 1 else f"edited {self.edits}x")
        if self.reads and not parts:
            parts.append("read")
        elif self.reads:
            parts.append("read first" if self.reads == 1 else f"read {self.reads}x")
        text = f"`{self.path}`: {', '.join(parts) or 'touched'}"
        if self.role:
            text += f" \u2014 {self.role}"
        if self.last_failure:
            text += f"; last change failed: {self.last_failure}"
        return text


@dataclass
class Failure:
    """A tool call or run that failed and was not followed by a success on the same target."""

    label: str
    error: str
    target: str
    turn: int


@dataclass
class Rule:
    text: str
    key: str
    subject: frozenset[str]
    mask: int = 0  # the subject's words as bits of `SpanState.subject_bits`: shared words are the common bits
    size: int = 0  # how many words the subject has


@dataclass
class SpanState:
    """Everything the layouts need, gathered in one pass over a span's messages."""

    asks: deque[str] = field(default_factory=lambda: deque(maxlen=MAX_ASKS))
    first_ask: str = ""
    statements: dict[str, str] = field(default_factory=dict)
    latest_ask: str = ""
    ask_count: int = 0
    rules: list[Rule] = field(default_factory=list)
    decisions: dict[str, str] = field(default_factory=dict)
    todos: dict[str, str] = field(default_factory=dict)
    fixes: dict[str, str] = field(default_factory=dict)
    # a tool's short output with a number that the assistant pointed back at, or with a unit, by the call's label
    measures: dict[str, str] = field(default_factory=dict)
    # what the assistant said a failure means for the work, by the failure's target (kept while it is open)
    learnt: dict[str, str] = field(default_factory=dict)
    files: dict[str, FileRecord] = field(default_factory=dict)
    failures: dict[str, Failure] = field(default_factory=dict)
    resolved: dict[str, Failure] = field(default_factory=dict)
    activity: deque[str] = field(default_factory=lambda: deque(maxlen=MAX_ACTIVITY))
    plan: list[str] = field(default_factory=list)
    last_assistant_text: str = ""
    summaries: list[str] = field(default_factory=list)
    replaced_chars: int = 0  # counted up to REPLACED_CHARS_COUNTED: past that the budget is the same
    typed: deque[str] = field(default_factory=lambda: deque(maxlen=MAX_ASKS))  # the last asks as typed
    turn: int = 0
    # where the span ends in the last ask's turn: "" (no ask), "asked" (nothing after it yet), "working" (tool
    # activity, or text with calls, after it: the cut is inside the turn) or "answered" (a final answer ends it)
    at_cut: str = ""
    final_text: str = ""  # the final answer that ends the last turn, when `at_cut` is "answered"
    names: CodeNames = field(default_factory=CodeNames)
    # a bit for each word of the kept rules' subjects (renumbered from the kept rules when it grows past a bound)
    subject_bits: dict[str, int] = field(default_factory=dict)
    # the first ask while it may be an opening remark, told by the conversation's shape (`opening_shape`)
    opening: Opening | None = None

    @property
    def latest_done(self) -> bool:
        """Whether the last ask is finished at the cut, judged from where the span ends in its turn.

        A cut inside the turn (nothing after the ask yet, or tool activity with no final answer
        after it) leaves it under way, whatever an intermediate text said. A final answer ends
        the turn: finished, unless it asks the user something, states what it will do next, or
        a failure of that turn is still open (then the ask is still under way). On a split turn
        the history part ends with such a finished turn; the ask under way is in the turn prefix.
        An answer that only takes the ask on ("On it.") finishes nothing.
        """
        if self.turn == 0 or self.at_cut != "answered":
            return False
        if _COMPLETED.match(self.final_text):
            return True
        if self.final_text.rstrip().endswith("?") or self.plan or is_acknowledgement(self.final_text):
            return False  # it asks the user, says what it will do, or only took the ask on ("On it.")
        return not any(failure.turn == self.turn for failure in self.open_failures)

    @property
    def open_failures(self) -> list[Failure]:
        return list(self.failures.values())[-MAX_ERRORS:]


def _bounded_add(store: dict[str, str], key: str, text: str, limit: int) -> None:
    """Keep `text` under `key` (its words, `cues.words_of`) as the newest entry, dropping the oldest past `limit`.

    The text is kept as said; it is clipped when the summary is written (only the few kept are).
    """
    store.pop(key, None)
    store[key] = text
    while len(store) > limit:
        del store[next(iter(store))]


_STOP_WORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "to",
        "of",
        "and",
        "or",
        "in",
        "on",
        "for",
        "is",
        "are",
        "be",
        "it",
        "this",
        "that",
        "with",
        "as",
        "at",
        "by",
        "from",
        "we",
        "you",
        "i",
        "me",
        "my",
        "our",
        "your",
        "they",
        "them",
        "their",
        "its",
        "was",
        "were",
        "will",
        "would",
        "can",
        "could",
        "may",
        "might",
        "has",
        "have",
        "had",
        "if",
        "then",
        "than",
        "so",
        "but",
        "when",
        "while",
        "into",
        "out",
        "up",
        "any",
        "all",
        "each",
        "every",
        "some",
        "no",
        "not",
        "none",
    ]
)
_SUBJECT_WORD = re.compile(r"[a-z0-9_][a-z0-9_./:-]*")
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_LIST_MARK = re.compile(r"^\s*(?:[-*+>]|\d+[.)]|#+)\s*")
# what a list mark (`_LIST_MARK`) may begin with
_LIST_FIRST = frozenset("-*+>#")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[*_])")
_LETTER = re.compile(r"[A-Za-z]")
_SPACES = re.compile("  +")
# bytes as `cues.words_of` reads them: a letter lower-cased, a digit or ' kept, a line break kept (it parts
# sentences), any other byte a space
_WORD_BYTES = bytes(
    c + 32 if 65 <= c <= 90 else c if 97 <= c <= 122 or 48 <= c <= 57 or c in (39, 10) else 32 for c in range(256)
)


def sentences(text: str) -> list[str]:
    """Sentences of prose: fenced code left out, split at line breaks and sentence ends, list marks dropped."""
    if "```" in text:
        text = _FENCE.sub(" ", text)
    found: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()  # `\s` and `str.strip` take the same characters for space
        if not line:
            continue
        first = line[0]
        if first in _LIST_FIRST or first.isdecimal():  # a list mark may begin it (`\d` is `str.isdecimal`)
            line = _LIST_MARK.sub("", raw).strip()
            if not line:
                continue
        # a line with no sentence end is one part (most are: a split is ~10x an `in` test)
        for part in _SENTENCE_BREAK.split(line) if "." in line or "?" in line or "!" in line else (line,):
            part = part.strip()
            if len(part) >= 3 and _LETTER.search(part):
                found.append(part)
    return found


def said(text: str) -> list[tuple[str, str]]:
    """(sentence, its `cues.words_of` form) for each of `sentences(text)`, all of them read into words at once.

    The sentences (none holds a line break) are joined a line each and the whole is lower-cased and
    reduced to words in a few passes: every character not a word character becomes a space
    (`_WORD_BYTES`; one not ASCII once lower-cased is encoded as "?" first), runs of spaces become one,
    and the lines, each padded with a space, are the sentences' `words_of` forms.
    """
    found = sentences(text)
    if not found:
        return []
    joined = " " + " \n ".join(found) + " "
    if not joined.isascii():
        joined = joined.lower()
    flat = joined.encode("ascii", "replace").translate(_WORD_BYTES).decode("ascii")
    return list(zip(found, _SPACES.sub(" ", flat).split("\n"), strict=True))


_NOT_SUBJECT = _STOP_WORDS | _MODAL_WORDS


def _subject(text: str) -> frozenset[str]:
    """What a rule is about: its words, less stop words and the words that say how it applies."""
    words = _SUBJECT_WORD.findall(text.lower())
    return frozenset(w.strip(".:") for w in words if w not in _NOT_SUBJECT and len(w) > 1)


def add_rule(state: SpanState, text: str, normed: str | None = None) -> None:
    """A rule in force from now on: the same rule once, and a later rule on the same subject replaces the earlier."""
    normed = normed if normed is not None else cues.words_of(text)
    text = clip(text)
    key = normed.strip()
    if not key:
        return
    subject = _subject(text)
    revokes = cues.revokes(normed)
    threshold = 0.34 if revokes else 0.75
    size = len(subject)
    bits = state.subject_bits
    if len(bits) + size > MAX_SUBJECT_BITS:  # words of rules long gone: number the kept rules' words afresh
        bits.clear()
        for rule in state.rules:
            rule.mask = _mask(bits, rule.subject)
    mask = _mask(bits, subject)
    # the same rule goes; a rule on another subject (nothing shared) stays; one sharing enough of it is replaced
    # (the words shared are the bits both masks have; a rule that shares none is below any threshold)
    limit = threshold * (size or 1)  # against a rule with a subject as large or larger; a smaller one's own size
    kept = [
        rule
        for rule in state.rules
        if rule.key != key
        and (mask & rule.mask).bit_count() < (limit if rule.size >= size else threshold * (rule.size or 1))
    ]
    kept.append(Rule(text, key, subject, mask, size))
    state.rules = kept[-MAX_RULES:]


def _mask(bits: dict[str, int], subject: frozenset[str]) -> int:
    """The subject's words as bits, a new word given the next free bit."""
    mask = 0
    for word in subject:
        bit = bits.get(word)
        if bit is None:
            bit = bits[word] = len(bits)
        mask |= 1 << bit
    return mask


# what the span's walk hands over: a pydantic message, or a light one (core.agents.light) with the same values (a
# Claude Code or Codex message's read from its stored model may hold tool result blocks)
SpanMessage = Message | LightMessage | LightModelMessage
Call = ToolCallBlock | LightToolCall


def _arguments(call: Call) -> dict[str, Any]:
    args = call.arguments
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return {"command": args}
    return args if isinstance(args, dict) else {}


def call_paths(call: Call, args: dict[str, Any]) -> list[tuple[str, str]]:
    """(action, path) pairs a call acts on: read, write, edit or delete."""
    name = call.name.lower()
    if name in PATCH_TOOLS or (name in ("exec_command", "shell") and "*** Begin Patch" in str(args.get("input", ""))):
        patch = str(args.get("input") or args.get("patch") or args.get("command") or "")
        actions = {"Add": "write", "Update": "edit", "Delete": "delete"}
        return [(actions[m.group(1)], m.group(2).strip()) for m in _PATCH_FILE.finditer(patch)]
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip() and "\n" not in value:
            if name in WRITE_TOOLS:
                return [("write", value.strip())]
            if name in EDIT_TOOLS:
                return [("edit", value.strip())]
            if name in READ_TOOLS:
                return [("read", value.strip())]
            return []
    return []


def call_command(args: dict[str, Any]) -> str:
    """The shell command a call runs, if any (Codex's argv lists joined; `bash -lc` unwrapped)."""
    for key in _COMMAND_KEYS:
        value = args.get(key)
        if isinstance(value, list):
            parts = [str(v) for v in value]
            if len(parts) >= 3 and parts[1] in ("-lc", "-c"):
                return parts[2].strip()
            return " ".join(parts).strip()
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


_TWO_WORD_PROGRAMS = frozenset(
    [
        "python",
        "python3",
        "node",
        "deno",
        "bun",
        "npm",
        "npx",
        "yarn",
        "pnpm",
        "cargo",
        "go",
        "make",
        "uv",
        "poetry",
        "bundle",
        "docker",
        "kubectl",
        "terraform",
        "git",
        "dotnet",
        "mvn",
        "gradle",
        "./gradlew",
        "rake",
        "bash",
        "sh",
    ]
)
_READ_COMMAND = re.compile(r"^(?:cat|head|tail|bat|nl|less|more)(?:\s+-\S+)*\s+([^\s|;&<>]+)\s*$")


def _program(command: str) -> str:
    """What a command runs, for telling a later success on the same thing: `pytest`, `python -m tiler.build`, `npm test`."""
    words = [w for w in command.split() if not _ENV_ASSIGNMENT.fullmatch(w)]
    if not words:
        return command
    program = words[0].rsplit("/", 1)[-1]
    if program not in _TWO_WORD_PROGRAMS:
        return program
    rest = iter(words[1:])
    for word in rest:
        if word == "-m":
            return f"{program} -m {next(rest, '')}"
        if not word.startswith("-"):
            return f"{program} {word}"
    return program


def _command_read(command: str) -> list[tuple[str, str]]:
    """`cat path` and the like: a read of that file."""
    match = _READ_COMMAND.match(command)
    return [("read", match.group(1).strip("'\""))] if match else []


def _label(call: Call, paths: list[tuple[str, str]], command: str) -> str:
    if paths:
        return f"`{call.name}` `{paths[0][1]}`"
    if command and len(command) <= 120 and "\n" not in command:
        return f"`{command}`"
    return f"`{call.name}`"


def _target(call: Call, paths: list[tuple[str, str]], command: str) -> str:
    if paths:
        # a failed read or edit of a file is resolved by any later successful call on that file
        return f"file\x00{paths[0][1]}"
    if command:
        return f"run\x00{_program(command)}"
    return f"{call.name.lower()}\x00"


def _is_no_match(call: Call, command: str, output: str) -> bool:
    """A search that simply found nothing (grep's exit 1): not an error."""
    searching = call.name.lower() in _SEARCH_TOOLS or (command and _program(command) in _SEARCH_PROGRAMS)
    if not searching:
        return False
    lines = [line.strip() for line in output.splitlines() if line.strip() and not _EXIT_LINE.match(line.strip())]
    return not lines or all(_NO_MATCH.match(line) for line in lines)


@dataclass
class _Call:
    call: Call
    paths: list[tuple[str, str]]
    command: str
    turn: int


def _text_and_calls(message: SpanMessage) -> tuple[str, list[Call]]:
    """An assistant message's text (its text blocks joined, stripped) and tool calls, in one look at its blocks.

    Here and below a block's kind is told by `type(block) is …`: the block models have no subclasses,
    and a model class's `isinstance` runs pydantic's own check, several times slower, once per block.
    """
    texts: list[str] = []
    calls: list[Call] = []
    for block in message.content:
        if type(block) is TextBlock or type(block) is LightText:
            texts.append(block.text)
        elif type(block) is ToolCallBlock or type(block) is LightToolCall:
            calls.append(block)
    return (texts[0] if len(texts) == 1 else "\n".join(texts)).strip(), calls


def _result_text(blocks: list[Any]) -> str:
    return "\n".join(b.text for b in blocks if type(b) is TextBlock or type(b) is LightText)


class SpanReader:
    """Reads messages one at a time into a `SpanState`."""

    def __init__(self, state: SpanState | None = None) -> None:
        self.state = state or SpanState()
        self._calls: dict[str, _Call] = {}
        self._order = 0
        # what the next assistant text may turn into an implicit fact (`implicit_facts`): a short output with a
        # number (its label and lines), a failure's target, whether the last ask asked which way to go, and the
        # files the calls since the last text touched (a few: the first text after them reads them, then they go)
        self._measure: tuple[str, str] | None = None
        self._failed = ""
        self._choice = False
        self._touched: list[str] = []
        self._changed = False  # a file written, edited or deleted since the last ask

    # -- user turns --

    def user_text(self, text: str) -> None:
        state = self.state
        read = read_user_text(text)
        if read.kind == "summary":
            state.summaries.append(text)
            return
        if read.kind != "ask":
            return
        typed = read.typed
        parts = said(typed)
        # a reply to the assistant or a go-ahead sets no task; a message of only those is an acknowledgement
        nothing = [sentence_function.sets_nothing(sentence, normed) for sentence, normed in parts]
        if parts and all(nothing):
            return
        # the last turn ended with no tool call, or it only looked around and asked what to do
        quiet_reply = state.at_cut == "answered" and (
            not state.activity or (not self._changed and state.final_text.rstrip().endswith("?"))
        )
        # it asked what to do (an offer to help, not a question of which one): the next message may state the task
        # without a request form
        invited = (
            quiet_reply
            and state.final_text.rstrip().endswith("?")
            and not implicit_facts.asks_to_choose(state.final_text)
        )
        self._changed = False
        state.turn += 1
        state.ask_count += 1
        state.latest_ask = typed
        state.at_cut = "asked"
        state.names.quoted(typed, USER_WEIGHT)
        state.typed.append(typed)
        state.activity.clear()
        requests: list[str] = []
        said_rule_or_plan = False
        statements: list[tuple[str, str]] = []
        kept: list[tuple[str, str]] = []
        for (sentence, normed), sets_nothing in zip(parts, nothing, strict=True):
            # a question is a rule only when it asks to keep or not do something; its reason after the "?" is none
            asked = sentence_function.question_rule(sentence, normed)
            ruled = sentence_function.rule_words(sentence, normed) if asked is None else ""
            stated = asked is None and cues.may_state(ruled)  # one lookup rules out a rule, decision, TODO for most
            if (
                asked
                or (stated and cues.is_rule(ruled))
                or cues.revokes_at_start(normed)
                or (asked is None and sentence_function.forbids(sentence, normed))
            ):
                add_rule(state, sentence, normed)
                said_rule_or_plan = True
                continue
            if sets_nothing:  # "Yes, that was me, sorry.", "Go ahead.": no task, no progress
                continue
            kept.append((sentence, normed))
            if stated and cues.is_decision(normed):
                _bounded_add(state.decisions, normed, sentence, MAX_DECISIONS)
                said_rule_or_plan = True
            elif stated and cues.is_todo(normed):
                _bounded_add(state.todos, normed, sentence, MAX_TODOS)
                said_rule_or_plan = True
            elif asked is not None or cues.is_request(sentence, normed) or sentence_function.lists_asks(sentence):
                requests.append(sentence)
            elif len(sentence) > 15:
                statements.append((sentence, normed))
        requested = bool(requests)
        if requests or said_rule_or_plan:
            for sentence, normed in statements:
                _bounded_add(state.statements, normed, sentence, MAX_TODOS)
            statements = []
        if not requests and not said_rule_or_plan:
            # "Step 3: make the parser handle empty ledgers." — no request form, still the ask of this turn
            requests = [sentence for sentence, _ in statements[:2]] or [sentence for sentence, _ in kept[:2]]
        if requests:
            ask = " ".join(requests)
            # a task stated without a request form after an offer to help is still the task
            self._goal(ask, typed, requested=requested or invited, quiet_reply=quiet_reply, stated=said_rule_or_plan)
            state.asks.append(ask)

    def _goal(self, ask: str, typed: str, *, requested: bool, quiet_reply: bool, stated: bool) -> None:
        """The first ask is the goal; while it may be an opening remark (`opening_shape`) the asks after it judge it."""
        state = self.state
        opening = state.opening
        if not state.first_ask:
            state.first_ask = ask
            if state.turn == 1 and not stated and may_open(typed):  # the span's first user turn, a few words
                state.opening = Opening(ask, typed, content_words(typed))
        elif opening is not None and not opening.next_ask(
            content_words(typed), ask, requested=requested, quiet_reply=quiet_reply
        ):
            state.opening = None

    # -- assistant turns --

    def assistant(self, message: SpanMessage) -> None:
        state = self.state
        text, calls = _text_and_calls(message)
        if text and (self._measure is not None or self._failed or self._choice or self._touched):
            self._implicit(text, bool(calls))
        elif calls:
            self._choice = False  # it went looking: what it says after that is no direct answer
        if text:
            state.names.quoted(text)
            state.last_assistant_text = text
            if state.turn and not calls and message.stopReason in (None, "stop", "end_turn"):
                state.at_cut = "answered"
                state.final_text = text
            if cues.worth_reading(text):
                for sentence in sentences(text):
                    normed = cues.words_of(sentence)
                    if cues.is_fix(normed):
                        _bounded_add(state.fixes, normed, sentence, MAX_DECISIONS)
                    if cues.is_decision(normed):
                        _bounded_add(state.decisions, normed, sentence, MAX_DECISIONS)
                    if "TODO" in sentence:
                        _bounded_add(state.todos, normed, sentence, MAX_TODOS)
        if calls and state.turn:
            state.at_cut = "working"
        for call in calls:
            args = _arguments(call)
            paths = call_paths(call, args)
            command = call_command(args)
            if command and not paths:
                paths = _command_read(command)
            self._calls[call.id] = _Call(call, paths, command, state.turn)
            if paths and paths[0][0] == "edit":
                state.names.edited(*_changed_texts(call, args))
        if message.stopReason == "error" and message.errorMessage and not _aborted(message.errorMessage):
            state.failures[f"assistant\x00{state.turn}"] = Failure(
                "the model call", error_text(message.errorMessage), "assistant", state.turn
            )

    def _implicit(self, text: str, calls: bool) -> None:
        """What an assistant text makes of what came just before it: a measurement, a constraint, a conclusion,
        a file's role (`implicit_facts`). Each waits for the first text after it, then goes."""
        state = self.state
        if self._measure is not None:
            if implicit_facts.points_back(text):
                _bounded_add(state.measures, *self._measure, MAX_MEASURES)
            self._measure = None
        if self._failed:
            found = implicit_facts.limitation(said(text[: implicit_facts.LEARNT_SCAN_CHARS]))
            if found:
                _bounded_add(state.learnt, self._failed, clip(found, implicit_facts.MAX_LEARNT_CHARS), MAX_ERRORS)
            self._failed = ""
        if self._choice:
            self._choice = False  # only a direct answer, in prose, concludes: not one that looks something up first
            if not calls:
                found = clip(implicit_facts.conclusion(said(text)), implicit_facts.MAX_CONCLUSION_CHARS)
                if found:
                    _bounded_add(state.decisions, cues.words_of(found), found, MAX_DECISIONS)
        touched, self._touched = self._touched, []
        for path in touched:
            if path in text:
                for sentence in sentences(text):
                    role = implicit_facts.file_role(sentence, path)
                    record = state.files.get(path)
                    if role and record is not None:
                        record.role = clip(role, implicit_facts.MAX_ROLE_CHARS)
                        break

    # -- results --

    def result(self, call_id: str, failed: bool, output: str, tool_name: str | None) -> None:
        state = self.state
        made = self._calls.pop(call_id, None)
        if made is None:
            made = _Call(ToolCallBlock(id=call_id, name=tool_name or "tool", arguments={}), [], "", state.turn)
        call, paths, command = made.call, made.paths, made.command
        if output.startswith('{"output"'):
            failed, output = _exec_output(failed, output)
        target = _target(call, paths, command)
        aborted = failed and _aborted(output[:400])
        no_match = failed and not aborted and _is_no_match(call, command, output)
        really_failed = failed and not aborted and not no_match
        self._order += 1
        for action, path in paths:
            self._file(path, action, failed=failed, really_failed=really_failed, output=output)
            self._changed |= action != "read" and not failed
            if not failed and len(self._touched) < MAX_ACTIVITY:
                self._touched.append(path)
        if really_failed:
            self._failed = target  # what the assistant makes of it comes in its next text
        self._measure = None
        if not failed and made.command and not made.paths and len(output) <= implicit_facts.MAX_MEASURE_OUTPUT_CHARS:
            self._measured(made, output)
        verb = _activity(call, paths, command)
        if verb:
            done = verb + (" (failed)" if really_failed else "")
            if not state.activity or state.activity[-1] != done:
                state.activity.append(done)
        if really_failed:
            state.failures.pop(target, None)
            state.failures[target] = Failure(_label(call, paths, command), error_text(output), target, state.turn)
            while len(state.failures) > MAX_ERRORS * 4:
                del state.failures[next(iter(state.failures))]
        elif not failed:
            fixed = state.failures.pop(target, None)
            if fixed is not None:
                _bounded_failure(state.resolved, fixed)

    def _measured(self, made: _Call, output: str) -> None:
        """A command's short output with a number waits for the assistant's next text (kept at once with a unit)."""
        lines = implicit_facts.measure_lines(output)
        if not lines:
            return
        found = (_label(made.call, made.paths, made.command), clip(lines, implicit_facts.MAX_MEASURE_CHARS))
        if implicit_facts.has_unit(lines):
            _bounded_add(self.state.measures, *found, MAX_MEASURES)
        else:
            self._measure = found

    def _file(self, path: str, action: str, *, failed: bool, really_failed: bool, output: str) -> None:
        """What a call's result did to one file."""
        record = self.state.files.get(path)
        if record is None:
            record = self.state.files[path] = FileRecord(path)
        record.order = self._order
        if really_failed and action != "read":
            record.last_failure = clip(error_text(output), 160)
            return
        if failed:
            return
        if action == "read":
            record.reads += 1
        elif action == "write":
            record.writes += 1
            record.last_failure = ""
        elif action == "edit":
            record.edits += 1
            record.last_failure = ""
        else:
            record.deleted = True

    def bash_execution(self, message: SpanMessage) -> None:
        """A command the user ran themselves (pi's `!`): a failure only when it exits non-zero."""
        command = message.command or ""
        call = ToolCallBlock(id=f"bash:{self._order}", name="bash", arguments={"command": command})
        self._calls[call.id] = _Call(call, [], command, self.state.turn)
        self.result(call.id, message.exitCode not in (None, 0), message.output or "", "bash")

    def message(self, message: SpanMessage) -> None:
        """Read one message of the span."""
        state = self.state
        role = message.role
        if state.replaced_chars < REPLACED_CHARS_COUNTED:
            state.replaced_chars += _size(message)
        if role in ("compactionSummary", "branchSummary"):
            if message.summary:
                state.summaries.append(message.summary)
            return
        if role == "assistant":
            self.assistant(message)
            return
        if role == "toolResult":
            content = message.content
            # one text block (the usual result) is its text as is; anything else is joined as `Message.text` joins it
            first = content[0] if len(content) == 1 else None
            output = first.text if type(first) is TextBlock or type(first) is LightText else _text(message)
            self.result(message.toolCallId or "", message.isError, output, message.toolName)
            return
        if role == "bashExecution":
            self.bash_execution(message)
            return
        if role != "user":
            return
        text = "\n".join(b.text for b in message.content if type(b) is TextBlock or type(b) is LightText)
        for block in message.content:
            if type(block) is ToolResultBlock or type(block) is LightToolResult:
                self.result(block.toolCallId, block.isError, _result_text(block.content), None)
        if text.strip():
            asks = state.ask_count
            self.user_text(text)
            if state.ask_count != asks:  # a new ask: what waited for the assistant's text is past
                self._choice = implicit_facts.asks_to_choose(state.latest_ask)
                self._measure = None
                self._failed = ""


_CHANGED_KEYS = ("newText", "new_string", "new_str", "oldText", "old_string", "old_str", "new_source")


def _changed_texts(call: Call, args: dict[str, Any]) -> list[str]:
    """The code an edit changes: its old and new text (Claude Code's and pi's keys, a patch's +/- lines)."""
    texts = [v for k in _CHANGED_KEYS if isinstance(v := args.get(k), str)]
    for edit in args.get("edits") or []:  # MultiEdit
        if isinstance(edit, dict):
            texts += [v for k in _CHANGED_KEYS if isinstance(v := edit.get(k), str)]
    if call.name.lower() in PATCH_TOOLS or "*** Begin Patch" in str(args.get("input", "")):
        patch = str(args.get("input") or args.get("patch") or args.get("command") or "")
        texts.append(
            "\n".join(line[1:] for line in patch.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---"))
        )
    return texts


def _exec_output(failed: bool, output: str) -> tuple[bool, str]:
    """Codex's JSON tool output: its text, and a failure when the exit code is not 0."""
    try:
        data = json.loads(output)
    except ValueError:
        return failed, output
    if not isinstance(data, dict):
        return failed, output
    metadata = data.get("metadata")
    code = metadata.get("exit_code") if isinstance(metadata, dict) else None
    text = data.get("output")
    return failed or (isinstance(code, int) and code != 0), text if isinstance(text, str) else output


def _bounded_failure(store: dict[str, Failure], failure: Failure) -> None:
    store.pop(failure.target, None)
    store[failure.target] = failure
    while len(store) > MAX_ERRORS:
        del store[next(iter(store))]


_VERBS = {"read": "read", "write": "wrote", "edit": "edited", "delete": "deleted"}


def _activity(call: Call, paths: list[tuple[str, str]], command: str) -> str:
    if paths:
        action, path = paths[0]
        return f"{_VERBS[action]} `{path}`"
    if command:
        return f"ran `{clip(command, 100)}`"
    return f"called `{call.name}`"


def _text(message: SpanMessage) -> str:
    """`Message.text` of a span message; a light one has no system sections nor extras to read."""
    if isinstance(message, Message):
        return message.text()
    parts: list[str] = []
    blocks: Iterable[LightBlock | LightToolResult] = message.content  # a model's message's may hold tool results
    for block in blocks:
        if type(block) is LightText:
            parts.append(block.text)
        elif type(block) is LightToolResult:
            parts.extend(b.text for b in block.content if type(b) is LightText)
    if message.role in ("branchSummary", "compactionSummary") and message.summary:
        parts.append(message.summary)
    if message.role == "bashExecution":
        parts.append(f"$ {message.command or ''}\n{message.output or ''}")
    return "\n".join(p for p in parts if p)


def _size(message: SpanMessage) -> int:
    """About the characters a message puts in the context (texts, tool arguments' strings, results, summaries)."""
    size = len(message.summary or "") + len(message.command or "") + len(message.output or "")
    for block in message.content:
        if type(block) is TextBlock or type(block) is LightText:
            size += len(block.text)
        elif type(block) is ToolCallBlock or type(block) is LightToolCall:
            args = block.arguments
            if isinstance(args, str):
                size += len(args)
            elif isinstance(args, dict):
                size += 16 * len(args)
                for value in args.values():
                    size += len(value) if type(value) is str else 8
        elif type(block) is ToolResultBlock or type(block) is LightToolResult:
            for inner in block.content:
                if type(inner) is TextBlock or type(inner) is LightText:
                    size += len(inner.text)
        else:
            size += len(str(getattr(block, "thinking", "") or ""))
    return size


def read_span(messages: Iterable[SpanMessage]) -> SpanState:
    """The state a span of messages leaves, read in one pass."""
    reader = SpanReader()
    for message in messages:
        reader.message(message)
    state = reader.state
    state.plan = last_plan(state.last_assistant_text)
    opening = state.opening
    if opening is not None and opening.settled(state.files):  # an opening remark: the ask after it is the goal
        state.first_ask = opening.task
        if opening.ask in state.asks:
            state.asks.remove(opening.ask)
        if opening.typed in state.typed:
            state.typed.remove(opening.typed)
    for typed in state.typed:  # bare code names in the last asks (the user's quoted ones counted as they came)
        state.names.bare(typed)
    return state


def last_plan(text: str) -> list[str]:
    """What the assistant's last text says it will do next (up to three sentences)."""
    plan: list[str] = []
    for sentence in sentences(text):
        if cues.is_plan(cues.words_of(sentence)):
            plan.append(clip(sentence, 200))
            if len(plan) == 3:
                break
    return plan


def is_summary_text(text: str) -> bool:
    """Whether a user turn's text is a previous summary handed back to the agent."""
    return text.lstrip().startswith(SUMMARY_OPENINGS)
