"""Memory-flush prompts and the post-compaction recovery turn."""

from __future__ import annotations

import datetime as dt

from cutline.core.config.settings import MemoryFlushSettings, PostCompactionSettings
from cutline.core.engine.recovery import (
    build_memory_flush_turn,
    build_post_compaction_turn,
    should_run_post_compaction,
)

DAY = dt.date(2026, 1, 28)


def test_default_memory_flush_prompts_with_date():
    turn = build_memory_flush_turn(MemoryFlushSettings(enabled=True), DAY)
    assert turn.prompt == (
        "Pre-compaction memory flush. Store durable memories now (use memory/2026-01-28.md; "
        "create memory/ if needed). If nothing to store, reply with NO_REPLY."
    )
    assert turn.system_prompt == (
        "Pre-compaction memory flush turn. The session is near auto-compaction; capture durable "
        "memories to disk. You may reply, but usually NO_REPLY is correct."
    )


def test_custom_flush_prompt_replaces_every_placeholder_and_blank_falls_back():
    settings = MemoryFlushSettings(prompt="Write memory/YYYY-MM-DD.md, then YYYY-MM-DD.log  \n", systemPrompt="  ")
    turn = build_memory_flush_turn(settings, DAY)
    assert turn.prompt == "Write memory/2026-01-28.md, then 2026-01-28.log"
    assert turn.system_prompt.startswith("Pre-compaction memory flush turn.")


def test_post_compaction_turn():
    settings = PostCompactionSettings(
        enabled=True,
        prompt="Compaction completed. Read memory/YYYY-MM-DD.md. If you find a BANANA_KEY marker, report it.",
    )
    message = build_post_compaction_turn(settings, DAY)
    assert message.role == "user"
    assert (
        message.text() == "Compaction completed. Read memory/2026-01-28.md. If you find a BANANA_KEY marker, report it."
    )
    assert build_post_compaction_turn(PostCompactionSettings(enabled=True), DAY).text() == (
        "Compaction completed. Read memory/2026-01-28.md to recover context."
    )


def test_should_run_post_compaction():
    assert should_run_post_compaction(PostCompactionSettings(enabled=True), compacted=True)
    assert not should_run_post_compaction(PostCompactionSettings(enabled=True), compacted=False)
    assert not should_run_post_compaction(PostCompactionSettings(enabled=False), compacted=True)
    assert not should_run_post_compaction(PostCompactionSettings(enabled=True, prompt="  "), compacted=True)
