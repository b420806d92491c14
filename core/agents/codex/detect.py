"""Whether a parsed record is a Codex rollout record (the test lives in `agents.formats`, stdlib-only)."""

from __future__ import annotations

from cutline.core.agents.formats import CODEX_TYPES, is_codex_record

__all__ = ["CODEX_TYPES", "is_codex_record"]
