"""The offline summarizer's faster readings give what the plain ones give: a turn's words read at once, cues as
one search, rule subjects as bit masks, the assistant gate's cheaper first look."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest

from cutline.core.summarizers import cues
from cutline.core.summarizers import session_state as ss

# text that trips a word splitter: capitals whose lower case is longer or ASCII, final sigma, fences,
# list marks, every line break `str.splitlines` knows, tabs, curly quotes, digits and apostrophes
_PIECES = [
    "Make sure the İstanbul config is used, never the KELVIN one (\u212a).",
    "ΣΊΣΥΦΟΣ must not be renamed. Actually, use ΣΟΦΙΑ instead.",
    "```\nconst x = 1;\n```\nDon't touch `x`. 1. Always run tests. 2) Never push.",
    "- keep it short\n- do not add deps\n# Heading here\n> quoted: must stay",
    "Fix it.Then run it! Is it done? 'Quoted' start. (Paren) start. [bracket] start.",
    "café → done. Naïve approach: avoid it. ǅemal's rule: don't use ǆ. ﬁle ﬂag must be kept.",
    "decided: go with sqlite\ttabs\there. TODO later: remember to clean up.",
    "From now on, always use tabs.\r\nScratch that: never use tabs.\r\nok",
    "12.5 percent must be kept. 3. Third item must stay. #7 issue should be fixed.",
    "Don’t use curly quotes – ever. It’s a rule: never “smart” quotes.",
    "line\u2028sep must split. para\u2029sep must\x0bvtab must\x0cform feed must\x1cfs must\x85nel must",
    "Ⅻ Roman numerals must stay. ＡＢＣ fullwidth must stay. ẞ capital sharp s must stay.",
    "at most 3 retries, no more than 2 workers, up to 5 minutes; I'd rather not",
    "   \n\n  ",
    "a. b. c.",
]


def _texts() -> list[str]:
    rng = random.Random(23)
    texts = list(_PIECES)
    for _ in range(300):
        texts.append(rng.choice(["\n", " ", "\n\n", ". ", "\r\n"]).join(rng.sample(_PIECES, rng.randint(1, 5))))
    return texts


@pytest.mark.parametrize("text", _texts())
def test_a_turn_read_at_once_gives_each_sentence_its_words_as_words_of_does(text: str) -> None:
    assert ss.said(text) == [(sentence, cues.words_of(sentence)) for sentence in ss.sentences(text)]


def _reference(normed: str, words: frozenset[str], phrases: tuple[str, ...]) -> bool:
    """The plain reading: one of the words among the text's words, or one of the phrases in it."""
    return not words.isdisjoint(normed.split()) or any(phrase in normed for phrase in phrases)


@pytest.mark.parametrize(
    ("check", "words", "phrases"),
    [
        (cues.is_rule, cues._RULE_WORDS, cues._RULE_PHRASES),
        (cues.is_strong_rule, cues._STRONG_RULE_WORDS, cues._STRONG_RULE_PHRASES),
        (cues.is_decision, cues._DECISION_WORDS, cues._DECISION_PHRASES),
        (cues.is_todo, cues._TODO_WORDS, cues._TODO_PHRASES),
        (
            cues.may_state,
            cues._RULE_WORDS | cues._DECISION_WORDS | cues._TODO_WORDS,
            cues._RULE_PHRASES + cues._DECISION_PHRASES + cues._TODO_PHRASES,
        ),
    ],
)
def test_each_cue_is_one_search_that_finds_what_its_words_and_phrases_find(
    check: Callable[[str], bool], words: frozenset[str], phrases: tuple[str, ...]
) -> None:
    samples = [f"Please {word} the thing" for word in sorted(words)]
    samples += [f"x{word}y and {word}s" for word in sorted(words)]  # a cue word inside another word is not it
    samples += [f"So,{phrase.strip()}!" for phrase in phrases] + [phrase.strip().replace(" ", "") for phrase in phrases]
    samples += _texts()
    for sample in samples:
        normed = cues.words_of(sample)
        assert check(normed) == _reference(normed, words, phrases), sample


def _plain_rules(sentences: list[str]) -> list[list[str]]:
    """add_rule's replacement with the subjects compared as sets, as it was written first: the rules after each."""
    rules: list[tuple[str, str, frozenset[str]]] = []
    after: list[list[str]] = []
    for sentence in sentences:
        normed = cues.words_of(sentence)
        text, key, subject = ss.clip(sentence), normed.strip(), ss._subject(ss.clip(sentence))
        threshold = 0.34 if cues.revokes(normed) else 0.75
        kept = [
            rule
            for rule in rules
            if rule[1] != key
            and (
                subject.isdisjoint(rule[2])
                or len(subject & rule[2]) < threshold * (min(len(subject), len(rule[2])) or 1)
            )
        ]
        rules = [*kept, (text, key, subject)][-ss.MAX_RULES :]
        after.append([rule[0] for rule in rules])
    return after


def test_rules_compared_as_bit_masks_replace_what_sets_replace_across_a_renumbering() -> None:
    rng = random.Random(5)
    common = [f"topic{i}" for i in range(30)]
    sentences = []
    for i in range(4000):
        # enough new words that the numbering passes MAX_SUBJECT_BITS several times
        words = rng.sample(common, rng.randint(1, 6)) + [f"word{i}x{j}" for j in range(rng.randint(0, 3))]
        opener = rng.choice(["Never touch", "Always keep", "Actually, use", "Don't change", "Make sure"])
        sentences.append(f"{opener} {' '.join(words)}.")
    state = ss.SpanState()
    renumbered = 0
    expected = _plain_rules(sentences)
    for sentence, rules in zip(sentences, expected, strict=True):
        before = len(state.subject_bits)
        ss.add_rule(state, sentence)
        renumbered += len(state.subject_bits) < before
        assert [rule.text for rule in state.rules] == rules, sentence
    assert renumbered >= 2


def test_every_word_of_the_assistant_gate_holds_one_of_its_first_look_parts() -> None:
    for key in cues._ASSISTANT_GATE:
        assert any(part in key for part in cues._GATE_PARTS), key
    for key in cues._ASSISTANT_GATE:
        assert cues.worth_reading(f"Well, {key.upper()} here.")
    assert not cues.worth_reading("Nothing to see in this text at all.")


def test_a_line_s_code_characters_counted_as_bytes_are_what_a_search_for_them_counts() -> None:
    from cutline.core.summarizers import user_text

    code = re.compile(r"[{}()\[\];=<>$\\|`#]")
    rng = random.Random(7)
    alphabet = "{}()[];=<>$\\|`#abc é→😀\ud800 " + "".join(map(chr, range(0x80, 0x100)))
    for _ in range(3000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(13, 60)))
        raw = line.strip().encode("utf-8", "surrogatepass")
        assert len(raw) - len(raw.translate(None, user_text._CODE_BYTES)) == len(code.findall(line.strip()))
        stripped = line.strip()
        counted, words = len(code.findall(stripped)), len(re.findall(r"[A-Za-z][A-Za-z']*", stripped))
        pasted = counted * 4 > words + 2 if counted >= 3 else re.search("[A-Za-z]", stripped) is None
        expected = bool(stripped) and (bool(user_text._PASTED_LINE.match(line)) or (len(stripped) > 12 and pasted))
        assert user_text.is_pasted_line(line) == expected, line


class _Counted:
    """A compiled pattern whose calls are counted (the rest passes through)."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.calls = 0

    def __getattr__(self, name: str) -> object:
        found = getattr(self.pattern, name)
        if not callable(found):
            return found

        def counted(*args: object, **kwargs: object) -> object:
            self.calls += 1
            return found(*args, **kwargs)

        return counted


def _plain_sentences(text: str) -> list[str]:
    """`sentences` as it read every line: its list mark searched for and the line split at sentence ends."""
    if "```" in text:
        text = ss._FENCE.sub(" ", text)
    found: list[str] = []
    for raw in text.splitlines():
        line = ss._LIST_MARK.sub("", raw).strip()
        if not line:
            continue
        for part in ss._SENTENCE_BREAK.split(line):
            part = part.strip()
            if len(part) >= 3 and ss._LETTER.search(part):
                found.append(part)
    return found


# lines whose first character may or may not start a list mark: every kind of space before it, digits of other
# scripts (`\d` takes them), marks with nothing after them, a line of spaces only
_LIST_LINES = [
    "\u3000- full-width space, then a mark",
    "\u00a0\u2003* no-break and em spaces. Then more.",
    "\u0661\u0662. Arabic-Indic digits. Two sentences!",
    "\u0966) Devanagari zero",
    "\u00b2. a superscript two is no decimal digit",
    "\u2160. a Roman numeral is none either",
    "-",
    "##",
    " 12.",
    "> ",
    "+ plus mark? Yes. done",
    "no mark and no sentence end",
    "Wow! Another one without a full stop",
    "\t\x0b\x0c  ",
    "ends with a mark -",
]


@pytest.mark.parametrize("text", _texts() + _LIST_LINES + ["\n".join(_LIST_LINES)])
def test_sentences_read_each_line_as_a_search_for_its_list_mark_and_a_split_at_every_line_would(text: str) -> None:
    assert ss.sentences(text) == _plain_sentences(text)


def test_sentences_search_for_a_list_mark_or_split_only_lines_that_may_have_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A line not starting with a list mark's character is not searched for one; one with no ".", "?" or "!" is
    not split (most lines of a long session: a search or split is ~10x the test)."""
    marks, breaks = _Counted(ss._LIST_MARK), _Counted(ss._SENTENCE_BREAK)
    monkeypatch.setattr(ss, "_LIST_MARK", marks)
    monkeypatch.setattr(ss, "_SENTENCE_BREAK", breaks)
    plain = "\n".join(f"line {i} says something without an end" for i in range(40))
    assert len(ss.sentences(plain)) == 40
    assert (marks.calls, breaks.calls) == (0, 0)
    marked = "\n".join(f"- item {i}. Then more" for i in range(40))
    assert len(ss.sentences(marked)) == 80
    assert (marks.calls, breaks.calls) == (40, 40)


_ABORT_SAMPLES = [
    "Aborted",
    "the operation was ABORTED by the user",
    "[Request interrupted by user for tool use]",
    "Request Interrupted",
    "The user doesn't want to proceed with this tool use.",
    "User rejected the edit",
    "rejected by the user",
    "Operation was cancelled",
    "operation was canceled",
    "Cancelled by user",
    "uſer rejected",  # "ſ" is an "s" to a case-insensitive search: a text that is not ASCII is searched
    "request \u0131nterrupted",  # so is a dotless "ı" an "i", with none of the pieces lower-cased
    "\u0130nterrupted by user",
    "Ошибка → \u0131nterrupted by user",
    "Ошибка → interrupted by user",
    "Ошибка → nothing of the kind",
    "\u212a: ca\u0131ncel",
    "\u212aeep: operation was cancelled",
    "re\u0130ected by user",
    "ERROR: file not found",
    "interrupt the process, then proceed; reject the cancel button",
    "",
    "abort",
]


@pytest.mark.parametrize("text", _ABORT_SAMPLES)
def test_an_abort_is_what_the_case_insensitive_search_finds(text: str) -> None:
    assert ss._aborted(text) == (ss._ABORTED.search(text) is not None)


def test_errored_results_without_an_abort_word_are_not_searched_for_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search is case-insensitive (~25 us over 400 characters): an output with none of its phrases' pieces
    is ruled out by `in` tests; one with a piece, or with a character the search takes for an ASCII letter, is
    searched."""
    counted = _Counted(ss._ABORTED)
    monkeypatch.setattr(ss, "_ABORTED", counted)
    reader = ss.SpanReader()
    for i in range(50):
        reader.result(f"call{i}", True, f"Error: no such file or directory: src/f{i}.py (exit 1)", "read")
    assert counted.calls == 0
    assert len(reader.state.failures) == 1
    reader.result("a", True, "Ошибка: file not found → src/f.py", "bash")
    assert counted.calls == 0
    reader.result("b", True, "Request interrupted by user", "bash")
    reader.result("c", True, "Ошибка: uſer file not found", "bash")
    assert counted.calls == 2
