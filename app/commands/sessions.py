"""`cutline import`, `ls`, `show` and `export`: getting sessions into the store, seeing them, and writing them out.

Only click is imported at module level so the CLI starts fast; the core is imported
inside each command.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from cutline.app.commands._store import DB, open_store
from cutline.app.output import say, say_json, terminal_text
from cutline.app.widgets.safe_text import one_line
from cutline.core.errors import CutlineError


def _import_line(report: Any, short_id: str) -> str:
    """One line per imported file: what happened, which session (its shortest unique id prefix), how many entries."""
    if report.grown:
        counts = f"+{report.added:,} entries ({report.total:,} in all)"
    elif report.replaced:
        counts = f"{report.total:,} entries (the file changed: re-imported)"
    else:
        counts = f"{report.total:,} entries"
    return f"{report.status:<9}  {report.name}  {short_id}  {counts}"


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@DB
def import_cmd(files: tuple[Path, ...], db_path: str | None) -> None:
    """Import session FILES (pi/OpenClaw, Claude Code, Codex JSONL) into the store.

    Prints what happened to each file, then every problem found as `file:line: message`.
    Exits non-zero only when no file at all could be imported.
    """
    imported = 0
    with open_store(db_path) as store:
        for file in files:
            if file.is_dir():
                say(f"cutline: {terminal_text(str(file))}: {_folder_hint(file)}", err=True)
                continue
            try:
                report = store.import_file(file)
            except CutlineError as exc:
                say(f"cutline: {exc}", err=True)
                continue
            except Exception as exc:
                if os.environ.get("CUTLINE_DEBUG"):
                    raise
                say(f"cutline: {file}: internal error: {type(exc).__name__}: {exc}", err=True)
                continue
            imported += 1
            say(_import_line(report, store.short_ids().get(report.session_id, report.session_id)))
            shown_as = {report.path: str(file)} if report.path else {}
            for problem in report.problems:
                where = shown_as.get(problem.file, problem.file)
                line = f"{where}:{problem.line}" if problem.line is not None else where
                say(f"{line}: {problem.message}", err=True)
    if imported == 0:
        # SystemExit, not click's Exit: with standalone_mode=False click returns Exit's code instead of exiting
        sys.exit(1)


def _folder_hint(folder: Path) -> str:
    """What to do with a folder given to `import`: name its session files (a glob does), or find the agents' own."""
    try:
        here = sum(1 for item in os.scandir(folder) if item.name.endswith(".jsonl") and item.is_file())
    except OSError:
        here = 0
    if here:
        files = f"its {here:,} .jsonl {_plural(here, 'file', 'files')}"
        return f"is a directory; import {files} with `cutline import {terminal_text(str(folder))}/*.jsonl`"
    return (
        "is a directory; give session files (`cutline ls --all` lists the agents' sessions "
        "on this machine, with their files)"
    )


@click.command("ls")
@click.option("--json", "as_json", is_flag=True, help="Print the sessions as a JSON array.")
@click.option(
    "--all",
    "everywhere",
    is_flag=True,
    help="List every agent's sessions on this machine (where Claude Code, Codex, pi and OpenClaw keep them), stored or not.",
)
@DB
def ls_cmd(as_json: bool, everywhere: bool, db_path: str | None) -> None:
    """List the stored sessions, most recently updated first (`--all`: every agent's sessions on this machine)."""
    if everywhere:
        _ls_all(as_json, db_path)
        return
    with open_store(db_path) as store:
        sessions = store.list_sessions()
        short_ids = store.short_ids()
    if as_json:
        from pydantic import TypeAdapter

        from cutline.core.store import SessionInfo

        say_json(TypeAdapter(list[SessionInfo]).dump_json(sessions, indent=2).decode())
        return
    if not sessions:
        say("no sessions yet: `cutline import FILE`")
        return
    rows = [("ID", "NAME", "FORMAT", "ENTRIES", "TOKENS", "COMPACTIONS", "LAST DECISION", "UPDATED")]
    for info in sessions:
        name = one_line(info.name)
        rows.append(
            (
                one_line(short_ids.get(info.id, info.id)),
                name if len(name) <= 40 else name[:39] + "…",
                f"{info.format} v{info.version}" if info.version is not None else info.format,
                f"{info.entries:,}",
                f"{info.tokens:,}" if info.tokens is not None else "-",
                str(info.compactions),
                one_line(info.last_decision or "-"),
                info.updated_at[:16].replace("T", " "),
            )
        )
    _table(rows, numeric={3, 4, 5})


def _table(rows: Sequence[tuple[str, ...]], numeric: set[int]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [cell.rjust(widths[i]) if i in numeric else cell.ljust(widths[i]) for i, cell in enumerate(row)]
        say("  ".join(cells).rstrip())


def _size(size: int) -> str:
    for unit, scale in (("M", 1 << 20), ("k", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f}{unit}"
    return f"{size}B"


def _ls_all(as_json: bool, db_path: str | None) -> None:
    """Every agent's sessions on this machine, newest first, with whether each is in the store already."""
    from cutline.core.agents.discover import discover

    found = discover()
    with open_store(db_path) as store:
        for session in found.sessions:
            session.stored = bool(store.sessions.rows_for_path(session.ref))
    if as_json:
        click.echo(found.model_dump_json(indent=2))
        return
    for problem in found.problems:
        click.echo(f"cutline: {problem}", err=True)
    if not found.sessions:
        click.echo(
            "no agent sessions found (~/.claude/projects, $CODEX_HOME/sessions, ~/.pi/agent/sessions, ~/.openclaw)"
        )
        return
    rows = [("MODIFIED", "AGENT", "VERSION", "SIZE", "STORED", "PROJECT", "SESSION")]
    for s in found.sessions:
        rows.append(
            (
                s.modified[:16].replace("T", " "),
                s.agent,
                s.version or "-",
                _size(s.size),
                "yes" if s.stored else "-",
                s.cwd or "-",
                s.ref,
            )
        )
    _table(rows, numeric={3})


def _overview_text(overview: Any, tail: int | None) -> str:
    info = overview.info
    version = f" v{info.version}" if info.version is not None else ""
    lines = [
        f"{info.name}  ({info.id})",
        f"file:        {info.source_path or '-'}",
        f"format:      {info.format}{version}" + (f"   cwd: {overview.cwd}" if overview.cwd else ""),
        f"entries:     {info.entries:,}   active path: {len(overview.path):,}"
        + (f"   chars4 tokens on the path: {overview.path_tokens:,}" if overview.path_tokens is not None else ""),
        "by type:     " + ", ".join(f"{name} {count:,}" for name, count in sorted(overview.counts_by_type.items())),
        "by role:     "
        + (", ".join(f"{name} {count:,}" for name, count in sorted(overview.counts_by_role.items())) or "-"),
        f"imported:    {info.imported_at}   updated: {info.updated_at}",
    ]
    if info.last_decision:
        lines.append(f"decision:    {info.last_decision} at {info.last_decision_at}")
    if overview.problems:
        lines.append(f"problems:    {len(overview.problems)} (see `cutline import` output)")
    lines.append(f"compactions: {len(overview.compactions)}")
    for compaction in overview.compactions:
        where = f"path #{compaction.path_index}" if compaction.path_index is not None else "off the active path"
        kept = (
            f"keeps from {compaction.first_kept_entry_id}"
            if compaction.first_kept_entry_id
            else "keeps nothing before it"
        )
        lines.append(
            f"  {compaction.id}  {where}  {compaction.timestamp or '-'}  tokensBefore {compaction.tokens_before:,}"
            f"  {kept}  summary {compaction.summary_chars:,} chars"
        )
    path = overview.path if tail is None else overview.path[-tail:] if tail > 0 else []
    lines.append("")
    heading = (
        "active path"
        if len(path) == len(overview.path)
        else f"active path (last {len(path)} of {len(overview.path):,})"
    )
    lines.append(f"{heading}:")
    index_width = len(str(len(overview.path)))
    for line in path:
        kind = line.role or line.type
        when = (line.timestamp or "")[:19].replace("T", " ")
        tokens = f"{line.tokens:>7,}" if line.tokens is not None else ""
        lines.append(
            f"{line.index:>{index_width}}  {line.id[:12]:<12}  {kind:<21.21}  {when:<19}  {tokens}  {line.preview}".rstrip()
        )
    return "\n".join(lines)


@click.command("show")
@click.argument("session")
@click.option(
    "--tail", type=click.IntRange(min=0), default=None, help="List only the last N entries of the active path."
)
@click.option("--json", "as_json", is_flag=True, help="Print the overview as JSON.")
@DB
def show_cmd(session: str, tail: int | None, as_json: bool, db_path: str | None) -> None:
    """Show SESSION (a session file, imported on the fly, or a stored id, id prefix or name): header, counts, compactions and the active path."""
    from cutline.app.commands._refs import session_id_for

    with open_store(db_path) as store:
        overview = store.overview(session_id_for(store, session))
    if as_json:
        say_json(overview.model_dump_json(indent=2))
        return
    say(_overview_text(overview, tail))


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def _new_file_mode() -> int:
    """The mode a newly created file gets under the current umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: Path, data: bytes, mode: int | None = None) -> None:
    """Replace `path` with `data` all at once: a crash leaves the old file or the new one, never half of it.

    The new file gets `mode` (the replaced file's), else what a new file gets under the umask.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile

    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), _new_file_mode() if mode is None else mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def export_target_mode(output: Path, *, force: bool, interactive: bool) -> int | None:
    """The mode to keep when `output` is replaced (None for a new file), or one line refusing to write it.

    Why: replacing whatever the path names turned a device node into a regular file and
    replaced symlinks; only a regular file is written, and an existing one only when the
    person agrees (asked at a terminal, `--force` otherwise).
    """
    shown = terminal_text(str(output))
    try:
        info = output.lstat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CutlineError(f"{shown}: cannot write ({exc.strerror or exc})") from None
    if stat.S_ISLNK(info.st_mode):
        raise CutlineError(f"{shown}: is a symbolic link; refusing to replace it (name the file it points to)")
    if not stat.S_ISREG(info.st_mode):
        raise CutlineError(
            f"{shown}: is not a regular file (a device, pipe, socket or directory); refusing to write it"
        )
    if not force:
        if not interactive:
            raise CutlineError(f"{shown}: already exists; pass --force to overwrite it")
        if not click.confirm(f"{shown} exists. Overwrite it?", default=False, err=True):
            raise CutlineError(f"{shown}: left as it was")
    return stat.S_IMODE(info.st_mode)


@click.command("export")
@click.argument("session")
@click.option("--format", "fmt", type=click.Choice(["pi"]), default="pi", show_default=True, help="Output format.")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    required=True,
    help="File to write (`-` for stdout).",
)
@click.option("--force", is_flag=True, help="Overwrite an existing file without asking.")
@DB
def export_cmd(session: str, fmt: str, output: Path, force: bool, db_path: str | None) -> None:
    """Write a stored SESSION out as a session file; a pi session comes back byte for byte.

    Writes only a regular file: an existing one is overwritten after a yes at the terminal
    (or with --force) and keeps its permissions; symlinks and devices are refused.
    """
    from cutline.app.commands._refs import load_held, session_id_for
    from cutline.core.agents.pi.writer import export_pi

    if output.is_dir():
        name = f"{Path(session).stem or 'session'}.jsonl"
        raise CutlineError(
            f"{terminal_text(str(output))}: is a directory; name the file to write, e.g. "
            f"-o {terminal_text(str(output / name))}"
        )
    with open_store(db_path) as store:
        loaded = load_held(store, session_id_for(store, session))
    to_stdout = str(output) == "-"
    if not to_stdout and loaded.source_path and _same_file(output, Path(loaded.source_path)):
        raise CutlineError(f"{output}: refusing to overwrite the session's own source file; choose another -o")
    text = export_pi(loaded)
    if to_stdout:
        if sys.stdout.isatty():
            say(text.rstrip("\n"))  # a person reading it: escape sequences shown, not run
            return
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.buffer.flush()
        return
    mode = export_target_mode(output, force=force, interactive=sys.stdin.isatty())
    data = text.encode("utf-8")
    try:
        write_atomically(output, data, mode)
    except OSError as exc:
        raise CutlineError(f"{output}: cannot write ({exc.strerror or exc})") from None
    say(f"wrote {output} ({len(data):,} bytes, {_what_was_written(loaded, text)})", err=True)


def _what_was_written(loaded: Any, text: str) -> str:
    """What an export holds: a pi session's entries as they were, or what a Claude Code / Codex session became."""
    entries = f"{len(loaded.entries):,} {_plural(len(loaded.entries), 'entry', 'entries')}"
    if loaded.format == "pi":
        return f"{entries}, pi"
    written = max(0, text.count("\n") - 1)  # every line but the header is one pi entry
    path = len(loaded.active_path())
    return (
        f"converted from {loaded.format}: {written:,} pi v3 {_plural(written, 'entry', 'entries')} "
        f"from the {path:,} on its active path ({entries} in all; side branches, sidechains and "
        "records pi has no place for are left out)"
    )


def _plural(count: int, one: str, many: str) -> str:
    return one if count == 1 else many


COMMANDS = [import_cmd, ls_cmd, show_cmd, export_cmd]
