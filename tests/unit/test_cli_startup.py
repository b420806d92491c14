"""`cutline --help` (and so every command's start-up) imports only click and the commands' declarations."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cutline.app.commands import serve
from cutline.app.web import guard
from tests.support.fresh_python import fresh_python
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
    out = fresh_python(code)
    assert out.strip().splitlines()[-1] == "[]"


def test_serve_declares_the_guards_token_variable() -> None:
    assert serve.TOKEN_ENV == guard.TOKEN_ENV
    assert serve.is_loopback("127.0.0.1") and serve.is_loopback("::1") and not serve.is_loopback("0.0.0.0")


# what no warm `tokens --json FILE` or `plan --json FILE` calls: the desk, the model SDKs and their HTTP
# client, tiktoken (its counts are cached by the first run), the proposing and deciding side of the
# workbench, the proposals table, the offline summarizer (a plan summarizes nothing), and asyncio (nothing
# runs asynchronously: pydantic-settings' own import of it, for its `CliApp.run`, is deferred)
NEVER_FOR_TOKENS_OR_PLAN = (
    "textual",
    "rich",
    "anthropic",
    "openai",
    "httpx",
    "tiktoken",
    "asyncio",
    "cutline.core.workbench.deciding",
    "cutline.core.workbench.proposing",
    "cutline.core.store.proposals",
    "cutline.core.summarizers.extractive",
    "cutline.core.summarizers.anthropic",
    "cutline.core.summarizers.openai_api",
)
# nor does `timeline` summarize (the compaction modes' summarizing side)
NEVER_FOR_TIMELINE = (*NEVER_FOR_TOKENS_OR_PLAN, "cutline.core.engine.summary_run")
# nor does `tokens --json` build any pydantic schema (an unchanged file's import report is made from its stored row,
# its stored problems read only when there are some), so pydantic's plugin loader and what it imports never run
NEVER_FOR_TOKENS = (*NEVER_FOR_TIMELINE, "pydantic.plugin._loader", "importlib.metadata", "email", "zipfile")
# every agent's package (its reader, writer, context): a command on a stored file imports at most its own agent's
AGENT_PACKAGES = tuple(
    f"cutline.core.agents.{agent}" for agent in ("pi", "codex", "claude_code", "openclaw", "opencode", "qwen_code")
)


def _imported(argv: list[str]) -> set[str]:
    """The modules a fresh process has imported after `cutline ARGV` (run as the console script's `main` runs it)."""
    code = f"import sys\nfrom cutline.app.cli import main\nmain({argv!r})\nprint(sorted(sys.modules))\n"
    out = fresh_python(code)
    return set(ast.literal_eval(out.strip().splitlines()[-1]))


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


def _unbuilt_after(argv: list[str]) -> list[str]:
    """Which of the models a plan or timeline never makes still have no schema after `cutline ARGV` (a fresh process)."""
    code = (
        "from cutline.app.cli import main\n"
        f"main({argv!r})\n"
        "from cutline.core.summarizers.base import SummaryRequest\n"
        "from cutline.core.audit.timeline import Timeline, TimelineCompaction, TimelinePoint\n"
        "models = (SummaryRequest, Timeline, TimelineCompaction, TimelinePoint)\n"
        "print([m.__name__ for m in models if not m.__pydantic_complete__])\n"
    )
    return sorted(ast.literal_eval(fresh_python(code).strip().splitlines()[-1]))


@pytest.mark.parametrize("sample", ["codex-rollout-compacted.jsonl", "pi-coding-session.jsonl"])
def test_a_warm_plan_or_timeline_builds_no_summary_request_or_timeline_model(sample: str, tmp_path: Path) -> None:
    """The summarizing side is a run's: a plan or a timeline of a stored file builds no `SummaryRequest` schema
    (pydantic's first build also imports its plugin loader), a timeline imports no summary rules (a plan does: the
    rule set's release folder holds its summary flow), and a timeline drawn from the stored columns makes no `Timeline`
    model, so it builds none of their schemas either."""
    file = str(SAMPLES / sample)
    _imported(["tokens", "--json", file])  # imports the file
    every = ["SummaryRequest", "Timeline", "TimelineCompaction", "TimelinePoint"]
    assert _unbuilt_after(["timeline", "-o", str(tmp_path / "plot.svg"), file]) == every
    assert _unbuilt_after(["timeline", "--json", file]) == every
    assert _unbuilt_after(["plan", "--json", file]) == every
    modules = _imported(["timeline", "--json", file])
    assert "cutline.core.engine.modes.pi" in modules  # the check can see
    assert "cutline.core.engine.rule_summaries" not in modules


@pytest.mark.parametrize(
    ("sample", "agent"),
    [("codex-rollout-compacted.jsonl", "codex"), ("claude-code-compacted.jsonl", "claude_code")],
)
def test_a_warm_command_on_one_agents_file_imports_no_other_agent(sample: str, agent: str, tmp_path: Path) -> None:
    """A file's agent is told from its head by `core.agents.formats` (stdlib only): `tokens`, `timeline` and `plan` of
    a stored Claude Code or Codex file import no other agent's package (pi's, OpenClaw's, ...), nor does `ls` any."""
    file = str(SAMPLES / sample)
    _imported(["tokens", "--json", file])  # imports the file
    own = f"cutline.core.agents.{agent}"
    others = tuple(name for name in AGENT_PACKAGES if name != own)
    for argv in (
        ["tokens", "--json", file],
        ["timeline", "-o", str(tmp_path / "plot.svg"), file],
        ["plan", "--json", file],
    ):
        modules = _imported(argv)
        assert "cutline.core.store.sessions" in modules  # the check can see
        assert _loaded(modules, others) == [], argv
    listed = _imported(["ls"])
    assert "cutline.core.store" in listed
    assert _loaded(listed, (*AGENT_PACKAGES, "asyncio")) == []


# what `ls` of stored sessions never imports: the entry models, the JSON Lines reader's msgspec, pydantic (the list's
# rows are a dataclass) and so never its plugin loader, which imports importlib.metadata and scans every distribution
NEVER_FOR_LS = ("cutline.core.models", "cutline.core.store.sessions", "msgspec", "pydantic", "importlib.metadata")


def test_ls_imports_neither_the_models_nor_pydantic() -> None:
    """`cutline ls` reads the session list alone: `import cutline.core.store` (its `safe_write` is a module of
    `core.agents`, whose package no longer imports the reader and the models at its top) and the list's own module."""
    file = str(SAMPLES / "pi-coding-session.jsonl")
    _imported(["import", file])
    listed = _imported(["ls"])
    assert "cutline.core.store.db" in listed  # the check can see
    assert _loaded(listed, NEVER_FOR_LS) == []


def test_the_config_loads_without_asyncio_and_pydantic_settings_still_reaches_it() -> None:
    """pydantic-settings imports asyncio at its top (for `CliApp.run`): cutline imports it with asyncio deferred, and
    the stand-in it holds imports and hands on the real module at its first use."""
    code = (
        "import sys\n"
        "from cutline.core.config.file import load_config\n"
        "load_config()\n"
        "print('asyncio' in sys.modules)\n"
        "import pydantic_settings.main as m\n"
        "run = m.asyncio.run\n"
        "import asyncio\n"
        "print(run is asyncio.run, m.asyncio.get_running_loop is asyncio.get_running_loop)\n"
    )
    out = fresh_python(code)
    assert out.split() == ["False", "True", "True"]


def test_deferring_a_module_already_imported_changes_nothing() -> None:
    code = (
        "import sys, asyncio\n"
        "from cutline.core.lazy import import_deferring\n"
        "sys.modules.pop('json', None)\n"
        "module = import_deferring('json', 'asyncio')\n"
        "print(sys.modules['asyncio'] is asyncio, module.dumps([1]))\n"
    )
    out = fresh_python(code)
    assert out.split() == ["True", "[1]"]


def test_a_module_reading_the_deferred_one_while_it_is_imported_gets_the_real_one(tmp_path: Path) -> None:
    # a later pydantic-settings might read asyncio at its top: the stand-in must then import the real asyncio
    (tmp_path / "reads_at_import.py").write_text("import asyncio\nRUN = asyncio.run\n", encoding="utf-8")
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "from cutline.core.lazy import import_deferring\n"
        "module = import_deferring('reads_at_import', 'asyncio')\n"
        "import asyncio\n"
        "print(module.RUN is asyncio.run, type(sys.modules['asyncio']).__name__)\n"
    )
    out = fresh_python(code)
    assert out.split() == ["True", "module"]


@pytest.mark.parametrize("sample", ["codex-rollout-compacted.jsonl", "claude-code-compacted.jsonl"])
def test_an_audit_of_another_agents_compaction_imports_no_openclaw_release(sample: str) -> None:
    """The quality guard asks OpenClaw's five sections of OpenClaw sessions only, so only their audit imports that
    release's package (its planner and summary flow come with it)."""
    file = str(SAMPLES / sample)
    modules = _imported(["audit", "--json", file])
    assert "cutline.core.audit.quality" in modules  # the check can see
    assert _loaded(modules, ("cutline.core.releases.openclaw_2026_9",)) == []
