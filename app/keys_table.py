"""The README's table of the review screen's keys, made from the bindings themselves.

    python -m cutline.app.keys_table --write README.md

rewrites the table between the `<!-- keys:start -->` and `<!-- keys:end -->` marks;
a test compares the README with `key_table()`, so a key added, removed or renamed in
the code shows up as a failing test until the README is regenerated.
"""

from __future__ import annotations

import sys
from pathlib import Path

START = "<!-- keys:start -->"
END = "<!-- keys:end -->"

_KEY_NAMES = {"full_stop": ".", "question_mark": "?", "left_square_bracket": "[", "right_square_bracket": "]"}
_KEY_NAMES |= {"left_curly_bracket": "{", "right_curly_bracket": "}", "ctrl+left_square_bracket": "ctrl+["}


def _keys(key: str) -> str:
    return " / ".join(f"`{_KEY_NAMES.get(k.strip(), k.strip())}`" for k in key.split(",") if k.strip())


def key_table() -> str:
    """The review screen's keys, its list's and the app's, one row per action, in the order the code declares them."""
    from textual.binding import Binding

    from cutline.app.screens.session_review import ReviewScreen
    from cutline.app.tui import CutlineApp
    from cutline.app.widgets.message_list import MessageList

    rows: dict[str, list[str]] = {}
    # a screen's own keys, then those of the parts it is made of (its mixins' BINDINGS: Textual merges them)
    holders = [cls for top in (ReviewScreen, MessageList, CutlineApp) for cls in top.__mro__ if "BINDINGS" in vars(cls)]
    for holder in dict.fromkeys(h for h in holders if h.__module__.startswith("cutline.")):
        for binding in vars(holder)["BINDINGS"]:
            if not isinstance(binding, Binding):
                continue
            what = (binding.tooltip or binding.description or binding.action).replace("|", "\\|")
            keys = rows.setdefault(what, [])
            keys += [k for k in [_keys(binding.key)] if k not in keys]
    lines = ["| key | action |", "| --- | --- |"]
    lines += [f"| {' / '.join(keys)} | {what} |" for what, keys in rows.items()]
    return "\n".join(lines)


def readme_table(readme: str) -> str:
    """The table between the marks of a README's text."""
    return readme.split(START, 1)[1].split(END, 1)[0].strip("\n")


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "--write":
        print("usage: python -m cutline.app.keys_table --write README.md", file=sys.stderr)
        return 2
    path = Path(argv[1])
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    path.write_text(f"{head}{START}\n{key_table()}\n{END}{tail}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
