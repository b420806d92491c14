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
