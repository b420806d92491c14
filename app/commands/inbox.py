"""`cutline inbox`: compactions agents hold back for review; list them, watch for them, show, edit, answer.

`cutline accept ID` / `cutline reject ID` answer an inbox item as they decide a proposal
(`answer_inbox` below is their first step).
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Any

import click

from cutline.app.commands._store import DB, open_store
from cutline.app.output import indented_json, say, say_json

if TYPE_CHECKING:
    from cutline.core.inbox.items import InboxItem


def _line(item: InboxItem) -> str:
    where = item.session_file or item.agent_session_id or "-"
    if item.found:
        where = f"{where}  (after the fact: no agent waits)"
    tokens = f"{item.tokens_before:,} tokens" if item.tokens_before is not None else "? tokens"
    proposal = f"proposal {item.proposal_id}" if item.proposal_id else "no proposal"
    return (
        f"{item.id}  {item.shown_status():<10}  {item.agent:<11}  {item.reason or '-':<9}  {tokens}  "
        f"{proposal}  {item.created_at}  {where}"
    )


def _as_json(item: InboxItem) -> dict[str, Any]:
    data = item.model_dump()
    data["shown_status"] = item.shown_status()
    return data


@click.group("inbox", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.option("--all", "everything", is_flag=True, help="Also list answered, timed-out and withdrawn items.")
@click.option(
    "--watch",
    is_flag=True,
    help="Keep listening for agents (as the desk does) and print each compaction as it arrives; Ctrl-C stops.",
)
@DB
@click.pass_context
def inbox_cmd(ctx: click.Context, as_json: bool, everything: bool, watch: bool, db_path: str | None) -> None:
    """Compactions waiting for your word (pi holds them while a desk or `inbox --watch` listens).

    Also those found after the fact (`cutline inbox scan`, or Codex's PostCompact hook):
    listed as `found`; no agent waits on them.

    Answer one with `cutline accept ID` (the latest summary version: edit it first with
    `cutline inbox edit ID FILE` or in the desk) or `cutline reject ID`.
    """
    if ctx.invoked_subcommand is not None:
        return
    if watch:
        _watch(db_path, as_json)
        return
    from cutline.core.inbox.items import Inbox

    with open_store(db_path) as store:
        items = Inbox(store).listing(everything=everything)
    if as_json:
        say_json(indented_json([_as_json(i) for i in items]))
        return
    if not items:
        say("inbox: nothing waiting")
        return
    for item in items:
        say(_line(item))


def _watch(db_path: str | None, as_json: bool) -> None:
    import json

    from cutline.core.inbox.answers import make_proposal
    from cutline.core.inbox.channel import InboxListener

    lock = threading.Lock()

    def arrived(item: InboxItem) -> None:
        with lock:
            if as_json:
                say_json(json.dumps(_as_json(item)))
            else:
                say(_line(item))
                say(f"  answer: cutline accept {item.id}   |   cutline reject {item.id}")
            sys.stdout.flush()

    listener = InboxListener(db_path, on_arrival=arrived, make_proposal=make_proposal).start()
    if not as_json:
        say(f"inbox: listening on {listener.path} (Ctrl-C to stop)")
        sys.stdout.flush()
    import signal

    stopped = threading.Event()
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, lambda *_: stopped.set())  # stop as on Ctrl-C: the socket goes, the waits stay
    try:
        while not stopped.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        listener.stop()


@inbox_cmd.command("show")
@click.argument("item")
@click.option("--json", "as_json", is_flag=True, help="Print the item and its summary as JSON.")
@DB
def show_cmd(item: str, as_json: bool, db_path: str | None) -> None:
    """Show ITEM: where it comes from, its status, notes and the summary an accept would send."""
    from cutline.core.errors import CutlineError
    from cutline.core.inbox.answers import summary_of
    from cutline.core.inbox.items import Inbox

    with open_store(db_path) as store:
        found = Inbox(store).find(item)
        if found is None:
            raise CutlineError(f"no inbox item {item}")
        try:
            summary: str | None = summary_of(store, found)[0]
        except CutlineError:
            summary = None
    if as_json:
        say_json(indented_json({**_as_json(found), "summary": summary}))
        return
    say(_line(found))
    if found.first_kept_entry_id:
        say(f"the agent's cut: first kept entry {found.first_kept_entry_id}")
    for note in found.notes:
        say(f"note: {note}")
    say("")
    say(summary if summary is not None else "(no summary yet: `cutline inbox edit ID FILE`)")


@inbox_cmd.command("edit")
@click.argument("item")
@click.argument("summary_file", type=click.File("r", encoding="utf-8"))
@DB
def edit_cmd(item: str, summary_file: Any, db_path: str | None) -> None:
    """Make SUMMARY_FILE ('-' for stdin) ITEM's summary (a new version of its proposal)."""
    from cutline.core.inbox.answers import edit_item

    text = summary_file.read()
    with open_store(db_path) as store:
        edited = edit_item(store, item, text)
    where = f"proposal {edited.proposal_id}" if edited.proposal_id else "its draft"
    say(f"inbox {edited.id}: summary saved ({where}); `cutline accept {edited.id}` sends it")


@inbox_cmd.command("scan")
@click.option(
    "--history",
    is_flag=True,
    help="On the first scan, list the compactions already on disk too (by default they are remembered, not listed).",
)
@click.option("--json", "as_json", is_flag=True, help="Print what the scan found as JSON.")
@DB
def scan_cmd(history: bool, as_json: bool, db_path: str | None) -> None:
    """Find compactions the agents made on their own since the last scan and list them (after the fact).

    Looks at every agent's session folders (as `cutline ls --all` does); reads only the files
    that changed, from where the last scan stopped. The desk scans at start and every minute.
    """
    from cutline.core.inbox.scan import scan

    with open_store(db_path) as store:
        report = scan(store, include_existing=history)
    if as_json:
        say_json(
            indented_json(
                {
                    "files": report.files,
                    "files_read": report.files_read,
                    "bytes_read": report.bytes_read,
                    "baseline": report.baseline,
                    "known": report.known,
                    "items": [_as_json(i) for i in report.items],
                    "problems": report.problems,
                }
            )
        )
        return
    for problem in report.problems:
        say(f"cutline: {problem}", err=True)
    say(
        f"inbox scan: {report.files:,} session files, {report.files_read:,} read ({report.bytes_read:,} bytes); "
        f"{len(report.items):,} new compactions found after the fact"
    )
    if report.baseline and report.known:
        say(
            f"first scan: {report.known:,} compactions already on disk are remembered, not listed "
            "(`cutline inbox scan --history` on a new store lists them)"
        )
    for item in report.items:
        say(_line(item))


@inbox_cmd.command("dismiss")
@click.argument("item")
@DB
def dismiss_cmd(item: str, db_path: str | None) -> None:
    """Dismiss ITEM: a compaction found after the fact you have looked at (nothing is written)."""
    from cutline.core.errors import CutlineError
    from cutline.core.inbox.answers import reject_item

    with open_store(db_path) as store:
        found = reject_item(store, item, "dismissed")
    if found is None:
        raise CutlineError(f"no inbox item {item}")
    say(f"dismissed {found.id}: nothing written")


def answer_inbox(ref: str, decision: str, note: str | None, db_path: str | None) -> bool:
    """Answer the inbox item `ref` names (its id or its proposal's), saying so; False when it names none."""
    from cutline.core.inbox.answers import accept_item, reject_item

    with open_store(db_path) as store:
        item = (accept_item if decision == "accept" else reject_item)(store, ref, note)
    if item is None:
        return False
    if item.found:
        if item.status == "accepted":
            written = (item.answer or {}).get("writtenTo")
            say(f"accepted {item.id}: the summary is written back to {written}; resume {item.agent} from it")
        else:
            say(f"dismissed {item.id}: nothing written")
        return True
    if item.status == "accepted":
        say(f"accepted {item.id}: {item.agent} gets the summary ({len((item.answer or {}).get('summary', ''))} chars)")
    else:
        say(f"rejected {item.id}: {item.agent} cancels the compaction")
    if item.live:
        say("the agent gets the answer from the listening desk or `cutline inbox --watch`")
    return True


COMMANDS = [inbox_cmd]
