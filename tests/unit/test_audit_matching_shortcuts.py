"""The audit's matching shortcuts (core/audit/compare.py) give the answers of the plain path.

A role swap told from the passage's norms that it cannot hold the fact's frame (the passage
then not read), a fact's choice and a passage's done/open/fixed states made once per text,
a passage's substitution frame made once, and a fact's candidates counted once for its
two steps: each compared with the plain computation on the sentences of every fixture and
sample session (each sentence judged against the passages of its own session).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cutline.core.agents import read_session
from cutline.core.audit import compare
from cutline.core.audit.compare import (
    CANDIDATES_KEPT,
    _choice,
    _choice_of,
    _role_swap,
    _states,
    passages,
    sentences,
    tokens,
)
from tests.support.session_files import SESSION_FILES

FACTS = 120  # sentences of a session judged against its passages (its first ones)


def _texts(file: Path) -> list[str]:
    session = read_session(file)
    return [text for e in session.active_path() if e.message is not None and (text := e.message.text())]


@pytest.mark.parametrize("file", SESSION_FILES, ids=lambda p: p.name)
def test_the_shortcuts_answer_as_the_plain_path_on_every_session(file: Path) -> None:
    texts = _texts(file)
    seen, fresh = passages(texts), passages(texts)
    facts = [s for text in texts for s in sentences(text) if s][:FACTS]
    for fact in facts:
        norms = [t.norm for t in tokens(fact)]
        found = seen.candidates(norms)
        assert seen.candidates(iter(norms)) == found == fresh.candidates(norms)
        fresh._candidates.clear()  # counted anew each time
        assert _choice_of(fact) == _choice(fact)
        for position in found:
            item = seen.items[position]
            assert _role_swap(fact, item.text, seen.toks, item.norms) == _role_swap(fact, item.text, seen.toks)
            lower = item.text.lower()
            assert _states(item.text) == tuple(
                p.search(lower) is not None for p in (compare._DONE, compare._OPEN, compare._FIXED, compare._UNFIXED)
            )
            assert item.frame_norms() == [
                t.norm for t in item.toks if t.norm != "not" and not compare._STAMP.fullmatch(t.norm)
            ]
    assert len(seen._candidates) <= CANDIDATES_KEPT


def test_a_role_swap_is_still_found_and_a_passage_without_the_frame_is_not_read() -> None:
    fact = "Deploy the billing service using Docker Compose"
    seen = passages(["Deploy the billing service using Kubernetes Helm.", "The weather report was sunny today."])
    swap, other = seen.items
    assert _role_swap(fact, swap.text, seen.toks, swap.norms) == "kubernetes helm instead of docker compose"
    read: list[str] = []

    def toks(text: str, keep_stop: bool) -> list[compare.Token]:
        read.append(text)
        return tokens(text, keep_stop)

    assert _role_swap(fact, other.text, toks, other.norms) is None
    assert read == [fact]  # the fact's words only: "deploy", "billing", "service" cannot be in that passage
    assert _role_swap(fact, other.text, toks) is None and read[-1] == other.text  # without the norms it is read


def test_a_stop_word_s_form_in_the_frame_does_not_rule_the_passage_out() -> None:
    # "having" is a stop word: `tokens` drops it, so the passage's norms lack its form "hav", but the words kept with
    # the stop words hold it (the frame word is compared there)
    fact = "Cache the pages having headers served by Varnish"
    seen = passages(["Cache the pages having headers served by Nginx"])
    item = seen.items[0]
    assert "hav" not in item.norms
    assert _role_swap(fact, item.text, seen.toks, item.norms) == "nginx instead of varnish"
    assert _role_swap(fact, item.text, seen.toks) == "nginx instead of varnish"
