"""Clear rewordings the comparison (compare.py) would otherwise read as another fact or as a loss.

Each rule is general (a form of language, not a list of the facts' words) and narrow: a
dropped fact stays lost, a contradicted one contradicted.

- **a name's plural**: "URLs" is "URL", "GPUs" is "GPU" (names are not stemmed like plain words);
- **an error's label**: "fatal runtime error: stack overflow" is the failure "stack overflow";
  the label before the colon ("ERROR", "fatal", "fatal runtime error") says how a tool prints a
  failure, not what failed;
- **a quoted phrase**: the words of "'usb c'" are a literal (a query, a name, a message) and
  count as much as a quoted word does;
- **a path in a named folder**: "`npx jest src/sync` fails" speaks of what is in src/sync, so
  "src/sync/merge.test.ts" is not another name put in its place.

Pure functions of strings and sets, so that compare.py's loops stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

# the words an error's label is made of ("ERROR:", "fatal:", "fatal runtime error:", "Unhandled exception:")
_LABEL_WORDS = frozenset(
    [
        "error",
        "errors",
        "fatal",
        "runtime",
        "panic",
        "panicked",
        "exception",
        "uncaught",
        "unhandled",
        "failed",
        "failure",
        "fail",
        "critical",
        "warning",
        "internal",
    ]
)
_LABEL = re.compile(r"^\s*([A-Za-z][A-Za-z ]{0,40}?)\s*:\s+\S")
_QUOTED = re.compile(r"(?<![\w'])'([^'\n]{1,60}?\s[^'\n]{0,60}?)'(?![\w'])|\"([^\"\n]{1,60}?\s[^\"\n]{0,60}?)\"")
_WORD = re.compile(r"[a-z0-9][a-z0-9'-]*")


def name_plural(norm: str, norms: Collection[str]) -> bool:
    """Whether an alphabetic name is in `norms` in its singular or plural form ("urls" / "url", "gpu" / "gpus")."""
    if not norm.isalpha() or len(norm) < 3:
        return False
    if norm.endswith("s") and len(norm) >= 4 and norm[:-1] in norms:
        return True
    return norm + "s" in norms


def error_label(text: str) -> set[str]:
    """The lower-case words of an error message's label ("fatal runtime error" of "fatal runtime error: stack
    overflow"), when the label is made of error words only; else none."""
    m = _LABEL.match(text)
    if m is None:
        return set()
    words = m.group(1).lower().split()
    if not words or any(w not in _LABEL_WORDS for w in words):
        return set()
    return set(words)


def quoted_words(text: str) -> set[str]:
    """The lower-case words inside quoted phrases of more than one word ("'usb c'", '"add to cart"')."""
    found: set[str] = set()
    for m in _QUOTED.finditer(text):
        found.update(_WORD.findall((m.group(1) or m.group(2) or "").lower()))
    return found


def within_named_folder(path: str, text: str) -> bool:
    """Whether a path lies in a folder of two segments or more that the text names ("src/sync/merge.test.ts" in
    "`npx jest src/sync` fails")."""
    parts = path.strip("/").split("/")
    lower = text.lower()
    for n in range(len(parts) - 1, 1, -1):
        folder = "/".join(parts[:n])
        if re.search(r"(?<![\w./-])/?" + re.escape(folder) + r"/?(?![\w.-])", lower):
            return True
    return False


__all__ = ["error_label", "name_plural", "quoted_words", "within_named_folder"]
