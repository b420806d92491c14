"""The words that mark a sentence as a rule, a decision, a TODO, a plan, a fix or a request.

A sentence is lower-cased and reduced to its words once (`words_of`, or a user turn's
sentences all at once by `session_state.said`); each cue is then one search for its words
and phrases, laid out as a tree of their beginnings, or a prefix test on that, not a
case-folding regex with dozens of alternatives per sentence — the summarizer reads every
user sentence of a 100,000-entry session, so this is where its time goes.
"""

from __future__ import annotations

import re

_NON_WORD = re.compile(r"[^a-z0-9']+")


def words_of(text: str) -> str:
    """The text lower-cased, runs of other characters as one space, padded with a space at each end."""
    return f" {_NON_WORD.sub(' ', text.lower()).strip()} "


_Tree = dict[str, "_Tree"]


def _phrases(phrases: tuple[str, ...]) -> re.Pattern[str]:
    """One search for whether any of the phrases occurs (they are padded with spaces, as `words_of` pads words).

    The phrases are laid out as a tree of their common beginnings, `(?:a(?:fter|t )|be …)`, so at each
    place in the text the search tries one branch per next letter instead of every phrase in turn;
    a phrase that another begins with ends its branch (for a yes/no search the shorter one decides).
    """
    tree: _Tree = {}
    for phrase in phrases:
        node = tree
        for char in phrase:
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: _Tree) -> str:
        if "" in node:
            return ""
        branches = [re.escape(char) + pattern(rest) for char, rest in sorted(node.items())]
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    return re.compile(pattern(tree))


def phrases_search(phrases: tuple[str, ...]) -> re.Pattern[str]:
    """`_phrases` for the other readers of `words_of` texts (`implicit_facts`)."""
    return _phrases(phrases)


def _words_or_phrases(words: frozenset[str], phrases: tuple[str, ...]) -> re.Pattern[str]:
    """One search for any of the words or phrases: in a `words_of` text (single spaces, padded) a word is
    one of its words exactly when it occurs with a space each side, as a phrase does."""
    return _phrases(tuple(f" {word} " for word in sorted(words)) + phrases)


def _starts(normed: str, prefixes: tuple[str, ...]) -> bool:
    return normed.startswith(prefixes)


_RULE_WORDS = frozenset(
    [
        "must",
        "mustn't",
        "never",
        "always",
        "don't",
        "dont",
        "avoid",
        "prefer",
        "preferably",
        "ensure",
        "required",
        "forbidden",
        "allowed",
        "permitted",
        "unless",
        "without",
        "shouldn't",
        "should",
    ]
)
_RULE_PHRASES = (
    " do not ",
    " does not ",
    " doesn't ",
    " should not ",
    " must not ",
    " i'd rather ",
    " make sure ",
    " be sure ",
    " keep in mind ",
    " no more than ",
    " at most ",
    " at least ",
    " up to ",
    " or more ",
    " or less ",
    " only if ",
    " as long as ",
    " provided that ",
    " instead of ",
    " rather than ",
    " not allowed ",
    " from now on ",
    " stick to ",
    " no longer ",
    " not anymore ",
    " ask me before ",
    " check with me ",
    " more than ",
    " fewer than ",
    " less than ",
)
_STRONG_RULE_WORDS = frozenset(["never", "always", "must", "mustn't", "forbidden", "don't"])
_STRONG_RULE_PHRASES = (" do not ", " must not ", " only if ", " not allowed ")
_REVOKE_STARTS = (
    " actually ",
    " instead ",
    " scratch ",
    " forget ",
    " never mind ",
    " nevermind ",
    " ignore ",
    " drop the ",
    " on second thought ",
    " from now on ",
    " change of plan ",
)
_REVOKE_PHRASES = (
    " actually ",
    " instead ",
    " from now on ",
    " scratch ",
    " never mind ",
    " ignore ",
    " drop the ",
    " no longer ",
    " not anymore ",
    " changed my mind ",
    " on second thought ",
    " rather ",
    " switch to ",
    " change that to ",
    " change it to ",
    " forget ",
)
_DECISION_WORDS = frozenset(["decided", "decision", "chose", "chosen", "opted", "opting"])
_DECISION_PHRASES = (
    " decide to ",
    " choose to ",
    " go with ",
    " going with ",
    " went with ",
    " settled on ",
    " settle on ",
    " switch to ",
    " switched to ",
    " switching to ",
    " we'll use ",
    " i'll use ",
    " we will use ",
    " i will use ",
    " let's use ",
    " instead of ",
    " rather than ",
    " the plan is ",
    " plan is to ",
)
_TODO_WORDS = frozenset(["todo", "later", "afterwards", "afterward", "eventually"])
_TODO_PHRASES = (
    " remember to ",
    " don't forget ",
    " do not forget ",
    " follow up ",
    " after that ",
    " at some point ",
    " still need to ",
    " still have to ",
    " remaining ",
    " not yet ",
)
_PLAN_STARTS = (
    " i'll ",
    " i will ",
    " i'm going to ",
    " i am going to ",
    " let me ",
    " let's ",
    " we'll ",
    " we will ",
    " next i ",
    " now i ",
    " then i ",
    " the next step ",
    " next step ",
    " i need to ",
    " i still need to ",
    " remaining ",
)
_LEAD_WORDS = re.compile(r"^ (?:now|next|then|first|ok|okay|so) ")
_FIX_STARTS = (" fixed ", " resolved ", " solved ", " worked around ", " i fixed ", " we fixed ", " i resolved ")
_REQUEST_STARTS = (
    " please ",
    " kindly ",
    " can you ",
    " could you ",
    " would you ",
    " will you ",
    " can we ",
    " could we ",
    " let's ",
    " lets ",
    " i want ",
    " i'd like ",
    " i would like ",
    " i need you ",
    " we need to ",
    " help me ",
    " go ahead ",
    " now ",
    " next ",
    " also ",
    " then ",
    " and ",
    " so ",
)
_VERBS = frozenset(
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
        "wire",
        "port",
        "bump",
        "tag",
        "release",
        "ship",
        "handle",
        "support",
        "cover",
        "expose",
        "drop",
        "rerun",
        "retry",
        "go",
        "get",
        "do",
        "see",
        "let",
    ]
)


_RULE_RX = _words_or_phrases(_RULE_WORDS, _RULE_PHRASES)
_STRONG_RULE_RX = _words_or_phrases(_STRONG_RULE_WORDS, _STRONG_RULE_PHRASES)
_DECISION_RX = _words_or_phrases(_DECISION_WORDS, _DECISION_PHRASES)
_TODO_RX = _words_or_phrases(_TODO_WORDS, _TODO_PHRASES)
_REVOKE_PHRASES_RX = _phrases(_REVOKE_PHRASES)
# any word or phrase of a rule, a decision or a TODO: one lookup rules out all three for most sentences
_STATED_RX = _words_or_phrases(
    _RULE_WORDS | _DECISION_WORDS | _TODO_WORDS, _RULE_PHRASES + _DECISION_PHRASES + _TODO_PHRASES
)
# a first look at an assistant's raw text (lower-cased): only a text with one of these is read sentence by sentence
_ASSISTANT_GATE = (
    "decid",
    "decision",
    "chose",
    "choos",
    "opted",
    "opting",
    "settle",
    "switch",
    "instead of",
    "rather than",
    "plan is",
    "fixed",
    "resolved",
    "solved",
    "worked around",
    "todo",
    "go with",
    "going with",
    "went with",
    "'ll use",
    "will use",
    "let's use",
)

# a part of every gate word, so a text with none of these has none of them (fewer searches than the gate's words)
_GATE_PARTS = (
    "deci",
    "cho",
    "opt",
    "settle",
    "switch",
    "instead of",
    "rather than",
    "plan is",
    "fixed",
    "solved",
    "worked around",
    "todo",
    "go with",
    "going with",
    "went with",
    "ll use",
    "let's use",
)


def may_state(normed: str) -> bool:
    """Whether a sentence may be a rule, a decision or a TODO (False: it is none of them)."""
    return _STATED_RX.search(normed) is not None


def is_rule(normed: str) -> bool:
    return _RULE_RX.search(normed) is not None


def is_strong_rule(normed: str) -> bool:
    """A rule however it is worded or wherever a summary lists it."""
    return _STRONG_RULE_RX.search(normed) is not None


# "Ignore it", "forget that", "scratch this": the revoking verb points back at a thing, it states no rule
_REVOKE_POINTING = re.compile(r"^ (?:ignore|forget|scratch|never ?mind) (?:it|that|this|them|those) ")


def revokes_at_start(normed: str) -> bool:
    """ "Actually, …", "Instead …", "… instead.": a rule replacing an earlier one (not "Ignore it, I'll delete it.")."""
    if normed.endswith(" instead "):
        return True
    return _starts(normed, _REVOKE_STARTS) and _REVOKE_POINTING.match(normed) is None


def revokes(normed: str) -> bool:
    return _REVOKE_PHRASES_RX.search(normed) is not None


def is_decision(normed: str) -> bool:
    return _DECISION_RX.search(normed) is not None


def is_todo(normed: str) -> bool:
    return _TODO_RX.search(normed) is not None


def is_plan(normed: str) -> bool:
    return _starts(_LEAD_WORDS.sub(" ", normed, count=1), _PLAN_STARTS)


def is_fix(normed: str) -> bool:
    return _starts(normed, _FIX_STARTS)


def is_request(sentence: str, normed: str) -> bool:
    """A question, a polite opener or an imperative: something the person asks to be done."""
    if sentence.rstrip().endswith("?") or _starts(normed, _REQUEST_STARTS):
        return True
    first = normed.split(" ", 2)[1] if len(normed) > 2 else ""
    return first in _VERBS


def worth_reading(text: str) -> bool:
    """Whether an assistant's raw text may hold a decision, a fix or a TODO (before splitting it into sentences)."""
    lowered = text.lower()
    for part in _GATE_PARTS:  # most texts hold none of these: a few searches rule them out
        if part in lowered:
            return any(key in lowered for key in _ASSISTANT_GATE)
    return False
