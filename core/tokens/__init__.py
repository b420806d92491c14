"""Token counters (chars4, tiktoken, calibrated, anthropic) behind one interface, calibration, and per-session reports.

Counting is pure: the store keeps the per-entry cache (`cutline.core.store.token_counts`).

`chars4` is pi's `estimateTokens` to the unit: JavaScript measures strings in UTF-16
code units and serializes tool arguments with `JSON.stringify`, so both are
reproduced here rather than Python's `len` and `json.dumps` defaults.
"""

from __future__ import annotations

import base64
import functools
import gc
import hashlib
import math
import os
import statistics
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import accumulate
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from pydantic import BaseModel, ConfigDict, Field

from cutline.core.agents.context import (
    compaction_system_message,
    context_weight,
    entry_message,
    usage_entry_prompt_tokens,
)
from cutline.core.agents.index_facts import WEIGHT
from cutline.core.agents.light import LightMessage
from cutline.core.choices import COUNTERS
from cutline.core.config.settings import DEFAULT_MODEL
from cutline.core.errors import CutlineError, redacted
from cutline.core.models import (
    Entry,
    ImageBlock,
    Message,
    Session,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from cutline.core.tokens.jsjson import js_length, js_stringify, js_stringify_length

COUNTER_NAMES = COUNTERS  # listed once, in core.choices

# pi counts an image inside a tool result or custom message as 4800 characters (1200 tokens).
IMAGE_CHARS = 4800
IMAGE_TOKENS = IMAGE_CHARS // 4

_DATA = Path(__file__).resolve().parent / "data"
CL100K_FILE = _DATA / "cl100k_base.tiktoken"
ANTHROPIC_TIMEOUT_SECONDS = 20.0
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"

# ---------------------------------------------------------------------------
# What each counter measures
# ---------------------------------------------------------------------------


def _tool_result_chars(block: ToolResultBlock) -> int:
    chars = 0
    for inner in block.content:
        if isinstance(inner, TextBlock):
            chars += js_length(inner.text)
        elif isinstance(inner, ImageBlock):
            chars += IMAGE_CHARS
    return chars


def _system_chars(message: Message) -> int:
    """pi 0.87's estimate of a system message: content (images 4800), each section, and the tools it adds as JSON."""
    chars = 0
    for block in message.content:
        if isinstance(block, TextBlock):
            chars += js_length(block.text)
        elif isinstance(block, ImageBlock):
            chars += IMAGE_CHARS
    chars += sum(js_length(text) for text in message.system_sections().values())
    tools = (message.model_extra or {}).get("toolsAdded")
    if tools is not None:
        chars += js_length(js_stringify(tools))
    return chars


def chars4_tokens(message: Message | LightMessage) -> int:
    """pi's `estimateTokens`: ceil(chars / 4) over what each role contributes.

    Tool results carried inside other messages (Claude Code's user records) count
    like a pi toolResult; pi sessions never contain them, so parity is unaffected.
    System messages (Codex, Claude Code) count their text like user messages; pi's also
    their sections and the tools they add.
    """
    role = message.role
    if role == "bashExecution":
        chars = js_length(message.command or "") + js_length(message.output or "")
        return -(-chars // 4)
    if role in {"branchSummary", "compactionSummary"}:
        return -(-js_length(message.summary or "") // 4)
    if role == "system" and isinstance(message, Message):  # (a light message is never a system message)
        return -(-_system_chars(message) // 4)
    assistant = role == "assistant"
    images = role in {"custom", "toolResult"}
    chars = 0
    for block in message.content:
        if block.type == "text":
            text = block.text
            chars += len(text) if text.isascii() else js_length(text)
        elif block.type == "toolCall":
            if assistant:
                chars += js_length(block.name) + js_stringify_length(block.arguments)
        elif block.type == "thinking":
            if assistant:
                chars += js_length(block.thinking)
        elif block.type == "image":
            if images:
                chars += IMAGE_CHARS
        elif block.type == "toolResult":
            chars += _tool_result_chars(block)
    return -(-chars // 4)


def _system_parts(message: Message) -> list[str]:
    """What a pi system message adds to its text: its sections and the tools it declares (as JSON)."""
    parts = list(message.system_sections().values())
    if message.system_tools():
        parts.append(js_stringify(message.system_tools()))
    return parts


def counted_text(message: Message) -> tuple[str, int]:
    """The text chars4 measures for a message, and how many images it counts (for other tokenizers)."""
    parts: list[str] = []
    images = 0
    role = message.role

    def result_block(block: ToolResultBlock) -> None:
        nonlocal images
        for inner in block.content:
            if isinstance(inner, TextBlock):
                parts.append(inner.text)
            elif isinstance(inner, ImageBlock):
                images += 1

    for block in message.content:
        if isinstance(block, TextBlock):
            if role in ("user", "system", "assistant", "custom", "toolResult"):
                parts.append(block.text)
        elif isinstance(block, ThinkingBlock) and role == "assistant":
            parts.append(block.thinking)
        elif isinstance(block, ToolCallBlock) and role == "assistant":
            parts.append(block.name)
            parts.append(js_stringify(block.arguments))
        elif isinstance(block, ImageBlock) and role in ("custom", "toolResult"):
            images += 1
        elif isinstance(block, ToolResultBlock):
            result_block(block)
    if role == "system":
        parts.extend(_system_parts(message))
    elif role == "bashExecution":
        parts.append(message.command or "")
        parts.append(message.output or "")
    elif role in ("branchSummary", "compactionSummary"):
        parts.append(message.summary or "")
    return "\n".join(p for p in parts if p), images


class TokenCounter(Protocol):
    """Anything that turns a message into a token count, with a label for display."""

    name: str

    def count(self, message: Message) -> int: ...


class Chars4Counter:
    """pi's own estimate (ceil of characters / 4)."""

    name = "chars4"

    def count(self, message: Message) -> int:
        return chars4_tokens(message)


def _bundled_ranks(path: Path, sha256: str) -> dict[bytes, int]:
    """The BPE ranks of a bundled `.tiktoken` file (base64 token, space, rank per line), its hash checked.

    Why not tiktoken's `load_tiktoken_bpe`: it copies every file it reads into a cache
    under the system's temp directory; cutline writes nowhere but `$CUTLINE_HOME`.
    """
    try:
        data = path.read_bytes()
    except OSError:
        raise CutlineError(f"tiktoken vocabulary missing: {path}") from None
    if hashlib.sha256(data).hexdigest() != sha256:
        raise CutlineError(f"tiktoken vocabulary damaged (hash mismatch): {path}")
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


@functools.cache
def cl100k_encoding() -> Any:
    """The cl100k_base encoding, built once from the file bundled in core/tokens/data (never downloaded)."""
    import tiktoken

    ranks = _bundled_ranks(CL100K_FILE, CL100K_SHA256)
    return tiktoken.Encoding(
        name="cl100k_base",
        pat_str=(
            r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
            r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
        ),
        mergeable_ranks=ranks,
        special_tokens={
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    )


class TiktokenCounter:
    """OpenAI's cl100k_base BPE over the same text chars4 measures; an image counts 1200 tokens as in pi."""

    name = "tiktoken"

    def __init__(self) -> None:
        self._encoding = cl100k_encoding()

    def count(self, message: Message) -> int:
        text, images = counted_text(message)
        tokens = len(self._encoding.encode(text, disallowed_special=())) if text else 0
        return tokens + images * IMAGE_TOKENS


class AnthropicCounter:
    """Anthropic's count-tokens endpoint through the official SDK (needs ANTHROPIC_API_KEY; honours ANTHROPIC_BASE_URL).

    Each message is sent as one user message holding the text chars4 measures, and the
    count of an empty request is subtracted, so a figure is that message's own weight.
    """

    name = "anthropic"

    def __init__(self, model: str = DEFAULT_MODEL, client: Any = None) -> None:
        if client is None:
            key = os.environ.get("ANTHROPIC_API_KEY")
            if not key:
                raise CutlineError("the anthropic counter needs ANTHROPIC_API_KEY to be set")
            import anthropic

            # one retry and a bounded wait: an unreachable API must not hold `cutline tokens` for minutes
            kwargs: dict[str, Any] = {"api_key": key, "max_retries": 1, "timeout": ANTHROPIC_TIMEOUT_SECONDS}
            base_url = os.environ.get("ANTHROPIC_BASE_URL")
            if base_url:
                kwargs["base_url"] = base_url
            client = anthropic.Anthropic(**kwargs)
        self._client = client
        self._model = model
        self._baseline: int | None = None

    def _count_text(self, text: str) -> int:
        try:
            result = self._client.messages.count_tokens(
                model=self._model, messages=[{"role": "user", "content": text or "."}]
            )
        except CutlineError:
            raise
        except Exception as exc:
            # the server may echo the key in its error text
            secret = getattr(self._client, "api_key", None)
            detail = redacted(
                str(exc), secret if isinstance(secret, str) else None, os.environ.get("ANTHROPIC_API_KEY")
            )
            raise CutlineError(f"anthropic count_tokens failed: {type(exc).__name__}: {detail}") from None
        return int(getattr(result, "input_tokens", 0))

    def count(self, message: Message) -> int:
        text, images = counted_text(message)
        if not text and not images:
            return 0
        if self._baseline is None:
            self._baseline = self._count_text(".")
        own = max(0, self._count_text(text) - self._baseline) if text else 0
        return own + images * IMAGE_TOKENS


class CalibratedCounter:
    """chars4 scaled by a ratio fitted on a session's usage records (rounded up per message)."""

    name = "calibrated"

    def __init__(self, ratio: float) -> None:
        self.ratio = ratio

    def count(self, message: Message) -> int:
        return self.scale(chars4_tokens(message))

    def scale(self, chars4: int) -> int:
        return math.ceil(chars4 * self.ratio - 1e-9) if chars4 else 0


def get_counter(name: str, **kwargs: Any) -> TokenCounter:
    """A counter by its label; `calibrated` needs `ratio=` (see `fit_calibration`)."""
    if name == "chars4":
        return Chars4Counter()
    if name == "tiktoken":
        return TiktokenCounter()
    if name == "anthropic":
        return AnthropicCounter(**kwargs)
    if name == "calibrated":
        if "ratio" not in kwargs:
            raise CutlineError("the calibrated counter is fitted per session: use calibrate(session) first")
        return CalibratedCounter(kwargs["ratio"])
    raise CutlineError(f"unknown token counter {name!r} (choose from {', '.join(COUNTER_NAMES)})")


# ---------------------------------------------------------------------------
# Per entry
# ---------------------------------------------------------------------------


def entry_tokens(entry: Entry, counter: TokenCounter) -> int:
    """Tokens of the message an entry puts in context (a compaction counts its summary and its `systemMessage`), 0 for the rest."""
    if entry.type == "message":
        message = entry.message
    else:
        message = entry_message(entry)
    tokens = counter.count(message) if message is not None else 0
    system = compaction_system_message(entry) if entry.type == "compaction" else None
    return tokens + counter.count(system) if system is not None else tokens


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while making many small objects next to a large session.

    With 100k entries alive, each automatic full collection walks all of them: counting
    and caching a big session spends more time in the collector than in its own work.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def path_tokens(path: list[Entry], counter: TokenCounter | str = "chars4") -> list[int]:
    """Per-entry tokens for a path, in path order (pure; no store)."""
    if isinstance(counter, str):
        counter = get_counter(counter)
    with gc_paused():
        return [entry_tokens(e, counter) for e in path]


def count_session(session: Session, counter: TokenCounter | str = "chars4") -> dict[str, int]:
    """Per-entry tokens for every entry of a session, counted afresh (pure; the store keeps a cache of these)."""
    name = counter if isinstance(counter, str) else counter.name
    if name == "calibrated":
        return calibrated_counts(session, count_session(session, "chars4"))
    resolved = get_counter(counter) if isinstance(counter, str) else counter
    with gc_paused():
        return {e.id: entry_tokens(e, resolved) for e in session.entries}


def calibrated_counts(session: Session, chars4: dict[str, int]) -> dict[str, int]:
    """`calibrated` counts: chars4 counts scaled by the ratio fitted on the session now.

    Why they are never cached: the ratio changes as the session grows.
    """
    scaler = CalibratedCounter(calibrate(session, chars4).ratio)
    return {k: scaler.scale(v) for k, v in chars4.items()}


# ---------------------------------------------------------------------------
# Calibration against usage records
# ---------------------------------------------------------------------------


class UsageSample(BaseModel):
    """One assistant response: what the API counted before it next to what a counter estimated."""

    model_config = ConfigDict(defer_build=True)

    pathIndex: int
    entryId: str
    real: int
    estimate: int


class Calibration(BaseModel):
    """A per-session model of what the API counts: real ≈ overhead + ratio × chars4 of the context.

    Two fits are tried and the one with the smaller median error is kept:
    - `median-ratio`: overhead 0, ratio = median of real/estimate (robust to a few odd turns);
    - `affine`: least squares with an intercept, refitted once without the samples whose
      residual exceeds 3× the median residual. The intercept is the system prompt and
      tool schemas the API counts but the transcript does not hold (10-15k tokens for
      Claude Code and Codex, none in pi's figures), which a ratio alone cannot express.
    Per-entry calibrated counts scale by `ratio`; a whole context adds `overhead` once.
    """

    model_config = ConfigDict(defer_build=True)

    method: str = "none"
    ratio: float = 1.0
    overhead: float = 0.0
    samples: list[UsageSample] = Field(default_factory=list)
    medianError: float | None = None
    p90Error: float | None = None

    @property
    def fitted(self) -> bool:
        return self.method != "none"

    def predict(self, estimate: float) -> float:
        """The calibrated size of a context whose chars4 sum is `estimate`."""
        return self.overhead + self.ratio * estimate


def relative_errors(pairs: Iterable[tuple[int, float]]) -> list[float]:
    """|estimate - real| / real for each (real, estimate) pair with real > 0."""
    return [abs(est - real) / real for real, est in pairs if real > 0]


def error_summary(errors: list[float]) -> tuple[float | None, float | None]:
    """Median and 90th percentile (nearest rank) of relative errors."""
    if not errors:
        return None, None
    ordered = sorted(errors)
    p90 = ordered[min(len(ordered) - 1, math.ceil(0.9 * len(ordered)) - 1)]
    return statistics.median(ordered), p90


class ModelCall(NamedTuple):
    """A recorded model call on a path: where it is, what the API counted, and the compaction its context starts from."""

    path_index: int
    entry_id: str
    real: int
    last_compaction: int  # path index of the latest compaction before it, -1 when none
    kept_from: int  # path index of that compaction's first kept entry, -1 when none


def model_calls(path: list[Entry]) -> list[ModelCall]:
    """Every recorded model call on a path (an assistant message's usage, a pi `usage` entry), in path order.

    Why apart from `usage_samples`: it depends on the path alone, so a report scoring
    several counters walks the entries once instead of once per counter.
    """
    calls: list[ModelCall] = []
    last_compaction = -1
    kept_from = -1
    ids: dict[str, int] = {}
    for i, entry in enumerate(path):
        if entry.type == "compaction":
            last_compaction = i
            first_kept = entry.compaction.firstKeptEntryId if entry.compaction else None
            kept_from = ids.get(first_kept, -1) if first_kept else -1
        ids.setdefault(entry.id, i)
        real = _recorded_prompt_tokens(entry)
        if real > 0:
            calls.append(ModelCall(i, entry.id, real, last_compaction, kept_from))
    return calls


def usage_samples(
    path: list[Entry],
    tokens: list[int],
    weights: list[bool] | None = None,
    calls: list[ModelCall] | None = None,
) -> list[UsageSample]:
    """For each recorded model call (an assistant message's usage, a pi `usage` entry), the API's prompt tokens and the counter's sum over the context before it.

    The context before a message is rebuilt as pi does after compactions: the latest
    compaction's summary, its kept entries, then everything after it. `weights` is
    `context_weight(path)` and `calls` is `model_calls(path)` when the caller has them
    (both depend on the path alone).
    """
    weights = weights if weights is not None else context_weight(path)
    calls = calls if calls is not None else model_calls(path)
    return _samples(calls, call_estimates(weights, tokens, calls))


def call_estimates(weights: Sequence[bool | int], tokens: list[int], calls: list[ModelCall]) -> list[int]:
    """A counter's estimate of the context before each model call (see `usage_samples`), from the path's weights and counts."""
    prefix = [0, *accumulate([t if w else 0 for t, w in zip(tokens, weights)])]
    estimates: list[int] = []
    for call in calls:
        i, last_compaction = call.path_index, call.last_compaction
        if last_compaction < 0:
            estimate = prefix[i]
        else:
            estimate = tokens[last_compaction] + prefix[i] - prefix[last_compaction + 1]
            if call.kept_from >= 0:
                estimate += prefix[last_compaction] - prefix[call.kept_from]
        estimates.append(estimate)
    return estimates


def _samples(calls: list[ModelCall], estimates: list[int]) -> list[UsageSample]:
    # built without validation: ints and ids that are strings already
    construct = UsageSample.model_construct
    return [
        construct(pathIndex=call.path_index, entryId=call.entry_id, real=call.real, estimate=estimate)
        for call, estimate in zip(calls, estimates)
    ]


class StoredCalls(NamedTuple):
    """What usage samples need of a stored path's index facts (core.agents.index_facts), apart from its ids, types and counts.

    Why its own shape: the desk lets the parsed facts of a long path go once loaded and
    keeps only these three.
    """

    weights: bytes  # `context_weight` of the path: the stored `WEIGHT` where no pi context_edit omits an entry
    prompts: dict[int, int]  # path index -> the prompt tokens a recorded model call counted (`p` > 0)
    kept: dict[int, str]  # path index of a compaction -> its first kept entry's id (`k`)


def stored_calls(facts: Sequence[Mapping[str, Any]]) -> StoredCalls:
    """`StoredCalls` of a path from its parsed index facts."""
    return StoredCalls(
        bytes(1 if fact["f"] & WEIGHT else 0 for fact in facts),
        {i: fact["p"] for i, fact in enumerate(facts) if fact.get("p", 0) > 0},
        {i: fact["k"] for i, fact in enumerate(facts) if "k" in fact},
    )


def kept_places(ids: list[str], kept: Mapping[int, str]) -> dict[int, int]:
    """For each compaction naming a first kept entry (by its place), that id's first place on the path (-1: none has it).

    Why once per path: the usage samples and every counter's context sums look them up,
    and a dict of 100,000 ids costs ~10 ms each time.
    """
    if not kept:
        return {}
    first = dict(zip(reversed(ids), range(len(ids) - 1, -1, -1)))  # from the end: the first place is the one left
    return {c: first.get(entry_id, -1) for c, entry_id in kept.items()}


def places_of(values: list[Any], wanted: object) -> list[int]:
    """`[i for i, value in enumerate(values) if value == wanted]`, the same places, found by `list.index` (a scan in C).

    Why: a path's compactions (or its user rows) among 50,000 types were ~5 ms a time in Python's loop, and a
    timeline looks them up once per counter.
    """
    found: list[int] = []
    at = -1
    index = values.index
    try:
        while True:
            at = index(wanted, at + 1)
            found.append(at)
    except ValueError:
        return found


def stored_model_calls(
    ids: list[str], kinds: list[str], calls: StoredCalls, places: Mapping[int, int] | None = None
) -> list[ModelCall]:
    """`model_calls` of a stored path, from its ids, types and index facts instead of its entries.

    The same calls: `p` is what `model_calls` reads as a call's prompt tokens and `k` a
    compaction's first kept entry (found at its first place before the compaction).
    `places` is `kept_places(ids, calls.kept)` when the caller has it.
    """
    places = places if places is not None else kept_places(ids, calls.kept)
    compactions = places_of(kinds, "compaction")
    kept_from = [at if (at := places.get(c, -1)) < c else -1 for c in compactions]
    made: list[ModelCall] = []
    for i in sorted(calls.prompts):
        k = bisect_right(compactions, i) - 1
        made.append(
            ModelCall(i, ids[i], calls.prompts[i], compactions[k] if k >= 0 else -1, kept_from[k] if k >= 0 else -1)
        )
    return made


def stored_usage_samples(ids: list[str], kinds: list[str], calls: StoredCalls, tokens: list[int]) -> list[UsageSample]:
    """`usage_samples` of a stored path, from its ids, types and index facts instead of its entries.

    The same samples (`stored_model_calls`) where `calls.weights` is `context_weight` of
    the path: `stored_calls` of a path without a pi context_edit (the audit's window and
    the desk's stored path have none), or `PathColumns.weights`, which adds what edits omit.
    """
    made = stored_model_calls(ids, kinds, calls)
    return _samples(made, call_estimates(calls.weights, tokens, made))


def stored_sample_rows(
    ids: list[str], kinds: list[str], calls: StoredCalls, tokens: list[int]
) -> list[tuple[int, int, str]]:
    """`stored_usage_samples` as (estimate, real, entry id), in the same order, without making a model of each.

    Why: the audit reads only these three of every sample, and a 100,000-entry path has
    ~45,000 (as models, ~15 % of a compacted path's audit).
    """
    made = stored_model_calls(ids, kinds, calls)
    return [
        (estimate, call.real, call.entry_id)
        for call, estimate in zip(made, call_estimates(calls.weights, tokens, made))
    ]


def _recorded_prompt_tokens(entry: Entry) -> int:
    """What the API counted as sent for the call an entry records: an assistant message's usage, or a pi `usage` entry's."""
    if entry.type == "usage":
        return usage_entry_prompt_tokens(entry)
    message = entry.message
    if entry.type != "message" or message is None or message.role != "assistant" or message.usage is None:
        return 0
    if message.stopReason in ("aborted", "error"):
        return 0
    return message.usage.prompt_tokens


def least_squares(points: list[tuple[float, float]]) -> tuple[float, float] | None:
    """Slope and intercept of y against x; None with fewer than three points or x that does not vary."""
    n = len(points)
    if n < 3:
        return None
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    sxx = sum((x - mean_x) ** 2 for x, _ in points)
    if sxx <= 0:
        return None
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / sxx
    return slope, mean_y - slope * mean_x


def _affine_fit(usable: list[tuple[int, int]]) -> tuple[float, float] | None:
    points = [(float(estimate), float(real)) for real, estimate in usable]
    fit = least_squares(points)
    if fit is None:
        return None
    slope, intercept = fit
    residuals = [abs(y - (intercept + slope * x)) for x, y in points]
    limit = 3 * statistics.median(residuals)
    if limit > 0:
        kept = [p for p, r in zip(points, residuals, strict=True) if r <= limit]
        fit = least_squares(kept) or fit
        slope, intercept = fit
    if slope <= 0 or intercept < 0:
        return None
    return slope, intercept


class _Fit(NamedTuple):
    method: str
    ratio: float
    overhead: float
    medianError: float | None
    p90Error: float | None


def _fit(pairs: list[tuple[int, int]]) -> _Fit | None:
    """`fit_calibration` of (real, estimate) pairs, without the samples; None when no estimate is above 0."""
    usable = [(real, estimate) for real, estimate in pairs if estimate > 0]
    if not usable:
        return None
    candidates: list[tuple[str, float, float]] = [
        ("median-ratio", statistics.median(real / estimate for real, estimate in usable), 0.0)
    ]
    affine = _affine_fit(usable)
    if affine is not None:
        candidates.append(("affine", affine[0], affine[1]))
    fits: list[_Fit] = []
    for method, ratio, overhead in candidates:
        errors = relative_errors((real, overhead + ratio * estimate) for real, estimate in usable)
        fits.append(_Fit(method, ratio, overhead, *error_summary(errors)))
    return min(
        fits, key=lambda f: (f.medianError if f.medianError is not None else math.inf, f.method != "median-ratio")
    )


# what `Calibration` says when nothing could be fitted (its defaults)
_UNFITTED = _Fit(*(Calibration.model_fields[name].default for name in _Fit._fields))


def fit_calibration(samples: list[UsageSample]) -> Calibration:
    """Fit real ≈ overhead + ratio × estimate (see Calibration) and report the relative error of the fit."""
    fit = _fit([(s.real, s.estimate) for s in samples]) or _UNFITTED
    return Calibration(samples=samples, **fit._asdict())


def _calls_fit(calls: list[ModelCall], chars4_estimates: list[int]) -> _Fit:
    """What `fit_calibration` fits on these calls' chars4 estimates (see `call_estimates`), without making the samples."""
    return _fit([(call.real, estimate) for call, estimate in zip(calls, chars4_estimates)]) or _UNFITTED


def calibrated_ratio(calls: list[ModelCall], chars4_estimates: list[int]) -> float:
    """The ratio `fit_calibration` fits on these calls' chars4 estimates (see `call_estimates`), without making the samples."""
    return _calls_fit(calls, chars4_estimates).ratio


def calibrate(session: Session, chars4: dict[str, int] | None = None) -> Calibration:
    """Fit the calibrated counter on a session's active path."""
    path = session.active_path()
    if chars4 is None:
        tokens = path_tokens(path, "chars4")
    else:
        tokens = [chars4.get(e.id, 0) for e in path]
    return fit_calibration(usage_samples(path, tokens))


# ---------------------------------------------------------------------------
# A session's figures under every counter
# ---------------------------------------------------------------------------


class CounterError(BaseModel):
    """How far a counter's context estimates were from what the API counted."""

    model_config = ConfigDict(defer_build=True)

    counter: str
    samples: int
    medianError: float | None
    p90Error: float | None


class TokenReport(BaseModel):
    """Per-entry counts under each counter, real context sizes per assistant turn, and each counter's error.

    `calibrated` is fitted on the same turns it is scored on, so its error is an
    in-sample figure: how well one ratio explains the session, not a forecast.
    """

    model_config = ConfigDict(defer_build=True)

    sessionId: str
    counters: list[str]
    calibration: Calibration
    entries: list[dict[str, Any]]
    turns: list[dict[str, Any]]
    errors: list[CounterError]
    unavailable: dict[str, str] = Field(
        default_factory=dict, description="counters that could not count (the API unreachable), with why"
    )


def report_counters(counters: Iterable[str] | None = None) -> list[str]:
    """The counters a token report uses: those named, else chars4, tiktoken, calibrated (and anthropic when a key is set)."""
    names = list(counters) if counters is not None else ["chars4", "tiktoken", "calibrated"]
    if counters is None and os.environ.get("ANTHROPIC_API_KEY"):
        names.append("anthropic")
    return names


def token_report(
    session: Session,
    counters: Iterable[str] | None = None,
    count: Callable[[str], Mapping[str, int]] | None = None,
) -> TokenReport:
    """Count a session's active path under each counter and score each against the usage records.

    `count` gives a counter's per-entry counts by its name (the store's cache passes its
    own); without it every entry is counted afresh.
    """

    def fresh(name: str) -> Mapping[str, int]:
        return count_session(session, name)

    counts_of = count if count is not None else fresh

    names = report_counters(counters)
    path = session.active_path()
    per_counter: dict[str, list[int]] = {}
    unavailable: dict[str, str] = {}
    for name in list(names):
        if name == "calibrated":
            continue  # chars4 scaled by the fit below: the same figures `calibrated_counts` gives
        try:
            counts = counts_of(name)
        except CutlineError as exc:
            if name != "anthropic" or counters is not None:
                raise  # a counter the person asked for by name fails as one line
            # added because a key is set, and the only counter that needs the network: the others answer offline
            unavailable[name] = str(exc)
            names.remove(name)
            continue
        per_counter[name] = [counts.get(e.id, 0) for e in path]
    chars4 = per_counter.get("chars4") or [counts_of("chars4").get(e.id, 0) for e in path]
    rows = PathRows([e.id for e in path], [e.type for e in path], [e.role for e in path])
    # once: every counter's estimates walk the same path
    data = _report_data(
        session.id, names, rows, per_counter, chars4, context_weight(path), model_calls(path), unavailable
    )
    return TokenReport.model_validate(data)


class PathRows(NamedTuple):
    """What a token report shows of each path entry besides its counts: id, type and role (stored columns as well)."""

    ids: list[str]
    kinds: list[str]
    roles: list[str | None]


def stored_token_data(
    session_id: str, names: list[str], rows: PathRows, calls: StoredCalls, per_counter: dict[str, list[int]]
) -> dict[str, Any]:
    """`token_report(...).model_dump()` of a stored path, from its columns: `per_counter` holds each named counter's cached counts in path order (calibrated apart).

    The same data as from the entries: `stored_model_calls` gives the same calls, and
    `calls.weights` is `context_weight` of the path (`PathColumns.weights`); no counter may
    need the network (anthropic). `token_report_json` prints it; `TokenReport.model_validate` makes the report.
    """
    made = stored_model_calls(rows.ids, rows.kinds, calls)
    return _report_data(session_id, names, rows, dict(per_counter), per_counter["chars4"], calls.weights, made, {})


def token_report_json(data: dict[str, Any]) -> str:
    """`TokenReport.model_validate(data).model_dump_json(indent=2)`, the same text, without making the models.

    Why: pydantic-core's serializer writes plain values as it writes the model's fields
    (the same float spelling), and a 100,000-entry report has ~45,000 usage samples whose
    models cost ~0.1 s only to be written out again. msgspec writes the same text in about
    half the time (a Codex 50k report: ~25 vs ~45 ms) wherever it spells every float as
    pydantic-core does: the report's floats are its fit's and its errors' (every count is an
    int), and the two spell a finite float alike below 1e16 (above, `1e16` against `1e+16`).
    """
    if _floats_spelled_alike(data):
        import msgspec

        return msgspec.json.format(msgspec.json.encode(data), indent=2).decode()
    import pydantic_core

    return pydantic_core.to_json(data, indent=2).decode()


# below this magnitude msgspec and pydantic-core write a finite float the same (shortest round trip, no exponent sign)
_ALIKE_BELOW = 1e15


def _floats_spelled_alike(data: dict[str, Any]) -> bool:
    """Whether msgspec writes this report as pydantic-core does: its only floats, the calibration's figures and the
    counters' errors (`_report_data` makes every count, sample and turn an int), finite and below `_ALIKE_BELOW`.

    Strings, ints of any size, None, booleans and the indentation are written alike (checked over every code point)."""
    figures = [value for key, value in data["calibration"].items() if key != "samples"]
    for error in data["errors"]:
        figures.extend(error.values())
    return all(math.isfinite(value) and abs(value) < _ALIKE_BELOW for value in figures if type(value) is float)


def _report_data(
    session_id: str,
    names: list[str],
    rows: PathRows,
    per_counter: dict[str, list[int]],
    chars4: list[int],
    weights: Sequence[bool | int],
    calls: list[ModelCall],
    unavailable: dict[str, str],
) -> dict[str, Any]:
    """The report as `TokenReport.model_dump()` gives it, from each counter's counts in path order, the path's weights and its recorded model calls."""
    chars4_estimates = call_estimates(weights, chars4, calls)
    fit = _calls_fit(calls, chars4_estimates)
    samples = [
        {"pathIndex": call.path_index, "entryId": call.entry_id, "real": call.real, "estimate": estimate}
        for call, estimate in zip(calls, chars4_estimates)
    ]
    calibration = {**fit._asdict(), "samples": samples}
    calibration = {name: calibration[name] for name in Calibration.model_fields}  # the model's field order
    if "calibrated" in names:
        scaler = CalibratedCounter(fit.ratio)
        per_counter["calibrated"] = [scaler.scale(t) for t in chars4]
    keys = ("pathIndex", "id", "type", "role", *names)
    columns = [per_counter[n] for n in names]
    entries = [dict(zip(keys, row)) for row in zip(range(len(rows.ids)), rows.ids, rows.kinds, rows.roles, *columns)]
    reals = [call.real for call in calls]
    turns = [{"pathIndex": call.path_index, "entryId": call.entry_id, "real": call.real} for call in calls]
    errors: list[dict[str, Any]] = []
    for name in names:
        estimates = chars4_estimates if name == "chars4" else call_estimates(weights, per_counter[name], calls)
        if name == "calibrated":
            estimates = [round(estimate + fit.overhead) for estimate in estimates]
        for row, estimate in zip(turns, estimates):
            row[name] = estimate
        median, p90 = error_summary(relative_errors(zip(reals, estimates)))
        errors.append({"counter": name, "samples": len(calls), "medianError": median, "p90Error": p90})
    return {
        "sessionId": session_id,
        "counters": names,
        "calibration": calibration,
        "entries": entries,
        "turns": turns,
        "errors": errors,
        "unavailable": unavailable,
    }
