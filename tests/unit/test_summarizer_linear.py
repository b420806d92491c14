"""The offline summarizer's work grows linearly with the session: counted (lines executed), not timed, at n and 4n turns."""

from __future__ import annotations

from cutline.core.models import Message, TextBlock, ToolCallBlock
from cutline.core.summarizers.base import SummaryRequest
from cutline.core.summarizers.extractive import summarize_extractive
from tests.support.work_count import count_lines, line_growth

# 4n turns may cost a little more than 4x n turns (a sort, a budget search), never 16x
MAX_GROWTH = 5.0


def _turn(i: int) -> list[Message]:
    """One realistic turn: a request with a rule and a condition, a read, an edit, a failing and a passing run."""
    path = f"src/module_{i}/handler_{i}.py"
    return [
        Message(
            role="user",
            content=[
                TextBlock(
                    text=f"Fix the retry loop in `{path}` for ticket T-{1000 + i}. Never touch the vendored copy {i}. "
                    f"Batches of up to {i + 10} rows are allowed; keep `RetryPolicy.max_{i}` and --limit-{i}."
                )
            ],
        ),
        Message(
            role="assistant",
            content=[
                TextBlock(text=f"I'll read {path} first, then decided to use `backoff_{i}()` instead of a sleep."),
                ToolCallBlock(id=f"r{i}", name="read", arguments={"path": path}),
            ],
        ),
        Message(role="toolResult", toolCallId=f"r{i}", toolName="read", content=[TextBlock(text="def retry(): ...")]),
        Message(
            role="assistant",
            content=[
                ToolCallBlock(
                    id=f"e{i}",
                    name="edit",
                    arguments={"path": path, "oldText": f"def retry_{i}(x):", "newText": f"def retry_{i}(x, policy):"},
                )
            ],
        ),
        Message(role="toolResult", toolCallId=f"e{i}", toolName="edit", content=[TextBlock(text="edited")]),
        Message(
            role="assistant",
            content=[ToolCallBlock(id=f"b{i}", name="bash", arguments={"command": f"pytest tests/test_{i}.py"})],
        ),
        Message(
            role="toolResult",
            toolCallId=f"b{i}",
            toolName="bash",
            isError=True,
            content=[TextBlock(text=f"E   AssertionError: expected {i} retries at 10.0.{i % 250}.1:{8000 + i}")],
        ),
    ]


def _session(turns: int) -> list[Message]:
    return [message for i in range(turns) for message in _turn(i)]


def _work(turns: int, **request: object) -> int:
    messages = _session(turns)
    return count_lines(lambda: summarize_extractive(SummaryRequest(messages=messages, **request)))  # type: ignore[arg-type]


def test_history_summary_work_is_linear_in_the_session() -> None:
    n = 150
    ratio = line_growth(_work(n, max_tokens=1_000_000), _work(4 * n, max_tokens=1_000_000))
    assert ratio <= MAX_GROWTH, f"work grew {ratio:.1f}x from {n} to {4 * n} turns"


def test_summary_within_a_small_budget_is_linear_too() -> None:
    n = 150
    ratio = line_growth(_work(n, max_tokens=2000), _work(4 * n, max_tokens=2000))
    assert ratio <= MAX_GROWTH, f"work grew {ratio:.1f}x from {n} to {4 * n} turns"


def test_every_agent_shape_and_an_update_are_linear_too() -> None:
    n = 100
    previous = "## Goal\n- Keep the retry loops sane\n\n## Constraints & Preferences\n- Never touch vendored code\n"
    for prompt in ("claude-code", "openclaw-safeguard", "codex"):
        ratio = line_growth(
            _work(n, prompt_name=prompt, previous_summary=previous, kind="update"),
            _work(4 * n, prompt_name=prompt, previous_summary=previous, kind="update"),
        )
        assert ratio <= MAX_GROWTH, f"{prompt}: work grew {ratio:.1f}x from {n} to {4 * n} turns"


def _implicit_turn(i: int) -> list[Message]:
    """A turn of implicit facts (`implicit_facts`): a which-way question answered directly, a read whose role the
    assistant explains, a short output with a number it points back at, a failure it reads a constraint from."""
    path = f"src/part_{i}/table_{i}.py"
    return [
        Message(role="user", content=[TextBlock(text=f"Cache {i} in memory or on disk, which one?")]),
        Message(role="assistant", content=[TextBlock(text=f"On disk under /var/cache/{i}: memory is tight here.")]),
        Message(role="assistant", content=[ToolCallBlock(id=f"r{i}", name="read", arguments={"path": path})]),
        Message(role="toolResult", toolCallId=f"r{i}", toolName="read", content=[TextBlock(text="rows = {}")]),
        Message(
            role="assistant",
            content=[
                TextBlock(text=f"{path} is the lookup table {i} every handler reads."),
                ToolCallBlock(id=f"c{i}", name="bash", arguments={"command": f"count_rows {i}"}),
            ],
        ),
        Message(role="toolResult", toolCallId=f"c{i}", toolName="bash", content=[TextBlock(text=f"rows: {i * 7}")]),
        Message(
            role="assistant",
            content=[
                TextBlock(text="That is the current size."),
                ToolCallBlock(id=f"b{i}", name="bash", arguments={"command": f"install_{i} cache"}),
            ],
        ),
        Message(
            role="toolResult",
            toolCallId=f"b{i}",
            toolName="bash",
            isError=True,
            content=[TextBlock(text=f"error: package {i} requires network access")],
        ),
        Message(role="assistant", content=[TextBlock(text=f"This host cannot reach the network, so {i} stays local.")]),
    ]


def test_the_implicit_facts_are_gathered_in_linear_work() -> None:
    n = 150

    def work(turns: int) -> int:
        messages = [message for i in range(turns) for message in _implicit_turn(i)]
        return count_lines(lambda: summarize_extractive(SummaryRequest(messages=messages, max_tokens=1_000_000)))

    ratio = line_growth(work(n), work(4 * n))
    assert ratio <= MAX_GROWTH, f"work grew {ratio:.1f}x from {n} to {4 * n} turns"
