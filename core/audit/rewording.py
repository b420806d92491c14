"""Clear rewordings the comparison (compare.py) would otherwise read as another fact or as a loss.

Each rule is general (a form of language, not a list of the facts' words) and narrow: a
dropped fact stays lost, a contradicted one contradicted.

- **a name's plural**: "URLs" is "URL", "GPUs" is "GPU" (names are not stemmed like plain words);
- **an error's label**: "fatal runtime error: stack overflow" is the failure "stack overflow"
  (a code in the label too: "error[E0463]: can't find crate for `core`" is "can't find crate for core");
  the label before the colon ("ERROR", "fatal", "fatal runtime error") says how a tool prints a
  failure, not what failed;
- **a quoted phrase**: "'usb c'" is a literal (a query, a name, a message) and counts as much
  as a quoted word does (its longest word counts as specific);
- **a number in words**: "three minutes" is "3 minutes" (two to twenty, and the tens);
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
# a label may carry the tool's code for the message in brackets ("error[E0463]:", "warning[W0612]:")
_LABEL = re.compile(r"^\s*([A-Za-z][A-Za-z ]{0,40}?)(?:\[([A-Za-z]{0,4}\d{1,6})\])?\s*:\s+\S")
_QUOTED = re.compile(r"(?<![\w'])'([^'\n]{1,60}?\s[^'\n]{0,60}?)'(?![\w'])|\"([^\"\n]{1,60}?\s[^\"\n]{0,60}?)\"")
_WORD = re.compile(r"[a-z0-9][a-z0-9'-]*")


_NUMBER_WORDS = {
    word: n
    for n, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
    if n >= 2
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_NUMBER_NAMES = {n: word for word, n in _NUMBER_WORDS.items()}
_SPELLED = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")(\s+[a-z])", re.IGNORECASE)


def same_number(norm: str, norms: Collection[str], values: Iterable[float]) -> bool:
    """Whether a number is there written the other way: "three" as "3" (a token or a quantity's value), "3" as
    "three"."""
    if norm in _NUMBER_WORDS:
        n = _NUMBER_WORDS[norm]
        return str(n) in norms or any(v == n for v in values)
    if norm.isdigit() and len(norm) <= 2:
        word = _NUMBER_NAMES.get(int(norm))
        return word is not None and word in norms
    return False


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
    return set(words) | ({m.group(2).lower()} if m.group(2) else set())


def quoted_keywords(text: str) -> set[str]:
    """The longest word (lower case) of each quoted phrase of more than one word ("usb" of "'usb c'"): a quoted
    phrase weighs as a quoted word does, once, not once per word."""
    found: set[str] = set()
    for m in _QUOTED.finditer(text):
        words = _WORD.findall((m.group(1) or m.group(2) or "").lower())
        if words:
            found.add(max(words, key=len))
    return found


def within_named_folder(path: str, text: str) -> bool:
    """Whether a path lies in a folder of two segments or more that the text names ("src/sync/merge.test.ts" in
    "`npx jest src/sync` fails")."""
    parts = path.strip("/").split("/")
    lower = text.lower()
    for n in range(len(parts) - 1, 1, -1):
        folder = "/".join(parts[:n])
        if re.search(r"(?<![\w./-])/?" + re.escape(folder) + r"/?(?![\w./-])", lower):
            return True
    return False


# a duration: a number (in digits or words) and a unit of time; a clock time in am / pm; a range of two clock times
# (the seconds in each spelling of a unit of time; core.audit.compare's quantities use its canonical ones)
SECONDS_PER_UNIT = {
    **dict.fromkeys(["ms", "millisecond", "milliseconds"], 0.001),
    **dict.fromkeys(["s", "sec", "secs", "second", "seconds"], 1.0),
    **dict.fromkeys(["min", "mins", "minute", "minutes"], 60.0),
    **dict.fromkeys(["h", "hr", "hrs", "hour", "hours"], 3600.0),
    **dict.fromkeys(["day", "days"], 86400.0),
    **dict.fromkeys(["week", "weeks"], 604800.0),
}
_DURATION = re.compile(
    r"(?<![\w.:/-])(\d+(?:\.\d+)?|"
    + "|".join(_NUMBER_WORDS)
    + r")[\s-]*("
    + "|".join(sorted(SECONDS_PER_UNIT, key=len, reverse=True))
    + r")\b(?![.:/-]\w)",
    re.IGNORECASE,
)
_CLOCK = re.compile(r"(?<![\w.:])(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?", re.IGNORECASE)
_CLOCK_RANGE = re.compile(r"(?<![\w.:])(\d{1,2}:\d{2})\s*[-\u2013]\s*(\d{1,2}:\d{2})(?![\w:])")


def _seconds(m: re.Match[str]) -> str:
    number = m.group(1).lower()
    value = float(_NUMBER_WORDS[number]) if number in _NUMBER_WORDS else float(number)
    seconds = round(value * SECONDS_PER_UNIT[m.group(2).lower()], 6)
    # the number in seconds and the unit's word: a duration stays two words, as it was
    return f"{int(seconds) if seconds.is_integer() else seconds}s seconds"


def _clock(m: re.Match[str]) -> str:
    hour, minute = int(m.group(1)), int(m.group(2) or 0)
    if hour > 12 or minute > 59:
        return m.group(0)
    hour = hour % 12 + (12 if m.group(3).lower() == "p" else 0)
    return f"{hour:02d}:{minute:02d}"


def times_as_one(text: str) -> str:
    """The text with each duration written in seconds ("48 hours" and "two days" -> "172800s seconds", "0.412 s" and
    "412 ms" -> "0.412s seconds") and each clock time on 24 hours ("9 pm" -> "21:00"; "21:00-08:00" -> "21:00 to 08:00"), so that a
    time restated in another unit or notation is compared as one (months and years, of uneven length, stay as said)."""
    if _CLOCK.search(text):
        text = _CLOCK.sub(_clock, text)
    if ":" in text:
        text = _CLOCK_RANGE.sub(r"\1 to \2", text)
    return _DURATION.sub(_seconds, text)


def digits_for_words(text: str) -> str:
    """The text with numbers in words before a word written in digits ("three retries" -> "3 retries"), so that a
    quantity written in words is compared as one."""
    return _SPELLED.sub(lambda m: str(_NUMBER_WORDS[m.group(1).lower()]) + m.group(2), text)


__all__ = [
    "SECONDS_PER_UNIT",
    "digits_for_words",
    "error_label",
    "name_plural",
    "quoted_keywords",
    "same_number",
    "times_as_one",
    "within_named_folder",
]
