"""`cutline --help` (and so every command's start-up) imports only click and the commands' declarations."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from cutline.app.commands import serve
from cutline.app.web import guard
from tests.support.paths import SAMPLES

# modules a start-up does not need: the web guard's (hmac, secrets), pkgutil's walk, tempfile, json,
# and the heavy ones (models, the store, the TUI)
# and asyncio (only a summarizer's run and the deadline of `compact` need it)
NOT_AT_START = (
    "cutline.app.web.guard",
    "hmac",
    "secrets",
    "pkgutil",
    "tempfile",
    "json",
    "pydantic",
    "textual",
    "asyncio",
)


def test_help_imports_nothing_it_does_not_need() -> None:
    code = (
        "import sys\n"
        "from cutline.app.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in {NOT_AT_START!r} if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_serve_declares_the_guards_token_variable() -> None:
    assert serve.TOKEN_ENV == guard.TOKEN_ENV
    assert serve.is_loopback("127.0.0.1") and serve.is_loopback("::1") and not serve.is_loopback("0.0.0.0")


# what no warm `tokens --json FILE` or `plan --json FILE` calls: the desk, the model SDKs and their HTTP
# client, tiktoken (its counts are cached by the first run), the proposing and deciding side of the
# workbench, the proposals table, and the offline summarizer (a plan summarizes nothing)
NEVER_FOR_TOKENS_OR_PLAN = (
    "textual",
    "rich",
    "anthropic",
    "openai",
    "httpx",
    "tiktoken",
    "cutline.core.workbench.deciding",
    "cutline.core.workbench.proposing",
    "cutline.core.store.proposals",
    "cutline.core.summarizers.extractive",
    "cutline.core.summarizers.anthropic",
    "cutline.core.summarizers.openai_api",
)
# nor does `timeline` summarize (the compaction modes' summarizing side), nor `tokens` run anything
# asynchronous (`timeline` and `plan` read the settings file through pydantic-settings, which imports asyncio)
NEVER_FOR_TIMELINE = (*NEVER_FOR_TOKENS_OR_PLAN, "cutline.core.engine.summary_run")
NEVER_FOR_TOKENS = (*NEVER_FOR_TIMELINE, "asyncio")


def _imported(argv: list[str]) -> set[str]:
    """The modules a fresh process has imported after `cutline ARGV` (run as the console script's `main` runs it)."""
    code = f"import sys\nfrom cutline.app.cli import main\nmain({argv!r})\nprint(sorted(sys.modules))\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return set(ast.literal_eval(result.stdout.strip().splitlines()[-1]))


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(name for name in names if any(m == name or m.startswith(f"{name}.") for m in modules))


@pytest.mark.parametrize(
    "sample", ["codex-rollout-compacted.jsonl", "claude-code-compacted.jsonl", "pi-coding-session.jsonl"]
)
def test_a_warm_tokens_timeline_or_plan_imports_only_what_it_uses(sample: str, tmp_path: Path) -> None:
    """Every command pays its imports at start-up: `tokens`, `timeline` and `plan` of a stored file import neither
    the desk, the SDKs, tiktoken, the summarizers nor the proposing side of the workbench."""
    file = str(SAMPLES / sample)
    _imported(["tokens", "--json", file])  # the first run imports the file and caches every counter's counts
    tokens = _imported(["tokens", "--json", file])
    timeline = _imported(["timeline", "-o", str(tmp_path / "plot.svg"), file])
    plan = _imported(["plan", "--json", file])
    assert "cutline.core.store.token_counts" in tokens and "cutline.core.engine.plan" in plan  # the check can see
    assert "cutline.core.audit.timeline" in timeline
    assert _loaded(tokens, NEVER_FOR_TOKENS) == []
    assert _loaded(timeline, NEVER_FOR_TIMELINE) == []
    assert _loaded(plan, NEVER_FOR_TOKENS_OR_PLAN) == []
