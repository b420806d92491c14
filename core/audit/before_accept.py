"""What a person should read before a summary is accepted: contradicted and lost important facts, a failed guard, in words.

Pure functions over an audit report and the quality guard's verdict, so `cutline accept`
and the desk say the same thing. Contradicted facts and a failed guard block an
unattended write (the person edits the summary or accepts anyway); lost important facts
are shown, weight first.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from cutline.core.audit.verdicts import IMPORTANT_WEIGHT, AuditFact
from cutline.core.engine.quality_guard import QualityVerdict

MAX_SHOWN = 6
CLIP = 140

# tokens OpenClaw's guard asks for that are rarely what anyone wants kept
_FILE_MODE = re.compile(r"^(?:100|120|040|160)[0-7]{3}$")
_SOURCE_LINE = re.compile(r"^[\w.-]+\.[a-z]{1,4}:\d+$")


class Findings(BaseModel):
    """The findings on a summary before it is accepted."""

    contradicted: list[AuditFact] = Field(default_factory=list)
    lost: list[AuditFact] = Field(default_factory=list)
    guard: QualityVerdict | None = None
    weighted_retention: float | None = None

    @property
    def blocking(self) -> bool:
        """A contradiction or a failed guard: not to be written without the person's word."""
        return bool(self.contradicted) or (self.guard is not None and not self.guard.ok)

    @property
    def empty(self) -> bool:
        return not self.contradicted and not self.lost and (self.guard is None or self.guard.ok)

    def lines(self, proposal_id: str = "PROPOSAL") -> list[str]:
        """The findings in words, ending with how to fix them (nothing when there is nothing to say)."""
        if self.empty:
            return []
        out: list[str] = []
        if self.contradicted:
            out.append(
                f"the summary contradicts {_count(len(self.contradicted), 'fact')} (the agent would believe it):"
            )
            for fact in self.contradicted[:MAX_SHOWN]:
                out.append(f"  \u2717 {_clip(fact.text)}")
                out.append(f"      summary says: {_clip(fact.closest)}" + (f" ({fact.reason})" if fact.reason else ""))
            out.extend(_more(len(self.contradicted)))
        if self.lost:
            out.append(f"it loses {_count(len(self.lost), 'important fact')}:")
            for fact in self.lost[:MAX_SHOWN]:
                out.append(f"  - [{fact.kind}] {_clip(fact.text)}")
            out.extend(_more(len(self.lost)))
        if self.guard is not None and not self.guard.ok:
            out.append("the quality guard failed:")
            out.extend(f"  - {line}" for line in guard_words(self.guard))
        if self.weighted_retention is not None:
            out.append(f"weighted retention {self.weighted_retention:.0%}")
        out.append(
            f"to fix: edit the summary (the desk's editor, e) and run `cutline audit --proposal {proposal_id}` again,"
            " or accept anyway"
        )
        return out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= CLIP else text[: CLIP - 1] + "\u2026"


def _more(n: int) -> list[str]:
    return [f"  \u2026 and {n - MAX_SHOWN} more (`cutline audit`)"] if n > MAX_SHOWN else []


def findings(facts: list[AuditFact], guard: QualityVerdict | None, weighted: float | None = None) -> Findings:
    """Contradicted facts, then lost facts weighing `IMPORTANT_WEIGHT` or more (not those read again), and the guard."""
    contradicted = [f for f in facts if f.verdict == "contradicted" and not f.superseded]
    lost = sorted(
        (
            f
            for f in facts
            if f.verdict == "lost" and not f.superseded and not f.recovered and f.weight >= IMPORTANT_WEIGHT
        ),
        key=lambda f: -f.weight,
    )
    return Findings(contradicted=contradicted, lost=lost, guard=guard, weighted_retention=weighted)


def guard_words(verdict: QualityVerdict) -> list[str]:
    """Each failed check of OpenClaw's quality guard as a sentence: what is missing, and what it asks for."""
    out: list[str] = []
    for reason in verdict.reasons:
        code, _, detail = reason.partition(":")
        if code == "missing_section":
            out.append(f"no \u201c{detail}\u201d section (OpenClaw's summaries must have it)")
        elif code == "missing_identifiers":
            named = [i for i in detail.split(",") if i]
            notes = [_identifier_note(i) for i in named]
            shown = ", ".join(f"{i}{f' ({n})' if n else ''}" for i, n in zip(named, notes, strict=True))
            out.append(f"these exact identifiers of the last messages are not quoted: {shown}")
        elif code == "latest_user_ask_not_foregrounded":
            out.append("the first line under \u201c## Pending user asks\u201d must be the latest user request")
        elif code == "latest_user_ask_not_reflected":
            ask = verdict.inputs.latestUserAsk or ""
            out.append(f"the latest user request is not reflected: \u201c{_clip(ask)}\u201d")
        else:
            out.append(reason)
    return out


def _identifier_note(identifier: str) -> str:
    if _FILE_MODE.match(identifier):
        return "a git file mode: noise, accepting anyway is fine"
    if _SOURCE_LINE.match(identifier):
        return "a source-line reference, not a host:port"
    return ""
