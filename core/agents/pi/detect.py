"""Whether a parsed record is a pi session record (the test lives in `agents.formats`, stdlib-only)."""

from __future__ import annotations

from cutline.core.agents.formats import PI_ENTRY_TYPES, is_pi_record

__all__ = ["PI_ENTRY_TYPES", "is_pi_record"]
