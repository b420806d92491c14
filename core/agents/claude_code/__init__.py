"""Claude Code transcripts (~/.claude/projects/*/*.jsonl)."""
