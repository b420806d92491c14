"""A pretend working tree that pi's read / write / edit / bash tools act on.

Reads return the file as it is at that moment, edits really apply (and fail the
way pi's edit tool fails when the old text is missing), so transcripts stay
consistent: a file read after an edit shows the edit.
"""

from __future__ import annotations

import difflib
import hashlib
import random
from datetime import datetime, timedelta

from .pi import PiSession

MAX_LINES = 2000
MAX_BYTES = 50 * 1024


def pi_diff(old: str, new: str, context: int = 4) -> tuple[str, int]:
    """A diff in the style of pi's edit tool details (+/- with line numbers)."""
    a, b = old.split("\n"), new.split("\n")
    width = len(str(max(len(a), len(b))))
    out: list[str] = []
    first = None
    for group in difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(context):
        if out:
            out.append(f" {'':>{width}} ...")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for k in range(i2 - i1):
                    out.append(f" {j1 + k + 1:>{width}} {a[i1 + k]}")
                continue
            if first is None:
                first = j1 + 1
            for k in range(i1, i2):
                out.append(f"-{k + 1:>{width}} {a[k]}")
            for k in range(j1, j2):
                out.append(f"+{k + 1:>{width}} {b[k]}")
    return "\n".join(out), first or 1


class Workspace:
    """Files of a project plus the session the agent works in."""

    def __init__(self, session: PiSession, root: str, files: dict[str, str]) -> None:
        self.s = session
        self.root = root
        self.files = dict(files)
        self.original = dict(files)

    def abs(self, path: str) -> str:
        return path if path.startswith("/") else f"{self.root}/{path}"

    def read(self, path: str, *, text: str | None = None, thinking: str | None = None,
             offset: int | None = None, limit: int | None = None) -> None:
        args: dict = {"path": path}
        if offset is not None:
            args["offset"] = offset
        if limit is not None:
            args["limit"] = limit
        result, err = self.read_result(path, offset, limit)
        details = None
        if not err and "[Showing lines " in result:
            shown = result.rsplit("[Showing lines ", 1)[1].split(" ")[0]
            first, last = (int(x) for x in shown.split("-"))
            body = result.rsplit("\n\n[Showing lines ", 1)[0]
            total = self.files[path].split("\n")
            # pi keeps the truncation record in `details` (it also stores the kept text there; left out here)
            details = {"truncation": {"truncated": True, "truncatedBy": "lines" if last - first + 1 >= MAX_LINES else "bytes",
                                      "totalLines": len(total) - first + 1,
                                      "totalBytes": len("\n".join(total[first - 1:]).encode()),
                                      "outputLines": last - first + 1, "outputBytes": len(body.encode()),
                                      "lastLinePartial": False, "firstLineExceedsLimit": False,
                                      "maxLines": MAX_LINES, "maxBytes": MAX_BYTES}}
        self.s.step("read", args, result, error=err, text=text, thinking=thinking, details=details)

    def read_result(self, path: str, offset: int | None = None, limit: int | None = None) -> tuple[str, bool]:
        if path not in self.files:
            return f"ENOENT: no such file or directory, access '{self.abs(path)}'", True
        lines = self.files[path].split("\n")
        start = (offset or 1) - 1
        if start >= len(lines):
            return f"Offset {offset} is beyond end of file ({len(lines)} lines total)", True
        end = min(len(lines), start + limit) if limit else len(lines)
        chosen: list[str] = []
        size = 0
        for line in lines[start:end]:
            add = len(line.encode()) + (1 if chosen else 0)
            if len(chosen) >= MAX_LINES or size + add > MAX_BYTES:
                break
            chosen.append(line)
            size += add
        body = "\n".join(chosen)
        last = start + len(chosen)
        if last < end and (limit is None or last < start + limit):
            if len(chosen) >= MAX_LINES:
                body += f"\n\n[Showing lines {start + 1}-{last} of {len(lines)}. Use offset={last + 1} to continue.]"
            else:
                body += (f"\n\n[Showing lines {start + 1}-{last} of {len(lines)} (50.0KB limit). "
                         f"Use offset={last + 1} to continue.]")
        elif limit is not None and end < len(lines):
            body += f"\n\n[{len(lines) - end} more lines in file. Use offset={end + 1} to continue.]"
        return body, False

    def read_chunks(self, path: str, chunks: int, notes: list[str | None]) -> None:
        """Read a big file page by page, following pi's `Use offset=N to continue` hints."""
        offset = None
        for i in range(chunks):
            result, _ = self.read_result(path, offset)
            note = notes[i] if i < len(notes) else None
            self.read(path, offset=offset, thinking=note)
            if "Use offset=" not in result:
                break
            offset = int(result.rsplit("Use offset=", 1)[1].split(" ")[0].rstrip(".]"))

    def write(self, path: str, content: str, *, text: str | None = None, thinking: str | None = None) -> None:
        self.files[path] = content
        self.s.step("write", {"path": path, "content": content},
                    f"Successfully wrote {len(content)} bytes to {path}", text=text, thinking=thinking)

    def edit(self, path: str, old: str, new: str, *, text: str | None = None, thinking: str | None = None) -> bool:
        args = {"path": path, "oldText": old, "newText": new}
        content = self.files.get(path)
        if content is None:
            self.s.step("edit", args, f"ENOENT: no such file or directory, access '{self.abs(path)}'",
                        error=True, text=text, thinking=thinking)
            return False
        count = content.count(old)
        if count == 0:
            msg = (f"Could not find the exact text in {path}. The old text must match exactly "
                   "including all whitespace and newlines.")
            self.s.step("edit", args, msg, error=True, text=text, thinking=thinking)
            return False
        if count > 1:
            msg = (f"Found {count} occurrences of the text in {path}. The text must be unique. "
                   "Please provide more context to make it unique.")
            self.s.step("edit", args, msg, error=True, text=text, thinking=thinking)
            return False
        updated = content.replace(old, new, 1)
        diff, first = pi_diff(content, updated)
        self.files[path] = updated
        self.s.step("edit", args, f"Successfully replaced 1 block(s) in {path}.",
                    details={"diff": diff, "firstChangedLine": first}, text=text, thinking=thinking)
        return True

    def bash(self, command: str, output: str, *, code: int = 0, text: str | None = None,
             thinking: str | None = None, took: tuple[float, float] = (0.3, 4.0)) -> None:
        body, details = self.truncate_tail(output) if output else ("(no output)", None)
        output = body if output else output
        if code != 0:
            body = f"{output}\n\nCommand exited with code {code}" if output else f"Command exited with code {code}"
        self.s.step("bash", {"command": command}, body, error=code != 0, text=text, thinking=thinking, took=took,
                    details=details if code == 0 else None)

    def truncate_tail(self, output: str) -> tuple[str, dict | None]:
        """pi's bash tool keeps the last 2000 lines / 50KB and points at the full log."""
        lines = output.split("\n")
        total_bytes = len(output.encode())
        if len(lines) <= MAX_LINES and total_bytes <= MAX_BYTES:
            return output, None
        kept: list[str] = []
        size = 0
        for line in reversed(lines):
            add = len(line.encode()) + (1 if kept else 0)
            if len(kept) >= MAX_LINES or size + add > MAX_BYTES:
                break
            kept.append(line)
            size += add
        kept.reverse()
        by = "lines" if len(kept) >= MAX_LINES else "bytes"
        path = f"/tmp/pi-bash-{self.s.rng.getrandbits(32):08x}.log"
        start = len(lines) - len(kept) + 1
        note = (f"[Showing lines {start}-{len(lines)} of {len(lines)}. Full output: {path}]" if by == "lines" else
                f"[Showing lines {start}-{len(lines)} of {len(lines)} (50.0KB limit). Full output: {path}]")
        details = {"truncation": {"truncated": True, "truncatedBy": by, "totalLines": len(lines),
                                  "totalBytes": total_bytes, "outputLines": len(kept), "outputBytes": size,
                                  "lastLinePartial": False, "firstLineExceedsLimit": False,
                                  "maxLines": MAX_LINES, "maxBytes": MAX_BYTES},
                   "fullOutputPath": path}
        return "\n".join(kept) + "\n\n" + note, details

    def git_diff(self, paths: list[str] | None = None, *, include_new: bool = False) -> str:
        """`git diff` of the files changed so far; new files only with `include_new` (e.g. between commits)."""
        out: list[str] = []
        for path in sorted(self.files):
            if paths and path not in paths:
                continue
            new = path not in self.original
            if (new and not include_new) or (not new and self.original[path] == self.files[path]):
                continue
            a = [] if new else self.original[path].splitlines(keepends=True)
            b = self.files[path].splitlines(keepends=True)
            old_id = "0000000" if new else _blob(self.original[path])
            mode = "new file mode 100644\n" if new else ""
            out.append(f"diff --git a/{path} b/{path}\n{mode}index {old_id}..{_blob(self.files[path])}"
                       f"{'' if new else ' 100644'}\n")
            out.extend(difflib.unified_diff(a, b, "/dev/null" if new else f"a/{path}", f"b/{path}", n=3))
        return "".join(out).rstrip("\n")


def _blob(content: str) -> str:
    """The abbreviated git blob id of a file's content."""
    data = content.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()[:7]


def access_log(rng: random.Random, n: int, start: str, *, hot_key: str = "k_7Qx2", hot_share: float = 0.6) -> str:
    """nginx-style access log lines from the edge load balancer, with one key hammering the list API."""
    t = datetime.fromisoformat(start)
    keys = ["k_2bNf", "k_9LmA", "k_Q3ze", "k_0pRt", "k_h8Kd", "k_Wd1s"]
    uas = ["python-requests/2.31.0", "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15",
           "curl/8.5.0", "snip-cli/1.4.2", "Go-http-client/2.0", "okhttp/4.12.0"]
    codes = ["aZ3kP0q", "promo24", "Xy81LmQ", "docs-v2", "q0Q9wEr", "launch", "RfT5u2M", "hiring"]
    lines = []
    for _ in range(n):
        t += timedelta(milliseconds=rng.randint(3, 160))
        stamp = t.strftime("%d/%b/%Y:%H:%M:%S +0000")
        upstream = rng.choice(["app-1", "app-2"])
        ip = f"{rng.choice([81, 92, 185, 203, 34])}.{rng.randint(1, 254)}.{rng.randint(1, 254)}.{rng.randint(1, 254)}"
        r = rng.random()
        if r < hot_share:
            cursor = rng.randrange(0, 40000, 200)
            path = f"/v1/links?cursor={cursor}&limit=200"
            status, size, rt, key, ua, ip = 200, rng.randint(38000, 52000), rng.uniform(0.12, 0.9), hot_key, \
                "python-requests/2.31.0", "203.0.113.41"
            if rng.random() < 0.04:
                status, size, rt = 504, 167, 30.0
        elif r < hot_share + 0.25:
            path = "/" + rng.choice(codes)
            status, size, rt, key, ua = 307, 0, rng.uniform(0.002, 0.03), "-", rng.choice(uas[1:])
        elif r < hot_share + 0.33:
            path = "/v1/links"
            status, size, rt, key, ua = 201, rng.randint(140, 190), rng.uniform(0.01, 0.08), rng.choice(keys), \
                rng.choice(uas)
            lines.append(f'{ip} - - [{stamp}] "POST {path} HTTP/1.1" {status} {size} "-" "{ua}" '
                         f"rt={rt:.3f} key={key} upstream={upstream}")
            continue
        elif r < hot_share + 0.37:
            path = "/healthz"
            status, size, rt, key, ua, ip = 200, 15, rng.uniform(0.001, 0.004), "-", "ELB-HealthChecker/2.0", \
                "10.0.0.2"
        else:
            path = "/v1/links/" + rng.choice(codes)
            status, size, rt, key, ua = rng.choice([200, 200, 200, 404]), rng.randint(120, 180), \
                rng.uniform(0.005, 0.05), rng.choice(keys), rng.choice(uas)
        lines.append(f'{ip} - - [{stamp}] "GET {path} HTTP/1.1" {status} {size} "-" "{ua}" '
                     f"rt={rt:.3f} key={key} upstream={upstream}")
    return "\n".join(lines)
