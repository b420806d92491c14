"""The code names a span worked on: functions, classes, config keys, flags.

Not every identifier seen: a name counts when the user names it, when the assistant
names it in code quotes in its prose, or when an edit defines or changes it (`def x`,
`class X`, `function x`, `x = …` at the start of a changed line). Each mention adds to
its score (the user's and an edit's count more than a mention in passing); the summary
carries the few with the highest score, most recent first among equals. Paths (the
files have their own list), shell commands, template strings and numbers are not code
names. One dict keyed by name: the work is linear in the span.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass

USER_WEIGHT = 3
EDIT_WEIGHT = 3
SAID_WEIGHT = 2
MAX_NAME_CHARS = 80

_QUOTED = re.compile(r"`([^`\n]{2,80})`")
# a name as code writes it: dotted or `::` qualified, an optional call's parentheses, or a --flag
_NAME = re.compile(
    r"(?:--[a-z][a-z0-9-]*[a-z0-9]|[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::)[A-Za-z_$][A-Za-z0-9_$]*)*(?:\(\))?)"
)
# a bare word in the user's text that can only be code: snake_case, camelCase or a qualified name
_BARE = re.compile(
    r"(?<![\w./`$-])(?:--[a-z][a-z0-9]*(?:-[a-z0-9]+)+|--[a-z]{3,}(?=\s+(?:flag|option))"
    r"|[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9](?:\(\))?"
    r"|[a-z]+[A-Z][A-Za-z0-9]*(?:\(\))?"
    r"|[A-Z][A-Za-z0-9]*(?:\.|::)[a-z_][A-Za-z0-9_]*(?:\(\))?)(?![\w/`-])"
)
_DEFINITION = re.compile(
    r"^[ \t]*(?:export\s+)?(?:pub(?:\([a-z]+\))?\s+)?(?:async\s+)?"
    r"(?:def|class|function|fn|func|struct|enum|trait|interface|type|const|let|var)\s+([A-Za-z_$][A-Za-z0-9_$]*)",
    re.MULTILINE,
)
_FILE_SUFFIX = re.compile(r"\.(?:py|js|ts|tsx|jsx|rs|go|rb|java|kt|c|h|cc|cpp|hpp|md|json|ya?ml|toml|txt|sh|css|html)$")
# words that look like code but are prose or tools (and commands the files or runs list already carries)
_NOT_NAMES = frozenset(
    {"true", "false", "null", "none", "self", "this", "todo", "e.g", "i.e", "etc", "vs", "ok", "npm", "git", "pytest"}
)


@dataclass
class _Seen:
    name: str
    score: int
    last: int


def _is_code_name(text: str) -> bool:
    """Whether a quoted span is a code name (not a path, command, template, number or prose)."""
    if len(text) > MAX_NAME_CHARS or not _NAME.fullmatch(text) or "$" in text:
        return False
    if _FILE_SUFFIX.search(text) or text.lower() in _NOT_NAMES:
        return False
    bare = text.removesuffix("()")
    # one plain lower-case word (`build`, `init`) is as likely prose as code; it counts when shaped as code
    return (
        text.startswith("--")
        or text.endswith("()")
        or "_" in bare
        or "." in bare
        or "::" in bare
        or any(c.isupper() for c in bare[1:])
        or (bare[:1].isupper() and len(bare) > 2)
    )


class CodeNames:
    """Scores code names as the span mentions them; `top(n)` gives the most worked-on ones."""

    def __init__(self) -> None:
        self._seen: dict[str, _Seen] = {}
        self._order = 0

    def _add(self, name: str, weight: int) -> None:
        self._order += 1
        key = name.removesuffix("()")
        seen = self._seen.get(key)
        if seen is None:
            self._seen[key] = _Seen(name, weight, self._order)
            return
        seen.score += weight
        seen.last = self._order
        if name.endswith("()"):
            seen.name = name

    def quoted(self, text: str, weight: int = SAID_WEIGHT) -> None:
        """Names in code quotes (`like_this()`) in prose."""
        if "`" not in text:
            return
        for match in _QUOTED.finditer(text):
            value = match.group(1).strip()
            if _is_code_name(value):
                self._add(value, weight)

    def user(self, text: str) -> None:
        """Names the user gives: quoted, or bare words only code is written as."""
        self.quoted(text, USER_WEIGHT)
        self.bare(text)

    def bare(self, text: str) -> None:
        """Bare words of the user's text that only code is written as (snake_case, camelCase, Class.member, --flag)."""
        for match in _BARE.finditer(text.replace("`", " ")):
            value = match.group(0)
            if "`" + value + "`" not in text and _is_code_name(value):
                self._add(value, USER_WEIGHT)

    def edited(self, *texts: str) -> None:
        """Names an edit or a write defines or changes."""
        for text in texts:
            for match in _DEFINITION.finditer(text):
                if len(match.group(1)) > 2 and match.group(1).lower() not in _NOT_NAMES:
                    self._add(match.group(1), EDIT_WEIGHT)

    def top(self, count: int, least: int = SAID_WEIGHT) -> list[str]:
        """The `count` names with the highest score (at least `least`), most recent first among equals."""
        chosen = heapq.nlargest(
            count, (s for s in self._seen.values() if s.score >= least), key=lambda s: (s.score, s.last)
        )
        return [s.name for s in chosen]
