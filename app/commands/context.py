"""`cutline context`: the message list the agent's next request carries, rebuilt from its session.

Only click is imported at module level so the CLI starts fast; the core is imported
inside the command.
"""

from __future__ import annotations

import json
from typing import Any

import click

from cutline.app.output import say, say_json

_PREVIEW = 160


def _block_line(block: Any) -> str:
    """One neutral block as a short line (type, then what it holds)."""
    kind = block.type
    if kind == "text":
        return f"text  {_one_line(block.text)}"
    if kind == "thinking":
        return f"thinking{' (redacted)' if block.redacted else ''}  {_one_line(block.thinking)}"
    if kind == "tool_call":
        arguments = (
            json.dumps(block.arguments, ensure_ascii=False) if not isinstance(block.arguments, str) else block.arguments
        )
        return f"tool_call {block.id} {block.name}  {_one_line(arguments)}"
    if kind == "tool_result":
        flag = " error" if block.is_error else ""
        text = " ".join(b.text if b.type == "text" else f"[image {b.media_type}]" for b in block.content)
        return f"tool_result {block.tool_call_id}{flag}  {_one_line(text)}"
    return f"image {block.media_type or block.url or ''}"


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _PREVIEW else flat[: _PREVIEW - 1] + "…"


def context_text(context: Any) -> str:
    """The context for a person: one header line per message, one indented line per block."""
    lines = [f"{context.agent}: {len(context.messages)} messages in the next request"]
    for i, message in enumerate(context.messages):
        lines.append(f"[{i}] {message.role}")
        lines.extend(f"    {_block_line(block)}" for block in message.content)
    lines.extend(f"note: {note}" for note in context.notes)
    return "\n".join(lines)


@click.command("context")
@click.argument("session")
@click.option("--json", "as_json", is_flag=True, help="Print {agent, messages} as JSON.")
@click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Store to use (default: $CUTLINE_HOME/cutline.db).",
)
def context_cmd(session: str, as_json: bool, db_path: str | None) -> None:
    """Print the messages SESSION's agent sends on its next request (a session file, imported on the fly, or a stored session).

    The agent's own system prompt, tool list and the new prompt are not part of it: they
    are not in the session.
    """
    from cutline.app.commands._refs import open_session
    from cutline.core.agents import session_wire_context
    from cutline.core.agents.wire import context_json
    from cutline.core.store import Store

    with Store(db_path) as store:
        opened = open_session(store, session)
    context = session_wire_context(opened)
    if as_json:
        say_json(json.dumps(context_json(context), ensure_ascii=False, indent=2))
        return
    say(context_text(context))


COMMANDS = [context_cmd]
