"""`cutline context`: the message list the agent's next request carries, rebuilt from its session.

Only click is imported at module level so the CLI starts fast; the core is imported
inside the command.
"""

from __future__ import annotations

from typing import Any

import click

from cutline.app.commands._store import DB
from cutline.app.output import indented_json, say, say_json


@click.command("context")
@click.argument("session", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print {agent, messages} as JSON.")
@click.option(
    "--proposal",
    "proposal_ref",
    default=None,
    help="Instead: what the agent will send once this proposal is written back (its session's file plus the lines accept appends).",
)
@DB
def context_cmd(session: str | None, as_json: bool, proposal_ref: str | None, db_path: str | None) -> None:
    """Print the messages SESSION's agent sends on its next request (a session file, imported on the fly, or a stored session).

    The agent's own system prompt, tool list and the new prompt are not part of it: they
    are not in the session. With --proposal, the context after that proposal is accepted
    with write-back, exactly as the desk's Context tab shows it.
    """
    from cutline.app.commands._refs import open_session
    from cutline.core.agents import session_wire_context
    from cutline.core.agents.wire import context_json, context_text
    from cutline.core.errors import CutlineError
    from cutline.core.review import context_after_accept
    from cutline.core.store import Store

    if (session is None) == (proposal_ref is None):
        raise click.UsageError("give a SESSION, or --proposal PROPOSAL")
    with Store(db_path) as store:
        if proposal_ref is not None:
            context = context_after_accept(store, proposal_ref)
            if context is None:
                raise CutlineError(
                    f"proposal {proposal_ref}: cutline cannot tell what its session sends after it (see write-back-plan)"
                )
        else:
            assert session is not None
            context = _stored_context(store, session)
            if context is None:
                context = session_wire_context(open_session(store, session))
    if as_json:
        say_json(indented_json(context_json(context), ensure_ascii=False))
        return
    say(context_text(context))


def _stored_context(store: Any, ref: str) -> Any:
    """SESSION's context from the store: the file's last lines as it holds them where they tell, else its rows whole.

    None for a session file the store does not hold as it is (read once and imported, `open_session`, as before:
    a new file is not imported and then rebuilt from its rows).
    """
    from cutline.app.commands._refs import load_held, resolve_stored, session_file
    from cutline.core.agents import session_wire_context
    from cutline.core.session_writes import stored_wire_context, unchanged_session

    candidate = session_file(ref)
    session_id = resolve_stored(store, ref) if candidate is None else unchanged_session(store, candidate)
    if session_id is None:
        return None
    return stored_wire_context(store, session_id) or session_wire_context(load_held(store, session_id))


COMMANDS = [context_cmd]
