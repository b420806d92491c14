"""Hand-built pi sessions for the audit tests: every message's text and size is chosen by the test."""

from __future__ import annotations

from typing import Any

from cutline.core.models import CompactionRecord, Entry, Message, Session, TextBlock, ToolCallBlock, Usage


class SessionBuilder:
    """Appends entries in a chain with readable ids (e1, e2, ...)."""

    def __init__(self, session_id: str = "hand") -> None:
        self.session_id = session_id
        self.entries: list[Entry] = []

    def _add(self, **fields: Any) -> Entry:
        entry_id = fields.pop("id", None) or f"e{len(self.entries) + 1}"
        parent = self.entries[-1].id if self.entries else None
        entry = Entry(id=entry_id, parentId=parent, **fields)
        self.entries.append(entry)
        return entry

    def user(self, text: str, **kw: Any) -> Entry:
        return self._add(type="message", message=Message(role="user", content=[TextBlock(text=text)]), **kw)

    def assistant(
        self,
        text: str = "",
        calls: list[tuple[str, str, dict[str, Any]]] | None = None,
        usage: int | None = None,
        **kw: Any,
    ) -> Entry:
        content: list[Any] = [TextBlock(text=text)] if text else []
        content += [ToolCallBlock(id=cid, name=name, arguments=args) for cid, name, args in calls or []]
        message = Message(
            role="assistant",
            content=content,
            stopReason="toolUse" if calls else "stop",
            usage=Usage(input=usage, totalTokens=usage) if usage else None,
        )
        return self._add(type="message", message=message, **kw)

    def result(self, call_id: str, text: str, error: bool = False, name: str = "bash", **kw: Any) -> Entry:
        message = Message(
            role="toolResult", toolCallId=call_id, toolName=name, isError=error, content=[TextBlock(text=text)]
        )
        return self._add(type="message", message=message, **kw)

    def compaction(self, summary: str, first_kept: str | None, tokens_before: int = 0, **kw: Any) -> Entry:
        record = CompactionRecord(summary=summary, firstKeptEntryId=first_kept, tokensBefore=tokens_before)
        return self._add(type="compaction", compaction=record, **kw)

    def session(self, fmt: str = "pi") -> Session:
        return Session(id=self.session_id, format=fmt, version=3, entries=list(self.entries))  # type: ignore[arg-type]


def sized(text: str, tokens: int) -> str:
    """`text` padded with filler words to exactly `tokens` * 4 characters (so chars4 counts `tokens`)."""
    target = tokens * 4
    filler = " lorem"
    while len(text) + len(filler) <= target:
        text += filler
    return text + "." * (target - len(text))


def audit_demo_session() -> Session:
    """A small session with one compaction that lost facts."""
    return audit_demo_builder().session()


def audit_demo_builder() -> SessionBuilder:
    """The builder of `audit_demo_session`, for tests that go on writing after it."""
    b = SessionBuilder("audit-demo")
    b.user("Never use sudo. Please set up the project in ~/work/alpha.", id="u1")
    b.assistant(
        "I'll use poetry for dependencies.", calls=[("c1", "bash", {"command": "poetry install"})], usage=1200, id="a1"
    )
    b.result("c1", "bash: poetry: command not found", error=True, id="t1")
    b.assistant("Poetry is missing, so we decided to go with pipx.", usage=1500, id="a2")
    b.user(sized("Now run the tests in tests/unit.", 200), id="u3")
    b.assistant(sized("All 12 tests pass.", 100), usage=2400, id="a3")
    b.compaction(
        "## Constraints & Preferences\n- Never use sudo\n## Progress\n- Project set up in ~/work/alpha",
        "u3",
        tokens_before=2400,
        id="c1",
    )
    b.user("Add a changelog entry.", id="u4")
    b.assistant("Added.", usage=900, id="a4")
    return b


def evidence_session() -> Session:
    """A compaction that lost an instruction from the end of a long message and kept another only in other words."""
    b = SessionBuilder("evidence-demo")
    log = "\n".join(f"day {n % 28 + 1} imported with {n * 17} rows" for n in range(40))
    b.user(
        f"The log so far:\n```\n{log}\n```\nNever deploy the billing service on Fridays.\n"
        "Always run the migration dry-run first.",
        id="u1",
    )
    b.assistant("Understood.", usage=1200, id="a1")
    b.user(sized("Now import the March files.", 200), id="u2")
    b.assistant(sized("Imported all 31 files.", 100), usage=2400, id="a2")
    b.compaction(
        "## Constraints & Preferences\n- The billing service: never deploy it on Fridays.\n"
        "## Progress\n- Importer reads one CSV file per day",
        "u2",
        tokens_before=2400,
        id="c1",
    )
    b.user("Import April too.", id="u3")
    b.assistant("Done.", usage=900, id="a3")
    return b.session()


TURNS_LATEST = "Add the cache to the price lookup."


def turns_report(turns: list[tuple[Any, ...]], summary: str) -> Any:
    """The audit of a compaction of `turns` whose summary is `summary` (then the latest ask, `TURNS_LATEST`, and a kept
    reply). A turn: ("user", text), ("assistant", text), or ("bash", command, output, failed) for a command the
    assistant ran."""
    from cutline.core.audit.report import audit_compaction

    b = SessionBuilder()
    for n, (role, *rest) in enumerate(turns):
        if role == "user":
            b.user(rest[0])
        elif role == "assistant":
            b.assistant(rest[0])
        else:
            command, output, failed = rest
            b.assistant(calls=[(f"call{n}", "bash", {"command": command})])
            b.result(f"call{n}", output, error=failed)
    b.user(TURNS_LATEST)
    b.assistant("On it.", id="kept")
    b.compaction(summary + "\n- " + TURNS_LATEST, "kept", id="c1")
    return audit_compaction(b.session(), "c1")
