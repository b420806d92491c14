"""Whether a parsed record is a Qwen Code chat record (the test lives in `agents.formats`, stdlib-only)."""

from __future__ import annotations

from cutline.core.agents.formats import QWEN_TYPES, is_qwen_code_record

__all__ = ["QWEN_TYPES", "is_qwen_code_record"]
