"""Whether a parsed record is a Claude Code transcript record (the test lives in `agents.formats`, stdlib-only)."""

from __future__ import annotations

from cutline.core.agents.formats import CLAUDE_CODE_TYPES, is_claude_code_record

__all__ = ["CLAUDE_CODE_TYPES", "is_claude_code_record"]
