"""`facts.has_content_word` answers what `bool(content_words(text))` answers (the sentence split asks it of every part)."""

from __future__ import annotations

import json

from cutline.core.facts import content_words, has_content_word, sentences
from tests.support.session_files import SESSION_FILES

EDGES = [
    "",
    "a",
    "ok",
    "the and",
    "don't",
    "isn't it",
    "'n't'",
    "no",
    "Not",
    "it's",
    "abc",
    "ab cd",
    "I'd",
    "x1 y2",
    "the 'end'",
    "NEVER",
    "é café",
    "a_b",
    "''",
    "12345",
    "run",
]


def _texts() -> list[str]:
    """Every string of every sample and fixture session, and its lines and words."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for file in SESSION_FILES:
        for line in file.read_text(errors="replace").splitlines():
            try:
                walk(json.loads(line))
            except ValueError:
                continue
    pieces = [piece for text in found for piece in (text, *text.splitlines()[:8], *text.split()[:12])]
    return EDGES + pieces


def test_has_content_word_is_content_words_nonempty() -> None:
    texts = _texts()
    assert len(texts) > 10_000
    for text in texts:
        assert has_content_word(text) == bool(content_words(text)), text


def test_sentences_keep_the_parts_with_content_words() -> None:
    assert sentences("ok. The build failed. It is.") == ["The build failed."]
    assert sentences("No.\nDon't.\n- abc") == ["No.", "Don't.", "abc"]
