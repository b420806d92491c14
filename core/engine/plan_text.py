"""A compaction plan as text: what `cutline plan` prints and the desk's "why" view shows.

Why here: the CLI and the desk must say the same thing about the same plan.
"""

from __future__ import annotations

from cutline.core.engine.compaction_plan import CompactionPlan


def plan_lines(result: CompactionPlan, written_by: str | None = None) -> list[str]:
    """The plan as `cutline plan` prints it, one line each: settings, cut, figures, then the explanation ("why:").

    `written_by`: the rules of the agent that wrote the file, said beside the plan's own when they differ.
    """
    from cutline.core.engine.rules.choice import both_rules

    both = both_rules(result.rules, written_by) if written_by and result.rules else None
    lines = [
        f"mode {result.mode} · rules {result.rules or 'none'}{f' ({both})' if both else ''} · counter {result.counter} · "
        f"{result.pathLength:,} entries on the active path",
    ]
    if result.refusal:
        lines.append(f"refused: {result.refusal}")
    if result.alreadyCompacted:
        lines.append("already compacted: the last entry is a compaction")
    elif result.firstKeptPathIndex is not None:
        split = f", split turn from {result.turnStartPathIndex}" if result.isSplitTurn else ""
        lines.append(f"cut: keep from path index {result.firstKeptPathIndex} (entry {result.firstKeptEntryId}){split}")
    if result.shouldCompact:
        verdict = "would compact now"
    elif result.nothingToCompact and not result.alreadyCompacted and result.tokensBefore > result.threshold:
        verdict = "over the threshold, but nothing can be summarized"
    else:
        verdict = "would not compact yet"
    lines.append(f"tokens before {result.tokensBefore:,} · threshold {result.threshold:,} · {verdict}")
    lines.append(
        f"summarize {result.messagesToSummarize} messages ({result.summarizedTokens:,} tokens)"
        + (f" + turn prefix {result.turnPrefixMessages} ({result.turnPrefixTokens:,})" if result.isSplitTurn else "")
        + f" · keep {result.keptMessages} ({result.keptTokens:,})"
    )
    guard = result.windowGuard
    if guard is not None and (guard.shouldBlock or guard.shouldWarn):
        verdict = "BLOCKED (below 16,000 tokens)" if guard.shouldBlock else "warning (below 32,000 tokens)"
        lines.append(
            f"window guard: context window {guard.tokens:,} {verdict}; OpenClaw blocks below 16,000 and warns below 32,000"
        )
    if result.readOnlyFiles:
        lines.append("read files: " + ", ".join(result.readOnlyFiles))
    if result.modifiedFiles:
        lines.append("modified files: " + ", ".join(result.modifiedFiles))
    lines.append("")
    lines.append("why:")
    lines.extend(f"  - {step.text}" for step in result.explanation)
    return lines


def plan_text(result: CompactionPlan, written_by: str | None = None) -> str:
    """The plan as `cutline plan` prints it."""
    return "\n".join(plan_lines(result, written_by))
