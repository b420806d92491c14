"""What a sentence of the user's does, before its words are read for a rule, an ask or a fact.

A rule word in a sentence does not make it a rule, nor does a sentence the user typed make a task:

- a **question** is a rule only when it asks for a requirement: a request form ("can we", "could you",
  "would you please") that asks to keep, leave, avoid or not do something ("Can we keep the public API
  unchanged?" is a rule; "Does the Redis path actually work? fakeredis doesn't run Lua unless …" asks
  something, whatever rule words its reason holds);
- a rule word in a **purpose clause** ("… so customers can see their quota without spending it") says what
  a thing is for, it sets no rule on the work;
- a sentence that **lists asks** after a colon ("Two more things: (1) …, and (2) …") is a request;
- a verbless **"no X yet / please / for now"** clause ("Then push to a branch, no PR yet.", "no new runtime
  dependencies please") forbids something: a rule, without a rule word;
- a **reply** to the assistant ("Yes, that was me in the other terminal, sorry.", "(And yes, the old
  lockfile was mine, I removed it.)") and a **go-ahead** ("Go ahead.", "Carry on.") set no task and report
  no progress;
- a **statement that shares no word** with the work (its asks, its rules, the files it touched, the code names)
  and carries no value (a number, a code quote, a path or a code name: "Debian stable ships 1.70." stays) is
  small talk ("He's out this week."), not context to continue from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from cutline.core.summarizers import cues
from cutline.core.summarizers.opening_shape import content_words
from cutline.core.summarizers.user_text import ACK_WORDS, is_acknowledgement

# the opening of a request put as a question: a modal and who is to do it ("can we", "could you please")
_REQUEST_QUESTION = re.compile(r"^ (?:can|could|would|will) (?:we|you|u)(?: please| also| just| maybe)* (\S+) ")
# verbs that ask to keep something as it is, or not to do it: the requirement a question can state
_KEEPING = frozenset(["keep", "leave", "stay", "stick", "not", "never", "only", "preserve", "retain", "hold"])
# a purpose clause: "so (that) <someone> can/could/will …", "in order to …", up to the clause's end
_PURPOSE = re.compile(r"\b(?:so(?: that)?(?:\s+[\w'-]+){1,3}?\s+(?:can|could|will|would|may)|in order to)\b[^,;:()]*")
# a colon followed by an enumeration: "(1)", "1.", "a)", "first,", "one,"
_LISTED = re.compile(r":\s*(?:\(?(?:1|a|i)[.)]|first\b|one\b)", re.IGNORECASE)
# a reply's first words: an answer or an apology (after an optional "(", "and", "oh")
_REPLY = re.compile(
    r"^\(?\s*(?:(?:and|oh|oh and)\s*,?\s+)?"
    r"(?:yes|yeah|yep|yup|right|oops|sorry|apologies|my bad|ah yes|ah right|indeed)\b[\s,.!:;-]*(.*)$",
    re.IGNORECASE | re.DOTALL,
)


def question_rule(sentence: str, normed: str) -> bool | None:
    """None when the sentence asks no question; else whether the question states a requirement.

    The question is the text up to its first "?" (a reason after it, "… unless lupa is installed", is no rule)."""
    mark = sentence.find("?")
    if mark < 0:
        return None
    head = cues.words_of(sentence[:mark]) if mark < len(sentence.rstrip()) - 1 else normed
    form = _REQUEST_QUESTION.match(head)
    if form is None:
        return False
    return form.group(1) in _KEEPING or cues.is_rule(head)


# a clause of its own that forbids something without a verb: "no <thing> yet / please / for now / anymore"
_NO_CLAUSE = re.compile(
    r"(?:^|[,;:(]\s*|\b(?:and|but|then)\s+)no\s+[\w'`/.-]+(?:\s+[\w'`/.-]+){0,3}?\s+"
    r"(?:yet|please|for now|anymore|any more|at all)\b",
    re.IGNORECASE,
)


def forbids(sentence: str, normed: str) -> bool:
    """ "…, no PR yet.", "no new runtime dependencies please": a verbless clause that forbids something."""
    return (normed.startswith(" no ") or " no " in normed) and _NO_CLAUSE.search(sentence) is not None


def rule_words(sentence: str, normed: str) -> str:
    """The sentence's `words_of` form without its purpose clauses (their rule words set no rule)."""
    if " so " not in normed and " order to " not in normed:
        return normed
    return cues.words_of(_PURPOSE.sub(" ", sentence))


def lists_asks(sentence: str) -> bool:
    """ "Two more things: (1) …, and (2) …": asks listed after a colon."""
    return ":" in sentence and _LISTED.search(sentence) is not None


def is_reply(sentence: str) -> bool:
    """An answer or an apology to the assistant that asks nothing ("Yes, that was me, sorry."; not "Yes, add it.")."""
    found = _REPLY.match(sentence.strip())
    if found is None:
        return False
    rest = found.group(1).strip(" ()")
    return not rest or not cues.is_request(rest, cues.words_of(rest))


# the first words a reply or a go-ahead can open with (one set lookup rules most sentences out)
_OPENS_REPLY = frozenset(["and", "oh", "yes", "yeah", "yep", "yup", "right", "oops", "sorry", "apologies", "my", "ah"])
_OPENS_NOTHING = _OPENS_REPLY | ACK_WORDS


def sets_nothing(sentence: str, normed: str) -> bool:
    """A reply or a go-ahead ("Go ahead.", "Carry on."): no task, no progress, no context.

    `normed`: the sentence's `cues.words_of` form (its first word decides whether to look further)."""
    first = normed[1 : normed.find(" ", 1)]
    if first not in _OPENS_NOTHING and first != "indeed":
        return False
    return is_acknowledgement(sentence) or is_reply(sentence)


# a value to continue from: a number, a code quote, a dotted or slashed name, a CamelCase or snake_case word
_VALUE = re.compile(r"\d|`|\w[./]\w|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*|\w_\w")


def on_topic(statement: str, topic: frozenset[str]) -> bool:
    """Whether a statement shares a content word with the work or carries a value (else it is small talk)."""
    return _VALUE.search(statement) is not None or not content_words(statement).isdisjoint(topic)


def path_words(paths: Iterable[str]) -> frozenset[str]:
    """The content words of file paths ("src/snip/ratelimit.py": src, snip, ratelimit)."""
    return content_words(" ".join(re.sub(r"[/._-]+", " ", path) for path in paths))
