"""Whether two versions of the offline summarizer write the same bytes: every session file, several cuts, every shape.

    python bench/summary_parity.py --root DIR --out FILE [--generated]   # one version's summaries
    python bench/summary_parity.py --compare FILE FILE                   # how many are equal

`--root` is a checkout whose `cutline` package is imported (e.g. `git worktree add /tmp/m main`
or a `git archive main | tar -x -C /tmp/m`); the summaries are written one JSON line per case
(its name and the summary's text). The cases: every .jsonl of sample_sessions/, tests/fixtures/
(corpus and truth sets included) and bench/truth's sessions; with `--generated`, also the bench's
generated uncompacted 20k and 8k pi sessions and a seeded set of hand-made user turns with the
text that trips a word splitter (non-ASCII capitals, fences, list marks, tags, pasted lines).
Each session's active path is cut at several places (spans from the start and windows from
the middle) and summarized under every prompt shape: pi's checkpoint and turn prefixes, Claude
Code, Codex, OpenClaw's safeguard sections and Qwen Code, as a history, an update on the previous
cut's summary, a turn prefix and a merge, with and without focus instructions.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PROMPTS = (
    "pi-checkpoint",
    "pi-update",
    "pi-turn-prefix",
    "pi-current-turn-prefix",
    "claude-code",
    "codex",
    "openclaw-safeguard",
    "qwen-code",
)
FRACTIONS = (0.1, 0.25, 0.4, 0.5, 0.66, 0.8, 0.9, 1.0)


def _files() -> list[Path]:
    found: list[Path] = []
    for folder in ("sample_sessions", "tests/fixtures", "bench/truth"):
        found.extend(sorted((ROOT / folder).rglob("*.jsonl")))
    return found


_TRICKY = [
    "Make sure the İstanbul config is used, never the KELVIN one (K).",
    "ΣΊΣΥΦΟΣ must not be renamed. Actually, use ΣΟΦΙΑ instead.",
    "```\nconst x = 1;\n```\nDon't touch `x`. 1. Always run tests. 2) Never push.",
    "- keep it short\n- do not add deps\n# Heading here\n> quoted: must stay",
    "Fix it.Then run it! Is it done? 'Quoted' start. (Paren) start. [bracket] start. *star* start. _under_ start.",
    "<system-reminder>must ignore this</system-reminder>Please update the parser; we'll use msgspec rather than json.",
    "  at foo (bar.js:1:2)\nTraceback (most recent call last)\nPlease never log secrets to stdout again.",
    "café → done. Naïve approach: avoid it. ǅemal's rule: don't use ǆ. ﬁle ﬂag must be kept.",
    "I'd rather you didn't. No more than 3 retries! At least 2 workers... Up to 5 minutes.",
    "decided: go with sqlite\ttabs\there. TODO later: remember to clean up.",
    "From now on, always use tabs.\r\nScratch that: never use tabs.\r\nok",
    "12.5 percent must be kept. 3. Third item must stay. #7 issue should be fixed.",
    "Don’t use curly quotes – ever. It’s a rule: never “smart” quotes.",
    "ok",
    "/model gpt",
    "continue",
    "x" * 50 + ". Must " + "y" * 30 + " always.",
    "Ⅻ Roman numerals must stay. ＡＢＣ fullwidth must stay. ẞ capital sharp s must stay.",
    "Use the 'single quoted' path 'src/a.py'. Don't use \"double\" ones.",
    "\u2028line sep must split?\u2029para sep must split\x0bvtab must\x0cform feed must\x1cfs must\x85nel must",
]


def _tricky_messages(module: Any, seed: int) -> list[Any]:
    models = module
    rng = random.Random(seed)
    messages: list[Any] = []
    for turn in range(120):
        parts = rng.sample(_TRICKY, rng.randint(1, 4))
        joiner = rng.choice(["\n", " ", "\n\n", ". "])
        messages.append(models.Message(role="user", content=[models.TextBlock(text=joiner.join(parts))]))
        said = rng.choice(_TRICKY)
        messages.append(
            models.Message(
                role="assistant",
                content=[
                    models.TextBlock(text=f"I decided to fix it. {said} Next I'll run the tests. TODO: {said}"),
                    models.ToolCallBlock(id=f"c{turn}", name="bash", arguments={"command": "pytest -q"}),
                ],
            )
        )
        messages.append(
            models.Message(
                role="toolResult",
                toolCallId=f"c{turn}",
                toolName="bash",
                isError=turn % 3 == 0,
                content=[models.TextBlock(text="E   AssertionError: boom" if turn % 3 == 0 else "ok")],
            )
        )
    return messages


def _spans(count: int) -> Iterator[tuple[str, int, int]]:
    for fraction in FRACTIONS:
        end = max(1, round(count * fraction))
        yield f"0-{fraction}", 0, end
    for start, end in ((0.3, 0.7), (0.5, 0.95), (0.75, 1.0)):
        yield f"{start}-{end}", round(count * start), max(round(count * start) + 1, round(count * end))


def _summaries(name: str, messages: list[Any], request_cls: Any, summarize: Any) -> Iterator[tuple[str, str]]:
    previous: str | None = None
    for label, start, end in _spans(len(messages)):
        span = messages[start:end]
        for prompt in PROMPTS:
            base = f"{name}|{label}|{prompt}"
            text = summarize(request_cls(messages=span, prompt_name=prompt))
            yield base + "|history", text
            yield base + "|turn_prefix", summarize(request_cls(messages=span, prompt_name=prompt, kind="turn_prefix"))
            if previous is not None:
                yield (
                    base + "|update",
                    summarize(request_cls(messages=span, prompt_name=prompt, kind="update", previous_summary=previous)),
                )
                yield (
                    base + "|merge",
                    summarize(
                        request_cls(
                            messages=span,
                            prompt_name=prompt,
                            kind="merge",
                            previous_summary=previous,
                            partial_summaries=[text, previous],
                        )
                    ),
                )
            if prompt == "pi-checkpoint":
                yield (
                    base + "|focus-small",
                    summarize(
                        request_cls(
                            messages=span, prompt_name=prompt, custom_instructions="Keep the  tests", max_tokens=300
                        )
                    ),
                )
                previous = text


def _write(root: Path, out: Path, generated: bool) -> int:
    sys.path.insert(0, str(root))
    sys.path.insert(1, str(ROOT / "bench"))
    from cutline.core import models
    from cutline.core.agents import read_session
    from cutline.core.summarizers.base import SummaryRequest
    from cutline.core.summarizers.extractive import summarize_extractive

    assert Path(models.__file__).resolve().is_relative_to(root.resolve()), models.__file__
    sources: list[tuple[str, list[Any]]] = []
    for path in _files():
        try:
            session = read_session(path)
            messages = [e.message for e in session.active_path() if e.message is not None]
        except Exception as error:  # a file no reader takes is reported, not compared
            print(f"skipped {path.relative_to(ROOT)}: {error}", file=sys.stderr)
            continue
        if messages:
            sources.append((str(path.relative_to(ROOT)), messages))
    if generated:
        from gen_large_session import generate

        with tempfile.TemporaryDirectory() as folder:
            for entries in (20_000, 8_000):
                path = Path(folder) / f"gen-{entries}.jsonl"
                generate(path, entries, 7 + entries, compactions=False)
                session = read_session(path)
                sources.append((path.name, [e.message for e in session.active_path() if e.message is not None]))
        for seed in range(4):
            sources.append((f"tricky-{seed}", _tricky_messages(models, seed)))
    count = 0
    with open(out, "w", encoding="utf-8") as handle:
        for name, messages in sources:
            for case, text in _summaries(name, messages, SummaryRequest, summarize_extractive):
                handle.write(json.dumps({"case": case, "text": text}, ensure_ascii=False) + "\n")
                count += 1
    print(f"{count} summaries of {len(sources)} sources written to {out}")
    return 0


def _compare(first: Path, second: Path) -> int:
    def load(path: Path) -> dict[str, str]:
        with open(path, encoding="utf-8") as handle:
            return {row["case"]: row["text"] for row in map(json.loads, handle)}

    one, two = load(first), load(second)
    equal = sum(1 for case, text in one.items() if two.get(case) == text)
    differ = [case for case in one if case in two and one[case] != two[case]]
    missing = set(one) ^ set(two)
    print(f"{equal} of {len(one)} summaries equal; {len(differ)} differ; {len(missing)} cases in one file only")
    for case in differ[:10]:
        print("differs:", case)
    return 0 if not differ and not missing else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--generated", action="store_true")
    parser.add_argument("--compare", nargs=2, type=Path)
    args = parser.parse_args()
    if args.compare:
        return _compare(*args.compare)
    if args.out is None:
        parser.error("--out is required")
    return _write(args.root, args.out, args.generated)


if __name__ == "__main__":
    sys.exit(main())
