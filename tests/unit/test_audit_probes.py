"""The audit's matching from each token's forms looked up once (`Passages.probe`) and its tokens made once per piece of
text (`_piece_tokens`) give the answers of the plain computation (core/audit/compare.py).

`probed_overlap`, `probed_shared` and `Probe.match` are compared with `overlap`, `_shared` and `_match_weight` on
the sentences of every fixture and sample session, each judged against the passages of its own session (its
candidates, each alone and merged with its neighbours) with the session's working directory; `tokens` with a copy of
the plain tokenizer on every text and sentence of those sessions. Rare forms (a number in words, a unit, a path in
another form, a file name only, a name's plural, a path's tail) are compared on passages made to hold them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cutline.core.agents import read_session
from cutline.core.audit import compare
from cutline.core.audit.compare import (
    Passages,
    Token,
    _match_weight,
    _shared,
    overlap,
    passages,
    probed_overlap,
    probed_shared,
    sentences,
    tokens,
)
from cutline.core.audit.rewording import times_as_one
from cutline.core.facts import stem
from tests.support.session_files import SESSION_FILES

FACTS = 80  # sentences of a session judged against its passages (its first ones)
TEXT_CHARS = 100_000  # a session's first texts tokenized both ways, whole and sentence by sentence (about this long)


def _plain_pieces(text: str) -> list[tuple[str, bool]]:
    """compare's pieces of a text as they were cut before (each pattern run over the whole text, each piece read)."""
    # durations and clock times written one way (rewording.times_as_one, audit5), then as before
    text = re.sub(r"(?<![\w#])#\d+\b", " ", times_as_one(text.replace('\\"', '"')))
    for pattern, expansion in (
        (re.compile(r"\bSSE\b"), "server-sent events"),
        (re.compile(r"\be2e\b", re.IGNORECASE), "end-to-end"),
        (re.compile(r"\bDB\b"), "database"),
        (re.compile(r"\bLB\b"), "load balancer"),
    ):
        text = pattern.sub(expansion, text)
    pieces: list[tuple[str, bool]] = []
    starts = True
    for raw_piece in re.split(r"[\s,;()\[\]{}<>\"`*|]+", text):
        if not raw_piece:
            continue
        for part in raw_piece.split("::") if "::" in raw_piece else [raw_piece]:
            core = part.strip(compare._EDGE)
            if re.fullmatch(r"[A-Za-z]+(?:-[A-Za-z]+)+", core) and core.lower() not in compare._NEGATORS:
                pieces.extend((p, starts and n == 0) for n, p in enumerate(core.split("-")))
            elif re.fullmatch(r"\d[\d,.]*-[A-Za-z]+", core):
                number, word = core.split("-", 1)
                pieces.extend([(number, starts), (word, False)])
            elif re.fullmatch(r"[A-Za-z]+(?:/[A-Za-z]+)+", core):
                pieces.extend((p, False) for p in core.split("/"))
            else:
                pieces.append((part, starts))
            starts = False
        starts = raw_piece.endswith((".", ":", "!", "?", ";"))
    return pieces


def _plain_tokens(text: str, keep_stop: bool = False) -> list[Token]:
    """compare.tokens as it was before its pieces' tokens were kept (every piece read each time)."""
    out: list[Token] = []
    for piece, first in _plain_pieces(text):
        if not piece:
            continue
        core = piece.strip(compare._EDGE).strip(".,:;!?'\"`*()")
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
        specific = (compare.is_specific(piece) and not (first and title_case)) or proper
        if lower in compare._NEGATORS or lower.endswith("n't"):
            out.append(Token("not", False, core))
            continue
        if not keep_stop and (lower in compare._STOP or (len(lower) < 3 and not re.search(r"\d", lower))):
            continue
        norm = compare._SYNONYMS.get(lower, lower)
        if re.fullmatch(r"[a-z][a-z'-]*", norm) and not re.search(r"[/_.:=@$\d]", norm) and not proper:
            norm = stem(norm.replace("'", ""))
        out.append(Token(norm, specific and lower not in compare._STOP, core))
    return out


def _session(file: Path) -> tuple[list[str], str | None]:
    session = read_session(file)
    texts = [text for e in session.active_path() if e.message is not None and (text := e.message.text())]
    return texts, session.cwd


def _assert_probes_match(seen: Passages, fact_toks: list[Token], positions: list[int]) -> int:
    """Every passage at `positions` (alone and merged) scored both ways; how many token-passage pairs were compared."""
    probes, total = seen.overlap_probes(fact_toks)
    shared = seen.shared_probes(fact_toks)
    compared = 0
    for position in positions:
        for passage in seen.merged(position):
            assert probed_overlap(probes, total, passage) == overlap(fact_toks, passage, seen.cwd)
            plain_shared = _shared(fact_toks, passage, seen.cwd)
            for enough in (1, 2, 3):
                assert probed_shared(shared, passage, enough) == (plain_shared >= enough)
            for tok in fact_toks:
                assert seen.probe(tok).match(passage) == _match_weight(tok, passage, seen.cwd), (tok, passage.text)
                compared += 1
    return compared


@pytest.mark.parametrize("file", SESSION_FILES, ids=lambda p: p.name)
def test_the_probes_score_as_the_plain_matching_on_every_session(file: Path) -> None:
    texts, cwd = _session(file)
    seen = passages(texts, cwd)
    facts = [s for text in texts for s in sentences(text) if s][:FACTS]
    for n, fact in enumerate(facts):
        fact_toks = tokens(fact)
        # its candidates (what the audit scores) and a few passages from the middle of the session
        positions = [*seen.candidates(t.norm for t in fact_toks), *range(len(seen.items) // 2, len(seen.items))[:3]]
        _assert_probes_match(seen, fact_toks, positions)
        if n % 4 == 0:  # its words as specific ones (`_as_said` makes a quoted word specific)
            _assert_probes_match(seen, [Token(t.norm, True, t.raw) for t in fact_toks], positions)


@pytest.mark.parametrize("file", SESSION_FILES, ids=lambda p: p.name)
def test_the_tokens_are_the_plain_tokenizer_s_on_every_session(file: Path) -> None:
    texts, size = [], 0
    for text in _session(file)[0]:
        if size > TEXT_CHARS:
            break
        texts.append(text)
        size += len(text)
    for text in [*texts, *(s for t in texts for s in sentences(t))]:
        for keep_stop in (False, True):
            assert tokens(text, keep_stop) == _plain_tokens(text, keep_stop)


def test_the_tokens_of_the_rare_forms_are_the_plain_tokenizer_s() -> None:
    for text in [
        'Use SSE and the DB behind the LB; run E2E tests, see #12 and issue#3 (\\"quoted\\").',
        "the 3-day window, requests/minute, a::b::c, --flag, @src/a.py, don't, Foo's parse() API.",
        "First. Second: Third! fourth? fifth; sixth -- seventh. Redis-based partial-refund non-blocking",
    ]:
        for keep_stop in (False, True):
            assert tokens(text, keep_stop) == _plain_tokens(text, keep_stop)
            assert tokens(text, keep_stop) == tokens(text, keep_stop)  # kept pieces give the same again


def test_the_rare_forms_are_scored_as_the_plain_matching() -> None:
    """The forms the sessions may lack: each scored both ways, and each found (the probe is not just 0 everywhere)."""
    cwd = "/home/dev/proj"
    visible = [
        "The retry waits three seconds and keeps 500 rows of 2 MB each.",
        "Edit /home/dev/proj/src/app/main.py and lib/util/helpers.py today.",
        "The helpers.py file and the config.yaml are in another folder.",
        "The URLs and the GPU are listed; the caching layer is warm.",
        "Listener counts: 3 listeners, twelve workers, 45 minutes, port 8080.",
        "A 10ms timeout and 2k rows.",
    ]
    seen = passages(visible, cwd)
    found: set[float] = set()
    facts = [
        "Wait 3 seconds before the retry.",
        "It keeps five hundred rows, 2 mb, three workers, 12 workers and twelve jobs.",
        "Edit src/app/main.py and util/helpers.py and other/helpers.py and config.yaml.",
        "List the URL and the GPUs; cache the listener; 45 min.",
        "Open /home/dev/proj/lib/util/helpers.py, app/main.py, helpers.py and port 8080 of seconds.",
        "Ten ms, 2000 rows and 10 of them.",
    ]
    for fact in facts:
        fact_toks = tokens(fact)
        for toks in (fact_toks, [Token(t.norm, True, t.raw) for t in fact_toks]):
            _assert_probes_match(seen, toks, list(range(len(seen.items))))
            found.update(seen.probe(t).match(p) for t in toks for i in range(len(seen.items)) for p in seen.merged(i))
    assert found == {0.0, 0.5, 1.0}
